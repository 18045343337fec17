"""Fixtures for the desktop window tests: one Xvfb per session, an app launcher per test."""

from __future__ import annotations

import shutil
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tests.desktop.support import App, AppFactory
from tests.desktop.x11 import start_openbox, start_xvfb
from tests.support.machine import need


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed window test's report carries each live app's threads and the end of its stderr
    (docs/decisions/test-failure-reports.md): a failure in a busy run cannot be looked at again."""
    report = yield
    if report.when == "call" and report.failed:
        live = [app for app in App.launched if app.proc.poll() is None]
        if live:
            report.sections.append(("apps at the failure", "\n".join(app.report() for app in live)))
    return report


@pytest.fixture(scope="session")
def display() -> Iterator[str]:
    """A private X display (Xvfb 1280x800x24, no TCP) for every GUI test of the session."""
    need(
        bool(shutil.which("Xvfb") and shutil.which("xdotool")),
        "Xvfb and xdotool are needed for the window tests",
    )
    try:
        import desktop.gtkshell  # noqa: F401  (GTK 3 and WebKitGTK 4.1 through GObject introspection)
    except ImportError as exc:
        need(False, f"WebKitGTK is not importable: {exc}")
    proc, name = start_xvfb()
    yield name
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="session")
def wm_display() -> Iterator[str]:
    """A second Xvfb with openbox managing it: windows get frames, placement and maximize as on
    a desktop (the plain `display` has no window manager)."""
    need(
        bool(shutil.which("Xvfb") and shutil.which("xdotool")),
        "Xvfb and xdotool are needed for the window tests",
    )
    need(
        bool(shutil.which("openbox") and shutil.which("wmctrl") and shutil.which("xwininfo")),
        "openbox, wmctrl and xwininfo are needed for the window manager tests",
    )
    try:
        import desktop.gtkshell  # noqa: F401
    except ImportError as exc:
        need(False, f"WebKitGTK is not importable: {exc}")
    proc, name = start_xvfb()
    try:
        wm = start_openbox(name)
        try:
            yield name
        finally:
            wm.terminate()
            wm.wait(10)
    finally:  # the Xvfb goes too when openbox could not start
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def apps(display: str, tmp_path: Path) -> Iterator[AppFactory]:
    factory = AppFactory(display, tmp_path)
    yield factory
    factory.stop_all()
