"""One Playwright driver, one Chromium and one warm context for each run of browser tests in a
row on a worker (docs/decisions.md, "One browser per run of browser tests").

The sync API keeps its event loop current in the main thread while the driver lives, which breaks
every asyncio test that runs after it in the same process. So a streak ends (context, browser
and driver closed) before the first test that does not ask for the driver (tests/conftest.py,
`pytest_runtest_setup`), and a new one starts with the next browser test. The browser files go
out first (tests/support/file_order.py), so a worker has one streak rather than one per module.

The module servers of a worker take turns on one port, and so do the first servers tests start of
their own (`stable_port`): the browser's HTTP and code caches are keyed by origin, so the modules
a page fetched from one server serve the next server's first page on that port too, as they
would a person who opens the app again on its port.
"""

from __future__ import annotations

import contextlib
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, SUITE_CHROMIUM, new_context
from tests.support.ports import bindable, free_port


class BrowserStreak:
    """The driver, browser and warm context of the current streak, each started on first use."""

    def __init__(self) -> None:
        self._manager: Any = None
        self._driver: Playwright | None = None
        self._browser: Browser | None = None
        self._full: Browser | None = None
        self._warm: BrowserContext | None = None

    @property
    def open(self) -> bool:
        return self._driver is not None

    def driver(self) -> Playwright:
        if self._driver is None:
            self._manager = sync_playwright()
            self._driver = self._manager.start()
        return self._driver

    def browser(self) -> Browser:
        if self._browser is None:
            self._browser = self.driver().chromium.launch(executable_path=SUITE_CHROMIUM, args=CHROMIUM_ARGS)
        return self._browser

    def full(self) -> Browser:
        """The full Chromium, for what its headless shell cannot do (grant notifications); the
        suite's browser itself when that is the full one."""
        if SUITE_CHROMIUM == CHROMIUM:
            return self.browser()
        if self._full is None:
            self._full = self.driver().chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        return self._full

    def warm(self) -> BrowserContext:
        if self._warm is None:
            self._warm = new_context(self.browser())
        return self._warm

    def close(self) -> None:
        """End the streak: nothing of it is left running, and the main thread's loop is gone."""
        warm, browser, full, manager = self._warm, self._browser, self._full, self._manager
        self._warm = self._browser = self._full = self._driver = self._manager = None
        if warm is not None:
            with contextlib.suppress(Exception):
                warm.close()
        for each in (browser, full):
            if each is not None:
                with contextlib.suppress(Exception):
                    each.close()
        if manager is not None:
            manager.__exit__(None, None, None)


STREAK = BrowserStreak()

_ports: dict[str, int] = {}


def stable_port(role: str) -> int:
    """The port this worker's servers of one role take turns on: "module" (each module's
    `harness`) or "own" (a test's first server of its own); a new one if it was taken."""
    port = _ports.get(role, 0)
    if port == 0 or not bindable(port):
        port = _ports[role] = free_port()
    return port
