"""Two windows on one session: both see the approval card; one answers; it goes away in both."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    send,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("answering", ["first", "second"])
def test_approval_card_resolves_in_both_windows(
    contexts: Contexts, harness: HarnessServer, llm: ScriptedLlmServer, answering: str
) -> None:
    first = contexts.new_page(harness.url)
    sid = fresh_session(first)
    name = f"both-{answering}.txt"
    llm.enqueue(
        Reply(tool_calls=[tool_call("call-m", "write_file", path=name, content="from two windows\n")]),
        Reply(text="Written."),
    )
    send(first, "Write a file while two windows watch")
    expect(first.get_by_test_id("approval-card")).to_be_visible()

    # the second window opens the session from the sidebar and gets the pending request replayed
    second = contexts.new_page(harness.url)
    row = second.locator(f'[data-testid="session-item"][data-session-id="{sid}"]')
    expect(row.get_by_test_id("session-pending-badge")).to_have_text("1")
    row.get_by_test_id("session-open").click(position={"x": 12, "y": 10})  # on its title (hover tools)
    cards = [p.get_by_test_id("approval-card") for p in (first, second)]
    for card in cards:
        expect(card).to_have_count(1)
        expect(card.get_by_test_id("approval-tool")).to_have_text("write_file")
        expect(card.get_by_test_id("approval-args")).to_contain_text(name)
    assert cards[0].get_attribute("data-rpc-id") == cards[1].get_attribute("data-rpc-id")

    answerer = first if answering == "first" else second
    answerer.get_by_test_id("approval-allow-once").click()
    for p, card in zip((first, second), cards, strict=True):
        expect(card).to_have_count(0)
        expect(p.get_by_test_id("pending-cards")).to_be_hidden()
        expect(p.get_by_test_id("assistant-text").last).to_have_text("Written.")
        turn_ends(p)
        wait_idle(p)
        expect(p.locator('[data-testid="tool-card"][data-call-id="call-m"]')).to_have_attribute(
            "data-status", "done"
        )
    expect(row.get_by_test_id("session-pending-badge")).to_have_count(0)
    assert (harness.workdir / name).read_text() == "from two windows\n"
