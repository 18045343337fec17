"""Fixtures for the browser tests: a scripted LLM, a `harnessdesk serve` subprocess pointed at it,
headless Chromium through Playwright, and a page that opened the one-time URL.

Scopes keep the suite fast: one scripted LLM per test process (the root plugin's `llm_server`,
tests/support/scripted_llm.py) and one `serve` per test module (each test works in its own new
session and leaves no turn running; the modules' servers take turns on one port), one driver,
browser and warm context per run of browser tests (tests/browser/streak.py), in which each
test's `page` opens (its storage wiped after every test, its caches kept).
Tests that need a server of their own (restarts, first run, another provider) use
`make_harness`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect

from tests.browser import diagnosis
from tests.browser.streak import STREAK, stable_port
from tests.browser.support import SUITE_CHROMIUM, Contexts, HarnessServer, openai_args
from tests.support.machine import need
from tests.support.scripted_llm import ScriptedLlmServer

expect.set_options(timeout=10_000)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test's report carries its pages' state, their console, its servers' logs
    (tests/browser/diagnosis.py); the fixtures are still up when the call's report is made."""
    report = yield
    if report.when == "call" and report.failed:
        args = getattr(item, "funcargs", {})
        made: list[HarnessServer] = item.stash.get(SERVERS_MADE, [])
        servers = list(made)
        if isinstance(args.get("harness"), HarnessServer):
            servers.insert(0, args["harness"])
        llm = args.get("llm")
        contexts = args.get("contexts")
        report.sections.append(
            (
                "browser state at the failure",
                diagnosis.report(
                    contexts if isinstance(contexts, Contexts) else None,
                    servers,
                    llm if isinstance(llm, ScriptedLlmServer) else None,
                ),
            )
        )
    return report


@pytest.fixture(scope="module")
def harness(
    tmp_path_factory: pytest.TempPathFactory, llm_server: ScriptedLlmServer
) -> Iterator[HarnessServer]:
    """The module's `harnessdesk serve`, on the scripted LLM."""
    server = HarnessServer(
        tmp_path_factory.mktemp("harness"), openai_args(llm_server.base_url), port=stable_port("module")
    )
    server.start()
    yield server
    server.stop()


SERVERS_MADE = pytest.StashKey[list[HarnessServer]]()
"""The servers a test made with `make_harness`: a failed test's report shows their logs."""


@pytest.fixture
def make_harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., HarnessServer]]:
    """A server of the test's own: `make_harness(provider_args)` (started)."""
    made: list[HarnessServer] = []
    request.node.stash[SERVERS_MADE] = made

    def make(provider_args: list[str], name: str = "own") -> HarnessServer:
        port = 0 if made else stable_port("own")
        server = HarnessServer(tmp_path / f"{name}-{len(made)}", provider_args, port=port)
        made.append(server)
        server.start()
        return server

    yield make
    for server in made:
        server.stop()


@pytest.fixture
def playwright_driver() -> Playwright:
    """The streak's driver (tests/browser/streak.py): it outlives the test, and the module, until
    a test that does not ask for it comes."""
    return STREAK.driver()


@pytest.fixture
def browser(playwright_driver: Playwright) -> Browser:
    need(Path(SUITE_CHROMIUM).exists(), f"{SUITE_CHROMIUM} is not installed")
    return STREAK.browser()


@pytest.fixture
def full_browser(browser: Browser) -> Browser:
    """The streak's full Chromium, beside its headless shell: only the full browser lets a
    context grant notifications (docs/decisions/the-suites-headless-shell.md)."""
    return STREAK.full()


@pytest.fixture
def warm_context(browser: Browser) -> BrowserContext:
    """The streak's warm context: `page` opens in it (docs/decisions.md, "One warm browser
    context per module")."""
    return STREAK.warm()


@pytest.fixture
def contexts(
    browser: Browser, warm_context: BrowserContext, make_harness: Callable[..., HarnessServer]
) -> Iterator[Contexts]:
    """(Set up after `make_harness` so the pages close before the test's own servers stop:
    a server with live event streams takes seconds to shut down gracefully.)"""
    c = Contexts(browser, warm_context)
    yield c
    c.close()
    assert not c.page_errors, f"uncaught errors in the page: {c.page_errors}"


@pytest.fixture
def page(contexts: Contexts, harness: HarnessServer, llm: ScriptedLlmServer) -> Iterator[Page]:
    """A page on the module's server, connected. At teardown every running turn is cancelled and
    its waiting input dropped, so the next test on this server starts quiet."""
    p = contexts.warm_page(harness.url)
    yield p
    with contextlib.suppress(Exception):
        p.evaluate(
            """async () => {
                const {client, app} = window.harnessdesk;
                const running = [...app.manager.summaries.values()].filter((s) => s.running);
                const ids = running.map((s) => s.sessionId);
                const stop = (sessionId) => client.call("session.cancel", {sessionId, clearQueue: true});
                await Promise.all(ids.map(stop));
            }"""
        )
