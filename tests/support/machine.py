"""What a test needs from the machine (a display server, WebKitGTK, Chromium, node, dpkg-deb).

On a developer's machine a missing part skips the tests that need it, with the reason. Under
`HARNESSDESK_STRICT_ENV=1` (set by `.ci/run`) it fails them instead: a broken install must not
pass CI as a row of skipped tests."""

from __future__ import annotations

import os

import pytest

STRICT = os.environ.get("HARNESSDESK_STRICT_ENV") == "1"


def need(present: bool, reason: str) -> None:
    """Skip (or, in CI, fail) the calling test or fixture when `present` is false."""
    if present:
        return
    if STRICT:
        pytest.fail(f"{reason} (HARNESSDESK_STRICT_ENV=1: CI must have it)", pytrace=False)
    pytest.skip(reason)


def needs(present: bool, reason: str) -> pytest.MarkDecorator:
    """The marker form of `need`: skips when missing, except in CI, where the test runs and fails."""
    return pytest.mark.skipif(not present and not STRICT, reason=reason)
