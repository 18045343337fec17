"""While the agent waits for the user, the UI says so (not "Working…") and highlights the card."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import fresh_session, send, tool_call, turn_ends, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

WAITING = re.compile(r"\bis-waiting\b")


def test_waiting_for_approval_then_answer_then_working(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    question = [{"id": "go", "question": "Go on?", "options": [{"label": "Yes"}, {"label": "No"}]}]
    llm.enqueue(
        Reply(tool_calls=[tool_call("call-w", "write_file", path="waiting.txt", content="x\n")]),
        Reply(tool_calls=[tool_call("call-q", "ask_user", questions=question)]),
        Reply(text="Still thinking about it " * 10, chunk_size=6, hang_after=4),
    )
    send(page, "Write a file, then ask me")
    indicator = page.get_by_test_id("working-indicator")

    approval = page.get_by_test_id("approval-card")
    expect(approval).to_be_visible()
    expect(indicator).to_be_visible()
    expect(indicator).to_have_text("Waiting for your approval")
    expect(indicator).to_have_attribute("data-state", "waiting-approval")
    expect(approval).to_have_class(WAITING)
    approval.get_by_test_id("approval-allow-once").click()
    expect(approval).to_have_count(0)

    card = page.get_by_test_id("question-card")
    expect(card).to_be_visible()
    expect(indicator).to_have_text("Waiting for your answer")
    expect(indicator).to_have_attribute("data-state", "waiting-question")
    expect(card).to_have_class(WAITING)
    card.locator('[data-label="Yes"]').click()
    card.get_by_test_id("question-submit").click()
    expect(card).to_have_count(0)

    # answered: the agent is working again
    expect(page.get_by_test_id("assistant-text").last).to_contain_text("Still thinking")
    expect(indicator).to_be_visible()
    expect(indicator).to_have_text("Working…")
    expect(indicator).to_have_attribute("data-state", "working")
    page.get_by_test_id("composer-stop").click()
    expect(turn_ends(page).first).to_have_attribute("data-reason", "aborted")
    wait_idle(page)
