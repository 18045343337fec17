"""The host goes away and comes back on the same port: the page says so, then recovers."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    openai_args,
    send,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def expect_reconnecting(page: Page) -> None:
    expect(page.locator("html")).to_have_attribute("data-connection", re.compile(r"^reconnecting"))
    banner = page.get_by_test_id("connection-banner")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("data-state", re.compile(r"^(reconnecting|unreachable)$"))
    expect(banner).to_contain_text("Connection lost")
    expect(banner.get_by_test_id("reconnect-countdown")).to_be_visible()
    expect(banner.get_by_test_id("reconnect-now")).to_be_visible()


def expect_recovered(page: Page) -> None:
    expect(page.locator("html")).to_have_attribute("data-connection", "connected", timeout=20_000)
    expect(page.get_by_test_id("connection-banner")).to_be_hidden()


def test_restart_shows_reconnecting_then_recovers_with_history(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url))
    page = contexts.warm_page(server.url)
    sid = fresh_session(page)
    llm.enqueue(Reply(text="Before the restart."))
    send(page, "Remember this")
    expect(page.get_by_test_id("assistant-text")).to_have_text("Before the restart.")
    turn_ends(page)
    wait_idle(page)

    server.kill()
    expect_reconnecting(page)
    # what the user had stays on screen while the host is away
    expect(page.get_by_test_id("msg-user")).to_have_text("Remember this")
    expect(page.get_by_test_id("assistant-text")).to_have_text("Before the restart.")

    port = server.port
    server.start()
    assert server.port == port
    expect_recovered(page)
    expect(page.get_by_test_id("msg-user")).to_have_text("Remember this")
    expect(page.get_by_test_id("assistant-text")).to_have_text("Before the restart.")
    expect(page.locator(f'[data-testid="session-item"][data-session-id="{sid}"]')).to_have_class(
        re.compile(r"\bis-active\b")
    )

    # the reopened streams carry new work: the token the tab kept from the first launch is still good
    llm.enqueue(Reply(text="After the restart."))
    send(page, "Still there?")
    expect(page.get_by_test_id("assistant-text").last).to_have_text("After the restart.")
    turn_ends(page, 2)
    wait_idle(page)


def test_crash_mid_turn_marks_the_turn_interrupted(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url))
    page = contexts.warm_page(server.url)
    fresh_session(page)
    llm.enqueue(Reply(text="A long answer that will never finish " * 10, chunk_size=6, hang_after=3))
    send(page, "Start something long")
    expect(page.get_by_test_id("assistant-text")).to_contain_text("A long answer")
    expect(page.get_by_test_id("working-indicator")).to_be_visible()

    server.kill()
    expect_reconnecting(page)
    server.start()
    expect_recovered(page)
    end = turn_ends(page).first
    expect(end).to_have_attribute("data-reason", "interrupted")
    expect(end.get_by_test_id("interrupted-mark")).to_be_visible()
    expect(page.get_by_test_id("msg-user")).to_have_text("Start something long")
    wait_idle(page)


def test_a_call_failing_during_the_rebuild_is_retried(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    """The streams are up but listing the sessions fails once (the host blipped): the page must
    not stay without a session list; it rebuilds again."""
    server = make_harness(openai_args(llm.base_url))
    page = contexts.new_page()
    failed: list[str] = []

    def fail_once(route: Route) -> None:
        if not failed:
            failed.append(route.request.url)
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/api/session.list", fail_once)
    page.goto(server.url)
    expect(page.get_by_test_id("empty-state")).to_be_visible(timeout=20_000)
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    assert failed
