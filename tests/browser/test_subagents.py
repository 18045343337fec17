"""Subagents as a user sees them: the `task` card links to the child's conversation, the child
stands under its parent in the sidebar with a live status, a child's approval is asked (and
badged) in the parent, and a child is messaged through its parent (screenshots in
tests/screenshots/)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import HarnessServer, fresh_session, send, shoot, tool_call, turn_ends
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def test_open_a_child_from_its_task_card(page: Page, harness: HarnessServer, llm: ScriptedLlmServer) -> None:
    parent = fresh_session(page)
    llm.enqueue(
        Reply(
            when="PARENT",
            tool_calls=[
                tool_call(
                    "c1", "task", description="Survey the tests", prompt="CHILD-survey: list the test folders"
                )
            ],
        ),
        Reply(when="CHILD-survey", tool_calls=[tool_call("b1", "bash", command="ls tests")]),
        Reply(when="CHILD-survey", text="There are **four** test folders."),
        Reply(when="PARENT", text="The subagent found four test folders."),
    )
    send(page, "PARENT: survey the tests with a subagent")

    # the child's approval is asked in the parent, labelled with the child, and badges the parent
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("pending-subagent")).to_contain_text("Survey the tests")
    parent_row = page.locator(f'[data-testid="session-item"][data-session-id="{parent}"]')
    expect(parent_row.get_by_test_id("session-pending-badge").first).to_have_text("1")
    child_row = parent_row.locator('[data-testid="session-item"][data-origin="subagent"]')
    expect(child_row).to_have_count(1)  # nested under its parent
    expect(child_row.get_by_test_id("session-title")).to_have_text("Survey the tests")
    expect(child_row.get_by_test_id("session-running")).to_be_visible()  # live status
    task_card = page.locator('[data-testid="tool-card"][data-tool-name="task"]')
    expect(task_card.get_by_test_id("task-child")).to_contain_text("Survey the tests")
    shoot(page, "subagent-approval-in-parent")
    card.get_by_test_id("approval-allow-once").click()
    turn_ends(page)
    expect(page.get_by_test_id("assistant-text").last).to_have_text("The subagent found four test folders.")
    expect(task_card.get_by_test_id("tool-result")).to_have_text("There are **four** test folders.")
    expect(child_row.get_by_test_id("session-running")).to_have_count(0)
    expect(child_row.get_by_test_id("session-rename")).to_have_count(0)  # it goes with its parent

    # open the child's conversation from the card
    child = task_card.get_by_test_id("task-open-child").get_attribute("data-session-id")
    task_card.get_by_test_id("task-open-child").click()
    expect(page).to_have_url(re.compile(f"#session={child}$"))
    expect(page.get_by_test_id("session-heading")).to_have_text("Survey the tests")
    expect(page.get_by_test_id("subagent-of")).to_be_visible()
    first = page.get_by_test_id("msg-user").first
    expect(first).to_contain_text("CHILD-survey: list the test folders")
    expect(first.get_by_test_id("from-parent")).to_be_visible()  # the parent's agent wrote it
    expect(page.locator('[data-testid="tool-card"][data-tool-name="bash"]')).to_have_count(1)
    expect(page.get_by_test_id("assistant-text").last).to_contain_text("There are four test folders.")
    expect(page.get_by_test_id("model-picker")).to_be_hidden()  # it runs its parent's choice
    expect(page.get_by_test_id("raw-event")).to_have_count(0)
    shoot(page, "subagent-conversation")

    # a message typed here goes through the parent, with a file attached by `@` (subagent.prompt
    # takes what session.prompt takes); the answer comes back in the child
    (harness.workdir / "survey_notes.txt").write_text("tests/unit and tests/e2e were merged\n")
    llm.enqueue(Reply(when="CHILD-survey", text="Still four."))
    box = page.get_by_test_id("composer-input")
    box.click()
    box.press_sequentially("Count again with @survey_no")
    expect(page.get_by_test_id("finder-item").first).to_have_attribute("data-path", "survey_notes.txt")
    box.press("Enter")  # attaches
    expect(page.get_by_test_id("context-chip")).to_have_count(1)
    box.press("Enter")  # sends
    expect(box).to_have_value("")
    turn_ends(page, 2)
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Still four.")
    expect(page.get_by_test_id("context-chip")).to_have_count(0)
    assert "tests/unit and tests/e2e were merged" in json.dumps(llm.requests[-1]["messages"])

    page.get_by_test_id("subagent-parent-link").click()
    expect(page).to_have_url(re.compile(f"#session={parent}$"))
    expect(page.get_by_test_id("subagent-of")).to_be_hidden()
