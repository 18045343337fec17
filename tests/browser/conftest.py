"""Fixtures for the browser tests: a scripted LLM, a `harnessdesk serve` subprocess pointed at it,
headless Chromium through Playwright, and a page that opened the one-time URL.

Scopes keep the suite fast: one scripted LLM per test process (the root plugin's `llm_server`,
tests/support/scripted_llm.py) and one `serve` per test module (each test works in its own new
session and leaves no turn running), one browser per module, and per module one warm context
in which each test's `page` opens (its storage wiped after every test, its caches kept).
Tests that need a server of their own (restarts, first run, another provider) use
`make_harness`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, Contexts, HarnessServer, new_context, openai_args
from tests.support.machine import need
from tests.support.scripted_llm import ScriptedLlmServer

expect.set_options(timeout=10_000)


@pytest.fixture(scope="module")
def harness(
    tmp_path_factory: pytest.TempPathFactory, llm_server: ScriptedLlmServer
) -> Iterator[HarnessServer]:
    """The module's `harnessdesk serve`, on the scripted LLM."""
    server = HarnessServer(tmp_path_factory.mktemp("harness"), openai_args(llm_server.base_url))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def make_harness(tmp_path: Path) -> Iterator[Callable[..., HarnessServer]]:
    """A server of the test's own: `make_harness(provider_args)` (started)."""
    made: list[HarnessServer] = []

    def make(provider_args: list[str], name: str = "own") -> HarnessServer:
        server = HarnessServer(tmp_path / f"{name}-{len(made)}", provider_args)
        made.append(server)
        server.start()
        return server

    yield make
    for server in made:
        server.stop()


@pytest.fixture(scope="module")
def playwright_driver() -> Iterator[Playwright]:
    """Per module, not per session: the sync API keeps an event loop running in the main
    thread while it lives, which would break every asyncio test that runs after this folder."""
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser(playwright_driver: Playwright) -> Iterator[Browser]:
    need(Path(CHROMIUM).exists(), f"{CHROMIUM} is not installed")
    b = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


@pytest.fixture(scope="module")
def warm_context(browser: Browser) -> Iterator[BrowserContext]:
    """The module's warm context: `page` opens in it (docs/decisions.md, "One warm browser
    context per module")."""
    context = new_context(browser)
    yield context
    context.close()


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
