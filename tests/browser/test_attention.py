"""Many sessions at once (docs/decisions.md, "Parallel sessions and attention"): every row says
what its session asks of the person — running, waiting for a slot, needs you (with a count),
done and not read yet, idle — from the host's state; "Needs me" keeps only those waiting for an
answer; a session that finishes off screen posts a Notification named after it, whose click opens
it; with one slot a second turn waits in line, says so, and Stop takes it out of line."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from contract.methods import SESSION_LIST, SETTINGS_UPDATE
from tests.browser.support import (
    Contexts,
    HarnessServer,
    new_session,
    rpc,
    send,
    session_item,
    shoot,
    tool_call,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

RECORD_NOTIFICATIONS = """() => {
  window.posted = [];
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.posted.push({title, body: options?.body ?? "", notification: this});
    }
  };
}"""


@pytest.fixture
def granted(
    contexts: Contexts, harness: HarnessServer, llm: ScriptedLlmServer, full_browser: Browser
) -> Iterator[Page]:
    """A page whose context granted notifications (as a person who allowed them once), recording
    each Notification the page constructs. Running turns are stopped at the end. (In the full
    Chromium: its headless shell denies notifications whatever a context grants.)"""
    page = contexts.new_page(harness.url, browser=full_browser, permissions=["notifications"])
    page.evaluate(RECORD_NOTIFICATIONS)
    yield page
    page.evaluate(
        """async () => {
            const {client, app} = window.harnessdesk;
            const running = [...app.manager.summaries.values()].filter((s) => s.running);
            const stop = (s) => client.call("session.cancel", {sessionId: s.sessionId, clearQueue: true});
            await Promise.all(running.map(stop));
        }"""
    )


def test_rows_show_each_sessions_state_and_needs_me_keeps_the_waiting_ones(
    granted: Page, llm: ScriptedLlmServer
) -> None:
    page = granted
    finish = threading.Event()
    llm.enqueue(
        Reply(tool_calls=[tool_call("c-a", "write_file", path="attention.txt", content="x\n")], when="Alpha"),
        Reply(text="beta answer " * 20, chunk_size=4, delay=0.2, hurry=finish, when="Beta"),
        Reply(text="gamma goes on " * 30, chunk_size=4, hang_after=2, when="Gamma"),
    )
    a = new_session(page)
    send(page, "Alpha writes a file")
    expect(page.get_by_test_id("approval-card")).to_be_visible()
    b = new_session(page)
    send(page, "Beta task")
    expect(session_item(page, b)).to_have_attribute("data-attention", "running")
    c = new_session(page)
    send(page, "Gamma keeps working")
    expect(page.get_by_test_id("assistant-text").last).to_contain_text("gamma")
    finish.set()  # Beta ends while Gamma is on screen: done, not read

    expect(session_item(page, a)).to_have_attribute("data-attention", "needs-you")
    expect(session_item(page, a).get_by_test_id("session-pending-badge")).to_have_text("1")
    expect(session_item(page, b)).to_have_attribute("data-attention", "done-unread")
    expect(session_item(page, b).get_by_test_id("session-attention")).to_have_attribute(
        "aria-label", "Finished, not read yet"
    )
    expect(session_item(page, c)).to_have_attribute("data-attention", "running")
    shoot(page, "attention-rows")
    listed = {s["sessionId"]: s.get("attention") for s in rpc(page, SESSION_LIST, {})["items"]}
    assert listed[a] == {"state": "needs-you", "pending": 1}
    assert listed[b] == {"state": "done-unread", "pending": 0}
    assert listed[c] == {"state": "running", "pending": 0}

    # Beta finished off screen: a Notification named after it, whose click opens it
    page.wait_for_function("() => window.posted.some((p) => p.title === 'Beta task')")
    body = page.evaluate("() => window.posted.find((p) => p.title === 'Beta task').body")
    assert body == "Finished its turn"

    needs_me = page.get_by_test_id("needs-me-filter")
    needs_me.click()
    expect(needs_me).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("session-item")).to_have_count(1)
    expect(session_item(page, a)).to_be_visible()
    needs_me.click()
    expect(session_item(page, b)).to_be_visible()
    expect(session_item(page, c)).to_be_visible()

    page.evaluate(
        "() => window.posted.find((p) => p.title === 'Beta task')"
        ".notification.dispatchEvent(new Event('click'))"
    )
    page.wait_for_function("(b) => window.harnessdesk.app.manager.activeId === b", arg=b)
    expect(session_item(page, b)).to_have_attribute("data-attention", "idle")  # read now, everywhere
    assert "attention" not in next(s for s in rpc(page, SESSION_LIST, {})["items"] if s["sessionId"] == b)


def test_with_one_slot_the_second_turn_waits_in_line_and_stop_takes_it_out(
    page: Page, llm: ScriptedLlmServer
) -> None:
    rpc(page, SETTINGS_UPDATE, {"ns": "sessions", "patch": {"maxRunningTurns": 1}})
    try:
        llm.enqueue(Reply(text="first holds the slot " * 30, chunk_size=4, hang_after=2, when="Holder"))
        first = new_session(page)
        send(page, "Holder runs")
        expect(page.get_by_test_id("assistant-text").last).to_contain_text("first")
        second = new_session(page)
        send(page, "Waiter waits")
        row = session_item(page, second)
        expect(row).to_have_attribute("data-attention", "waiting")
        expect(row.get_by_test_id("session-attention")).to_have_attribute(
            "aria-label", "Waiting for a free slot (0 ahead)"
        )
        indicator = page.get_by_test_id("working-indicator")
        expect(indicator).to_have_attribute("data-state", "waiting-slot")
        expect(indicator).to_have_text("Waiting for a free slot (0 ahead)")
        page.get_by_test_id("composer-stop").click()
        expect(row).to_have_attribute("data-attention", "idle")
        expect(indicator).to_be_hidden()
        assert not any("Waiter" in str(r["messages"]) for r in llm.requests)  # it never ran
        expect(session_item(page, first)).to_have_attribute("data-attention", "running")
    finally:
        rpc(page, SETTINGS_UPDATE, {"ns": "sessions", "patch": {"maxRunningTurns": 4}})
