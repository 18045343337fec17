"""The client time-zone check used by `session.prompt`."""

from __future__ import annotations

import pytest

from host.engine.agent.timezones import check_time_zone, is_valid_time_zone
from host.engine.errors import InvalidTimeZone


def test_time_zone_helper() -> None:
    assert check_time_zone("UTC") == "UTC"
    assert is_valid_time_zone("Europe/Paris") and is_valid_time_zone("America/Argentina/Buenos_Aires")
    for bad in ["", "Paris", "Europe/Nowhere", "../etc/passwd", "Europe/../Paris", "EST5EDT/x"]:
        assert not is_valid_time_zone(bad)
    with pytest.raises(InvalidTimeZone) as info:
        check_time_zone("Mars/Olympus")
    assert info.value.details() == {"value": "Mars/Olympus"}
