"""A day's work from the keyboard (issue 46, item 7 and deliverable 3): a Y pressed before the
approval card has the focus does not kill the card's keys (the letters piled up in the message
box), `?` opens the shortcuts sheet when not typing, and a dialog gives the focus back to what
opened it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import HarnessServer, fresh_session, send, tool_call, turn_ends, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

FOCUSED = "() => document.activeElement?.dataset?.testid ?? document.activeElement?.id ?? null"


def test_a_y_pressed_before_the_card_has_the_focus_leaves_its_keys_alive(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("y1", "write_file", path="early.txt", content="yes\n")]),
        Reply(text="Written."),
    )
    send(page, "Write early.txt")
    card = page.get_by_test_id("approval-card")
    expect(card).to_be_visible()
    box = page.get_by_test_id("composer-input")
    box.focus()
    page.keyboard.press("y")  # too early: the card has not the focus yet, the letter is text
    expect(box).to_have_value("y")
    # the stray letter is no draft: the card still takes the focus once the box is quiet
    page.wait_for_function(f"() => ({FOCUSED})() === 'approval-card'")
    expect(card).to_have_attribute("data-armed", "true")
    # once it has had the focus, the card does not take it back from the page itself (Tab past
    # the page's end leaves it there)
    page.evaluate("() => document.activeElement.blur()")
    page.wait_for_timeout(600)  # two of the card's looks for a focus it could take
    assert page.evaluate("() => document.activeElement === document.body")
    card.focus()
    page.keyboard.press("y")  # answers the card, and the letters meant for it leave the box
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Written.")
    turn_ends(page, 1)
    assert (harness.workdir / "early.txt").read_text() == "yes\n"
    expect(box).to_have_value("")
    wait_idle(page)


def test_a_word_typed_while_a_card_waits_stays_the_persons_text(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(Reply(tool_calls=[tool_call("y2", "bash", command="echo hi")]), Reply(text="Ran."))
    send(page, "Run it")
    card = page.get_by_test_id("approval-card")
    expect(card).to_be_visible()
    box = page.get_by_test_id("composer-input")
    box.focus()
    page.keyboard.type("any")  # a word, not an answer: it stays, and the card leaves the focus be
    page.wait_for_timeout(1200)  # longer than a card waits for a quiet box (approvalTiming.armMs)
    assert page.evaluate(FOCUSED) == "composer-input"
    expect(box).to_have_value("any")
    card.get_by_test_id("approval-allow-once").click()
    turn_ends(page, 1)
    expect(box).to_have_value("any")
    box.fill("")
    wait_idle(page)
