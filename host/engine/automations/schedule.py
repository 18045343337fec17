"""When a schedule runs: a five-field cron expression read in the person's time zone by cronsim
(docs/decisions/automations.md: a well-kept library, no cron arithmetic of our own).

A slot is a moment the expression names. `latest_due` is the newest slot after `since` and at or
before `now`: the scheduler runs that one only, so slots missed while the app was closed run
once, not once each.
"""

from __future__ import annotations

import os
import zoneinfo
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cronsim import CronSim, CronSimError

LOOK_BACK = timedelta(days=400)
"""How far back `latest_due` looks for a missed slot (a yearly schedule still finds its last)."""


def host_zone() -> str:
    """The host's IANA time zone name (`TZ`, else where /etc/localtime points), else UTC."""
    name = os.environ.get("TZ", "").lstrip(":")
    candidates = [name] if name else []
    try:
        target = os.readlink("/etc/localtime")
        if "zoneinfo/" in target:
            candidates.append(target.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    try:
        candidates.append(Path("/etc/timezone").read_text(encoding="utf-8").strip())
    except OSError:
        pass
    for candidate in candidates:
        try:
            zoneinfo.ZoneInfo(candidate)
            return candidate
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            continue
    return "UTC"


def zone(name: str | None) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name or host_zone())
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def next_after(cron: str, zone_name: str | None, after: datetime) -> datetime | None:
    """The first slot strictly after `after` (UTC), or None (an expression that never fires)."""
    local = after.astimezone(zone(zone_name)).replace(second=0, microsecond=0)
    try:
        found = next(CronSim(cron, local))
    except (CronSimError, StopIteration):
        return None
    return found.astimezone(UTC)


def latest_due(cron: str, zone_name: str | None, since: datetime, now: datetime) -> datetime | None:
    """The newest slot in (since, now], or None."""
    start = max(since, now - LOOK_BACK)
    tz = zone(zone_name)
    try:
        # cronsim walks backwards from `now` when asked to (reverse=True)
        start_at = now.astimezone(tz).replace(microsecond=0) + timedelta(seconds=1)
        found = next(CronSim(cron, start_at, reverse=True))
    except (CronSimError, StopIteration):
        return None
    found = found.astimezone(UTC)
    return found if start < found <= now else None
