"""The main window's title, sizes and remembered geometry (`<data dir>/window.json`)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

TITLE = "HarnessDesk"
MIN_SIZE = (720, 480)
DEFAULT_SIZE = (1100, 740)


class Geometry:
    """Size and position, remembered in `<data dir>/window.json`."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.width, self.height = DEFAULT_SIZE
        self.x: int | None = None
        self.y: int | None = None
        with contextlib.suppress(OSError, ValueError, TypeError):
            saved = json.loads(file.read_text())
            self.width = max(MIN_SIZE[0], min(int(saved["width"]), 10000))
            self.height = max(MIN_SIZE[1], min(int(saved["height"]), 10000))
            x, y = saved.get("x"), saved.get("y")
            if isinstance(x, int) and isinstance(y, int) and -50 <= x < 10000 and -50 <= y < 10000:
                self.x, self.y = x, y

    def resized(self, width: int, height: int) -> None:
        self.width, self.height = int(width), int(height)

    def moved(self, x: int, y: int) -> None:
        self.x, self.y = int(x), int(y)

    def save(self) -> None:
        data = {"width": self.width, "height": self.height, "x": self.x, "y": self.y}
        tmp = self.file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(self.file)
