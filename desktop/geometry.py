"""The main window's title, sizes and remembered geometry (`<data dir>/window.json`)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable
from pathlib import Path

TITLE = "HarnessDesk"
MIN_SIZE = (720, 480)
DEFAULT_SIZE = (1100, 740)
SETTLE = 0.5
"""Seconds: a change of the normal geometry this close before the maximized state arrived was
the maximize itself (window managers send the resize and the state in either order)."""
VISIBLE = (120, 40)
"""Width and height of the window's top strip (its title bar) that must lie on some monitor
for a saved position to be used; otherwise the window opens centred (a monitor was unplugged)."""

Rect = tuple[int, int, int, int]  # x, y, width, height


class Geometry:
    """Size, position and maximized state, remembered in `<data dir>/window.json`. While the
    window is maximized its normal size and position are kept, so a restore after the next start
    returns to them (docs/decisions.md, "Window geometry under a window manager")."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.width, self.height = DEFAULT_SIZE
        self.x: int | None = None
        self.y: int | None = None
        self.maximized = False
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            saved = json.loads(file.read_text())
            self.width = max(MIN_SIZE[0], min(int(saved["width"]), 10000))
            self.height = max(MIN_SIZE[1], min(int(saved["height"]), 10000))
            x, y = saved.get("x"), saved.get("y")
            if isinstance(x, int) and isinstance(y, int) and -10000 < x < 10000 and -10000 < y < 10000:
                self.x, self.y = x, y
            self.maximized = saved.get("maximized") is True
        self._previous = self._normal()
        self._changed_at = float("-inf")

    def _normal(self) -> tuple[int, int, int | None, int | None]:
        return (self.width, self.height, self.x, self.y)

    def normal(self, width: int, height: int, x: int | None, y: int | None, now: float | None = None) -> None:
        """The window's size and frame position while it is neither maximized nor full screen."""
        if self.maximized:
            return  # the screen's size, not the window's own
        now = time.monotonic() if now is None else now
        if (width, height, x, y) == self._normal():
            return
        if now - self._changed_at >= SETTLE:
            self._previous = self._normal()
        self.width, self.height, self.x, self.y = int(width), int(height), x, y
        self._changed_at = now

    def maximize(self, now: float | None = None) -> None:
        """Maximized: a normal change reported just before was the maximize: undo it."""
        if self.maximized:
            return
        now = time.monotonic() if now is None else now
        if now - self._changed_at < SETTLE:
            self.width, self.height, self.x, self.y = self._previous
        self.maximized = True

    def restore(self) -> None:
        self.maximized = False
        self._changed_at = float("-inf")

    # pywebview's own events (the platforms other than GTK, which tracks the window itself)
    def resized(self, width: int, height: int) -> None:
        self.normal(width, height, self.x, self.y)

    def moved(self, x: int, y: int) -> None:
        self.normal(self.width, self.height, int(x), int(y))

    def keep_on_screen(self, monitors: Iterable[Rect]) -> None:
        """Forget a saved position whose title bar is on no monitor (the window is centred)."""
        if self.x is None or self.y is None:
            return
        strip = (self.x, self.y, self.width, VISIBLE[1])
        need = (min(VISIBLE[0], self.width), VISIBLE[1] // 2)
        if not any(_shown(_overlap(strip, m), need) for m in monitors):
            self.x = self.y = None

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


def _shown(seen: tuple[int, int], need: tuple[int, int]) -> bool:
    return seen[0] >= need[0] and seen[1] >= need[1]


def _overlap(a: Rect, b: Rect) -> tuple[int, int]:
    """Width and height of the intersection of two rectangles (0 when they do not meet)."""
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return (w, h) if w > 0 and h > 0 else (0, 0)
