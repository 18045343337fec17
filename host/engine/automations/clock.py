"""The scheduler's clock, injectable so a test controls time (docs/decisions/automations.md).

`now()` is aware (UTC); `sleep()` may return early (the scheduler looks again whenever it wakes),
never later than asked.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)
