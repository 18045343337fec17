"""The keyboard as a first-time user tries it (issue 18, item 6): approval hotkeys shown on the
buttons and a new approval card taking the focus (never from someone typing), ArrowUp recalling
the last message, and "Edit and resend" forking before a message with its text in the box."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.shots import shoot_all
from tests.browser.support import HarnessServer, fresh_session, send, tool_call, turn_ends, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

FOCUSED = "() => document.activeElement?.dataset?.testid ?? document.activeElement?.id ?? null"


def focused(page: Page) -> str | None:
    return page.evaluate(FOCUSED)


def test_approval_hotkeys_and_focus(page: Page, llm: ScriptedLlmServer, harness: HarnessServer) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("k1", "bash", command="echo one")]),
        Reply(tool_calls=[tool_call("k2", "bash", command="echo two")]),
        Reply(tool_calls=[tool_call("k3", "write_file", path="keys.txt", content="typed\n")]),
        Reply(text="Finished."),
    )
    send(page, "Run the commands")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-command")).to_contain_text("echo one")
    expect(card.get_by_test_id("approval-allow-once")).to_have_text("Allow onceY")
    expect(card.get_by_test_id("approval-allow-always")).to_have_text("Allow alwaysA")
    expect(card.get_by_test_id("approval-reject")).to_have_text("RejectN")
    page.wait_for_function(f"() => ({FOCUSED})() === 'approval-card'")  # the new card took the focus
    expect(card).to_have_attribute("data-armed", "true")  # on screen for a moment: bare keys answer
    shoot_all(page, "approval-keys", blur=False)
    page.keyboard.press("y")  # allow once
    expect(card.get_by_test_id("approval-command")).to_contain_text("echo two")
    page.wait_for_function(f"() => ({FOCUSED})() === 'approval-card'")  # the next card too

    # someone typing keeps the focus: their letters never answer the card
    box = page.get_by_test_id("composer-input")
    box.click()
    box.type("no thanks")
    card.get_by_test_id("approval-allow-once").click()
    expect(card).to_have_attribute("data-tool-name", "write_file")
    assert focused(page) == "composer-input"
    page.keyboard.type("n")
    expect(box).to_have_value("no thanksn")
    expect(card).to_have_attribute("data-tool-name", "write_file")
    card.locator(".card-head").click()
    expect(card).to_have_attribute("data-armed", "true")
    page.keyboard.press("n")  # reject
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Finished.")
    turn_ends(page, 1)
    assert not (harness.workdir / "keys.txt").exists()
    tools = page.get_by_test_id("tool-card")
    expect(tools.nth(0).get_by_test_id("tool-result")).to_have_text("one")
    expect(tools.nth(1).get_by_test_id("tool-result")).to_have_text("two")
    expect(tools.nth(2)).to_have_attribute("data-status", "rejected")
    assert focused(page) in ("composer-input", None)
    expect(box).to_have_value("no thanksn")
    box.fill("")
    wait_idle(page)


def test_arrow_up_recalls_what_was_sent(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    send(page, "first message")
    turn_ends(page, 1)
    send(page, "second message\nwith two lines")
    turn_ends(page, 2)
    box = page.get_by_test_id("composer-input")
    box.focus()
    box.press("ArrowUp")
    expect(box).to_have_value("second message\nwith two lines")
    box.press("ArrowUp")  # inside a multi-line recall the caret moves first
    expect(box).to_have_value("second message\nwith two lines")
    box.press("Control+Home")
    box.press("ArrowUp")
    expect(box).to_have_value("first message")
    box.press("ArrowDown")
    expect(box).to_have_value("second message\nwith two lines")
    box.press("ArrowDown")
    expect(box).to_have_value("")
    box.fill("typed")
    box.press("ArrowUp")
    expect(box).to_have_value("typed")


def test_edit_and_resend_forks_before_the_message(page: Page, llm: ScriptedLlmServer) -> None:
    parent = fresh_session(page)
    llm.enqueue(Reply(text="Answer one."), Reply(text="Answer two."))
    send(page, "the first question")
    turn_ends(page, 1)
    send(page, "the second question, with a typo")
    turn_ends(page, 2)
    wait_idle(page)
    second = page.get_by_test_id("msg-user").nth(1)
    second.hover()
    expect(second.get_by_test_id("edit-resend")).to_be_visible()
    shoot_all(page, "edit-resend")
    second.hover()
    second.get_by_test_id("edit-resend").click()
    page.wait_for_function("(p) => window.harnessdesk.app.manager.activeId !== p", arg=parent)
    box = page.get_by_test_id("composer-input")
    expect(box).to_have_value("the second question, with a typo")
    expect(box).to_be_focused()
    expect(page.get_by_test_id("msg-user")).to_have_count(1)
    expect(page.get_by_test_id("msg-user")).to_have_text("the first question")
    child = page.evaluate("() => window.harnessdesk.app.manager.activeId")
    summary = page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id)", child)
    assert summary["parentSessionId"] == parent, summary
    llm.enqueue(Reply(text="Answer two, fixed."))
    box.fill("the second question, fixed")
    box.press("Enter")
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Answer two, fixed.")
    expect(page.get_by_test_id("msg-user")).to_have_count(2)
    wait_idle(page)

    # the first message has no turn before it: a new session in the same folder
    page.get_by_test_id("msg-user").first.hover()
    page.get_by_test_id("msg-user").first.get_by_test_id("edit-resend").click()
    page.wait_for_function("(c) => window.harnessdesk.app.manager.activeId !== c", arg=child)
    expect(box).to_have_value("the first question")
    expect(page.get_by_test_id("session-empty")).to_be_visible()
