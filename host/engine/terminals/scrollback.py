"""The newest output bytes of a terminal, for a client that (re)attaches (docs/decisions.md,
"Terminal and files")."""

from __future__ import annotations

from collections import deque


class Scrollback:
    """At most `limit` bytes, the newest, and `seq`: every byte ever appended."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.seq = 0
        self._chunks: deque[bytes] = deque()
        self._size = 0

    def append(self, data: bytes) -> None:
        self.seq += len(data)
        self._chunks.append(data)
        self._size += len(data)
        while self._size - len(self._chunks[0]) >= self.limit:
            self._size -= len(self._chunks.popleft())

    def snapshot(self) -> bytes:
        """The kept bytes (at most `limit`), starting at a line when the cut fell inside one, so
        a replay does not begin in the middle of an escape sequence or a character."""
        data = b"".join(self._chunks)
        if len(data) <= self.limit:
            return data if self.seq == len(data) else _from_line(data)
        return _from_line(data[-self.limit :])


def _from_line(data: bytes) -> bytes:
    cut = data.find(b"\n", 0, 4096)
    return data[cut + 1 :] if cut >= 0 else data
