"""The main window's title, sizes and remembered geometry (`<data dir>/window.json`)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

TITLE = "HarnessDesk"
MIN_SIZE = (720, 480)
DEFAULT_SIZE = (1100, 740)


class Geometry:
    """Size, position and maximized state, remembered in `<data dir>/window.json`. While the
    window is maximized its normal size is kept, so a restore after the next start returns to it
    (docs/decisions.md, "Review and context, part 2")."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.width, self.height = DEFAULT_SIZE
        self.x: int | None = None
        self.y: int | None = None
        self.maximized = False
        self._before = DEFAULT_SIZE
        with contextlib.suppress(OSError, ValueError, TypeError):
            saved = json.loads(file.read_text())
            self.width = max(MIN_SIZE[0], min(int(saved["width"]), 10000))
            self.height = max(MIN_SIZE[1], min(int(saved["height"]), 10000))
            x, y = saved.get("x"), saved.get("y")
            if isinstance(x, int) and isinstance(y, int) and -50 <= x < 10000 and -50 <= y < 10000:
                self.x, self.y = x, y
            self.maximized = saved.get("maximized") is True

    def resized(self, width: int, height: int) -> None:
        if self.maximized:
            return  # the screen's size, not the window's own
        self._before = (self.width, self.height)
        self.width, self.height = int(width), int(height)

    def maximize(self) -> None:
        """The toolkit reports the resize to the screen's size just before this: undo it."""
        if not self.maximized:
            self.maximized = True
            self.width, self.height = self._before

    def restore(self) -> None:
        self.maximized = False

    def moved(self, x: int, y: int) -> None:
        self.x, self.y = int(x), int(y)

    def save(self) -> None:
        data = {
            "width": self.width,
            "height": self.height,
            "x": self.x,
            "y": self.y,
            "maximized": self.maximized,
        }
        tmp = self.file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(self.file)
