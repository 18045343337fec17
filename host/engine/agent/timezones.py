"""`clientTimeZone` validation: `UTC` or a valid IANA Area/Location name."""

from __future__ import annotations

import re
import zoneinfo

from host.engine.errors import InvalidTimeZone

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){1,2}$")


def is_valid_time_zone(value: str) -> bool:
    if value == "UTC":
        return True
    if not _NAME.match(value) or ".." in value:
        return False
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def check_time_zone(value: str) -> str:
    """The value when valid; raises InvalidTimeZone otherwise."""
    if not is_valid_time_zone(value):
        raise InvalidTimeZone(value)
    return value
