"""When a terminal stops reading its shell, and when it goes on (docs/decisions.md, "Terminal and
files").

Two measures of how far behind the clients are, each against a high and a low mark:

- the mux stream: the output bytes some subscriber has not taken yet (`Bus.unread_weight`: a
  client whose connection does not drain holds it up, whether it shows the terminal or not);
- the viewers: a page that draws a terminal acknowledges the seq it has drawn
  (`terminal.ack`); output it has been sent but not drawn is its lag. A viewer that is behind
  and has not acknowledged for `STALE` seconds (the tab closed, the page frozen) no longer
  counts, until it acknowledges again.

Above the high mark the shell is not read: the PTY's buffer fills and the program writing to it
(`cat` of a large file) waits, as it would on a slow terminal. Reading resumes under the low mark.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

HIGH = 1 << 20
"""Bytes behind at which reading stops."""
LOW = 256 << 10
"""Bytes behind under which it resumes."""
STALE = 3.0
"""Seconds without an acknowledgement after which a viewer no longer holds the shell."""


@dataclass
class Viewer:
    acked: int
    at: float
    """When it last acknowledged, or was last seen caught up."""


class Flow:
    """One terminal's viewers and its marks; `unread()` is the mux stream's backlog."""

    def __init__(self, unread: Callable[[], int], high: int = HIGH, low: int = LOW) -> None:
        self._unread = unread
        self.high = high
        self.low = low
        self._viewers: dict[str, Viewer] = {}

    def attach(self, viewer: str, seq: int) -> None:
        """A viewer that has drawn everything up to `seq` (the scrollback it was given)."""
        self._viewers[viewer] = Viewer(seq, time.monotonic())

    def ack(self, viewer: str, seq: int) -> None:
        """The viewer has drawn up to `seq` (an older or unknown viewer simply counts from it)."""
        known = self._viewers.get(viewer)
        acked = max(seq, known.acked) if known is not None else seq
        self._viewers[viewer] = Viewer(acked, time.monotonic())

    def sending(self, before: int) -> None:
        """New output follows seq `before`: a viewer that had drawn all of it is not late yet."""
        now = time.monotonic()
        for v in self._viewers.values():
            if v.acked >= before:
                v.at = now

    def behind(self, sent: int) -> int:
        """The larger of the mux backlog and the lag of the slowest live viewer, in bytes."""
        now = time.monotonic()
        for name in [n for n, v in self._viewers.items() if now - v.at > STALE]:
            del self._viewers[name]
        lag = max((sent - v.acked for v in self._viewers.values()), default=0)
        return max(self._unread(), lag)

    def over(self, sent: int) -> bool:
        return self.behind(sent) > self.high

    def under(self, sent: int) -> bool:
        return self.behind(sent) <= self.low
