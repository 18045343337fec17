"""Tool and approval cards as a first-time user reads them (issue 18, items 4 and 5): one card
per call even when the provider reuses call ids, a rejection stated once, `ask_user` as text,
steering shown as a chip under the composer until the agent takes it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.shots import shoot_all
from tests.browser.support import (
    HarnessServer,
    fresh_session,
    send,
    tool_call,
    tool_messages,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def test_reused_call_ids_keep_each_output_under_its_own_card(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    (harness.workdir / "a.txt").write_text("alpha contents\n")
    (harness.workdir / "b.txt").write_text("beta contents\n")
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("call_0", "bash", command="echo first-run")]),
        Reply(tool_calls=[tool_call("call_0", "bash", command="echo second-run")]),
        Reply(
            tool_calls=[
                tool_call("dup", "read_file", path="a.txt"),
                tool_call("dup", "read_file", path="b.txt"),
            ]
        ),
        Reply(text="All read."),
    )
    send(page, "Run both, then read both files")
    approval = page.get_by_test_id("approval-card")
    expect(approval.get_by_test_id("approval-command")).to_contain_text("first-run")
    approval.get_by_test_id("approval-allow-once").click()
    expect(approval.get_by_test_id("approval-command")).to_contain_text("second-run")
    approval.get_by_test_id("approval-reject").click()
    expect(page.get_by_test_id("assistant-text").last).to_have_text("All read.")
    turn_ends(page, 1)
    wait_idle(page)

    cards = page.get_by_test_id("tool-card")
    expect(cards).to_have_count(4)
    first, second, read_a, read_b = (cards.nth(i) for i in range(4))
    expect(first).to_have_attribute("data-status", "done")
    expect(first.get_by_test_id("tool-terminal")).to_contain_text("first-run")
    expect(first.get_by_test_id("tool-result")).to_have_text("first-run")
    expect(second).to_have_attribute("data-status", "rejected")
    expect(second.get_by_test_id("tool-result")).to_have_count(0)
    expect(read_a.get_by_test_id("tool-result")).to_contain_text("alpha contents")
    expect(read_b.get_by_test_id("tool-result")).to_contain_text("beta contents")
    expect(read_a.get_by_test_id("tool-result")).not_to_contain_text("beta")
    # the host gave the second "dup" call an id of its own, so each result pairs with its call
    ids = [m["tool_call_id"] for m in tool_messages(llm.requests[3])]
    assert ids[:2] == ["call_0", "call_0"] and ids[2] == "dup" and ids[3] not in ("dup", "call_0"), ids


def test_a_rejection_is_stated_once_and_ask_user_reads_as_text(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    question = {
        "id": "colour",
        "header": "Colour",
        "question": "Which colour should the button be?",
        "options": [{"label": "red", "description": "bold"}, {"label": "blue"}],
    }
    llm.enqueue(
        Reply(
            text="I will write it.", tool_calls=[tool_call("w1", "write_file", path="x.txt", content="hi\n")]
        ),
        Reply(tool_calls=[tool_call("q1", "ask_user", questions=[question])]),
        Reply(text="Blue it is."),
    )
    send(page, "Write x.txt, then ask me about the colour")
    page.get_by_test_id("approval-card").get_by_test_id("approval-reject").click()
    card = page.get_by_test_id("question-card")
    card.get_by_test_id("question-custom").fill("a calm blue, not navy")
    card.get_by_test_id("question-submit").click()
    turn_ends(page, 1)
    wait_idle(page)

    rejected = page.locator('[data-testid="tool-card"][data-tool-name="write_file"]')
    expect(rejected.get_by_test_id("tool-status")).to_have_text("rejected")
    expect(rejected).not_to_contain_text("did not allow")
    expect(rejected).not_to_contain_text("REJECTED")
    expect(rejected.locator(".tool-reason")).to_have_count(0)
    conversation = page.get_by_test_id("conversation")
    expect(conversation.get_by_text("rejected", exact=False)).to_have_count(1)
    expect(page.get_by_test_id("context-row")).to_have_count(0)

    ask = page.locator('[data-testid="tool-card"][data-tool-name="ask_user"]')
    expect(ask.get_by_test_id("qa-question")).to_have_text("ColourWhich colour should the button be?")
    expect(ask.get_by_test_id("qa-answer")).to_have_text("a calm blue, not navy")
    expect(ask.get_by_test_id("tool-args")).to_have_count(0)
    expect(ask).not_to_contain_text("{")
    expect(ask).not_to_contain_text("The user answered")
    shoot_all(page, "cards")


def test_steering_shows_as_a_chip_until_the_agent_takes_it(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("b1", "bash", command="echo waiting")]),
        Reply(text="Steered: using the new plan."),
    )
    send(page, "Run something")
    approval = page.get_by_test_id("approval-card")
    expect(approval).to_be_visible()  # the turn waits here: steering cannot be taken yet
    box = page.get_by_test_id("composer-input")
    box.fill("Use the new plan instead,\nand keep it short")
    page.get_by_test_id("composer-steer").click()
    expect(box).to_have_value("")
    chip = page.get_by_test_id("steer-chip")
    expect(chip).to_have_count(1)
    expect(chip.get_by_test_id("steer-chip-text")).to_have_text("Use the new plan instead, and keep it short")
    expect(page.get_by_test_id("queue")).to_be_hidden()  # not in the "Waiting" list as well
    expect(page.locator(".msg-user.is-steering")).to_have_count(0)
    shoot_all(page, "steer-chip")

    approval.get_by_test_id("approval-allow-once").click()
    expect(page.locator(".msg-user.is-steering")).to_contain_text("Use the new plan instead")
    expect(chip).to_have_count(0)
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Steered: using the new plan.")
    turn_ends(page, 1)
    wait_idle(page)


def test_a_steering_chip_can_be_taken_back(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("b2", "bash", command="echo hold")]), Reply(text="No steering arrived.")
    )
    send(page, "Run something else")
    approval = page.get_by_test_id("approval-card")
    expect(approval).to_be_visible()
    page.get_by_test_id("composer-input").fill("never mind")
    page.get_by_test_id("composer-steer").click()
    page.get_by_test_id("steer-chip-remove").click()
    expect(page.get_by_test_id("steer-chip")).to_have_count(0)
    approval.get_by_test_id("approval-allow-once").click()
    expect(page.get_by_test_id("assistant-text").last).to_have_text("No steering arrived.")
    turn_ends(page, 1)
    expect(page.locator(".msg-user.is-steering")).to_have_count(0)
    user_texts = [m.get("content") for m in llm.requests[-1]["messages"] if m.get("role") == "user"]
    assert not any("never mind" in str(t) for t in user_texts), user_texts
