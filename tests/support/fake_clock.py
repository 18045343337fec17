"""A clock the test moves (the automations' scheduler takes it: docs/decisions/automations.md).

`sleep()` returns when the test moves the clock (or a real bound passes, so nothing waits for
ever); the scheduler then looks at `now()` again. No test sleeps for the minutes it simulates.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta


class FakeClock:
    def __init__(self, start: datetime) -> None:
        self.at = start
        self._moved: asyncio.Event | None = None

    def now(self) -> datetime:
        return self.at

    async def sleep(self, seconds: float) -> None:
        if self._moved is None:
            self._moved = asyncio.Event()
        moved = self._moved
        try:
            await asyncio.wait_for(moved.wait(), 5.0)  # bounded; the scheduler looks again anyway
        except TimeoutError:
            pass

    def set(self, moment: datetime) -> None:
        self.at = moment
        if self._moved is not None:
            self._moved.set()
            self._moved = None

    def advance(self, **delta: float) -> None:
        self.set(self.at + timedelta(**delta))
