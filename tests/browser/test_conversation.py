"""The conversation as a user sees it: streaming, approvals, questions, stop, tool cards."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

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

STREAMED = (
    "Streaming works one small piece at a time, so the reader sees the answer grow "
    "while the model is still writing it; this sentence is long enough to need many deltas."
)


def test_prompt_streams_token_by_token(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(Reply(text=STREAMED, chunk_size=3, delay=0.03))
    send(page, "Tell me something slowly")

    expect(page.get_by_test_id("msg-user")).to_have_text("Tell me something slowly")
    text = page.get_by_test_id("msg-assistant").get_by_test_id("assistant-text")
    ends = page.get_by_test_id("turn-end")
    expect(text).to_be_visible()
    expect(page.get_by_test_id("working-indicator")).to_be_visible()
    samples: list[int] = []
    deadline = time.monotonic() + 15
    while ends.count() == 0 and time.monotonic() < deadline:
        samples.append(len(text.inner_text()))
        time.sleep(0.1)
    growing = [n for n in samples if 0 < n < len(STREAMED)]
    assert len(set(growing)) >= 3, f"expected the text to grow over several samples, got {samples}"
    assert growing == sorted(growing), f"the streamed text shrank: {samples}"

    expect(text).to_have_text(STREAMED)
    expect(turn_ends(page).first).to_have_attribute("data-reason", "completed")
    expect(page.get_by_test_id("turn-usage")).to_have_text(re.compile(r"^\d[\d,]* in · \d[\d,]* out$"))
    wait_idle(page)


def test_write_file_approval_allow_once(page: Page, llm: ScriptedLlmServer, harness: HarnessServer) -> None:
    fresh_session(page)
    target = harness.workdir / "allowed.txt"
    target.unlink(missing_ok=True)
    call = tool_call("call-w1", "write_file", path="allowed.txt", content="written by the agent\n")
    llm.enqueue(Reply(tool_calls=[call]), Reply(text="The file is written."))
    send(page, "Write allowed.txt please")

    card = page.get_by_test_id("approval-card")
    expect(card).to_be_visible()
    expect(card).to_have_attribute("data-tool-name", "write_file")
    expect(card.get_by_test_id("approval-tool")).to_have_text("write_file")
    args = card.get_by_test_id("approval-args")
    expect(args.get_by_test_id("approval-path")).to_have_text("allowed.txt")
    expect(args.get_by_test_id("approval-content")).to_have_text("written by the agent")
    content = args.get_by_test_id("approval-content").evaluate("(el) => el.textContent")
    assert content == "written by the agent\n", content
    tool = page.locator('[data-testid="tool-card"][data-call-id="call-w1"]')
    expect(tool).to_have_attribute("data-status", "awaiting-approval")
    # the reason is shown once, on the approval card (the tool card only says "needs approval")
    why = r"^write_file needs your approval\.$"
    expect(card.get_by_test_id("approval-reason")).to_have_text(re.compile(why))
    scope = r"^Always allow write_file anywhere in /.+ in this session$"  # named before the click
    expect(card.get_by_test_id("approval-scope")).to_have_text(re.compile(scope))
    expect(page.get_by_text("write_file needs your approval")).to_have_count(1)
    expect(tool.locator(".tool-reason")).to_have_count(0)
    expect(tool.get_by_test_id("tool-status")).to_have_text("needs approval")
    assert not target.exists()

    card.get_by_test_id("approval-allow-once").click()
    expect(card).to_have_count(0)
    expect(tool).to_have_attribute("data-status", "done")
    expect(tool.get_by_test_id("tool-result")).to_contain_text("Created allowed.txt")
    expect(tool.locator(".tool-reason")).to_have_text(re.compile(r"— allowed once$"))
    expect(page.get_by_test_id("assistant-text").last).to_have_text("The file is written.")
    turn_ends(page)
    assert target.read_text() == "written by the agent\n"
    result = tool_messages(llm.requests[-1])
    assert result and "Created allowed.txt" in result[-1]["content"]


def test_write_file_approval_rejected(page: Page, llm: ScriptedLlmServer, harness: HarnessServer) -> None:
    fresh_session(page)
    target = harness.workdir / "rejected.txt"
    call = tool_call("call-w2", "write_file", path="rejected.txt", content="never\n")
    llm.enqueue(Reply(tool_calls=[call]), Reply(text="Understood, I will not write it."))
    send(page, "Write rejected.txt please")

    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-tool")).to_have_text("write_file")
    card.get_by_test_id("approval-reject").click()
    expect(card).to_have_count(0)
    tool = page.locator('[data-testid="tool-card"][data-call-id="call-w2"]')
    expect(tool).to_have_attribute("data-status", "rejected")
    # stated once, by the status chip (docs/decisions.md, "UX pass")
    expect(tool.get_by_test_id("tool-status")).to_have_text("rejected")
    expect(tool.get_by_test_id("tool-result")).to_have_count(0)
    expect(tool.locator(".tool-reason")).to_have_count(0)
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Understood, I will not write it.")
    turn_ends(page)
    assert not target.exists()
    sent = tool_messages(llm.requests[-1])
    assert sent and sent[-1]["tool_call_id"] == "call-w2"
    assert re.search(r"reject|denied|not allowed", sent[-1]["content"], re.I), sent[-1]


def test_ask_user_questions_answered(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    questions = [
        {
            "id": "lang",
            "question": "Which language?",
            "options": [{"label": "Python"}, {"label": "Rust"}],
        },
        {
            "id": "targets",
            "question": "Which platforms?",
            "options": [{"label": "Linux"}, {"label": "macOS"}, {"label": "Windows"}],
            "multiSelect": True,
        },
        {"id": "name", "question": "What should the project be called?"},
    ]
    llm.enqueue(
        Reply(tool_calls=[tool_call("call-q1", "ask_user", questions=questions)]),
        Reply(text="Thanks, noted."),
    )
    send(page, "Start a project, ask me what you need")

    card = page.get_by_test_id("question-card")
    expect(card).to_be_visible()
    expect(card.get_by_test_id("question")).to_have_count(3)
    submit = card.get_by_test_id("question-submit")
    expect(submit).to_be_disabled()

    lang = card.locator('[data-testid="question"][data-question-id="lang"]')
    expect(lang).to_contain_text("Which language?")
    lang.locator('[data-testid="question-option"][data-label="Rust"]').click()
    targets = card.locator('[data-testid="question"][data-question-id="targets"]')
    targets.locator('[data-testid="question-option"][data-label="Linux"]').click()
    targets.locator('[data-testid="question-option"][data-label="Windows"]').click()
    expect(targets.get_by_test_id("question-option-input")).to_have_count(3)
    expect(targets.locator('[data-label="Linux"] input')).to_be_checked()
    expect(targets.locator('[data-label="macOS"] input')).not_to_be_checked()
    name = card.locator('[data-testid="question"][data-question-id="name"]')
    name.get_by_test_id("question-custom").fill("moonbeam")
    expect(submit).to_be_enabled()
    submit.click()

    expect(card).to_have_count(0)
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Thanks, noted.")
    turn_ends(page)
    tool = page.locator('[data-testid="tool-card"][data-call-id="call-q1"]')
    expect(tool).to_have_attribute("data-status", "done")
    sent = tool_messages(llm.requests[-1])
    assert sent and sent[-1]["tool_call_id"] == "call-q1"
    content = sent[-1]["content"]
    assert "Which language?\n  → Rust" in content, content
    assert "Which platforms?\n  → Linux; Windows" in content, content
    assert "What should the project be called?\n  → moonbeam" in content, content


def test_question_option_with_custom_text(page: Page, llm: ScriptedLlmServer) -> None:
    """Free text typed beside the options of a single-select question goes along with the choice."""
    fresh_session(page)
    questions = [{"id": "db", "question": "Which database?", "options": [{"label": "SQLite"}]}]
    llm.enqueue(Reply(tool_calls=[tool_call("call-q2", "ask_user", questions=questions)]), Reply(text="Ok."))
    send(page, "Pick a database with me")
    card = page.get_by_test_id("question-card")
    card.get_by_test_id("question-custom").fill("DuckDB instead")
    card.get_by_test_id("question-submit").click()
    expect(card).to_have_count(0)
    turn_ends(page)
    content = tool_messages(llm.requests[-1])[-1]["content"]
    assert "Which database?\n  → DuckDB instead" in content, content


@pytest.mark.parametrize("how", ["button", "escape"])
def test_slow_turn_is_stopped(page: Page, llm: ScriptedLlmServer, how: str) -> None:
    fresh_session(page)
    llm.enqueue(Reply(text="I am thinking about this at great length " * 20, chunk_size=8, hang_after=4))
    send(page, "Take your time")
    expect(page.get_by_test_id("assistant-text")).to_contain_text("I am thinking")
    stop = page.get_by_test_id("composer-stop")
    expect(stop).to_be_visible()
    expect(page.get_by_test_id("session-running-badge")).to_be_visible()
    if how == "button":
        stop.click()
    else:
        page.get_by_test_id("composer-input").focus()
        page.keyboard.press("Escape")

    end = turn_ends(page).first
    expect(end).to_have_attribute("data-reason", "aborted")
    expect(end).to_contain_text("Stopped")
    wait_idle(page)
    item = page.locator(".session-item.is-active")
    expect(item).not_to_have_class(re.compile(r"\bis-running\b"))
    expect(item.get_by_test_id("session-running")).to_have_count(0)
    assert llm.wait_for_disconnects(1), "the model request was not abandoned"
    # the partial text stays visible
    expect(page.get_by_test_id("assistant-text")).to_contain_text("I am thinking")


def test_tool_cards_terminal_diff_and_todos(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    (harness.workdir / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    todos = [
        {"content": "Look at the notes", "status": "completed"},
        {"content": "Fix the second line", "status": "in_progress"},
        {"content": "Report back", "status": "pending"},
    ]
    llm.enqueue(
        Reply(tool_calls=[tool_call("call-t", "todo_write", todos=todos)]),
        Reply(tool_calls=[tool_call("call-b", "bash", command="echo hello-from-bash && echo oops >&2")]),
        Reply(
            tool_calls=[
                tool_call("call-e", "edit_file", path="notes.txt", old_string="beta", new_string="BETA")
            ]
        ),
        Reply(text="All done."),
    )
    send(page, "Fix my notes")

    # todo_write needs no approval: the panel toggle appears with the count
    toggle = page.get_by_test_id("todo-toggle")
    expect(toggle).to_have_text("Todos 1/3")
    approval = page.get_by_test_id("approval-card")
    expect(approval).to_have_attribute("data-tool-name", "bash")
    approval.get_by_test_id("approval-allow-once").click()
    expect(approval).to_have_attribute("data-tool-name", "edit_file")
    approval.get_by_test_id("approval-allow-once").click()
    expect(approval).to_have_count(0)
    expect(page.get_by_test_id("assistant-text").last).to_have_text("All done.")
    turn_ends(page)

    bash = page.locator('[data-testid="tool-card"][data-tool-name="bash"]')
    expect(bash).to_have_attribute("data-status", "done")
    terminal = bash.get_by_test_id("tool-terminal")
    expect(terminal).to_be_visible()
    expect(terminal).to_contain_text("$ echo hello-from-bash && echo oops >&2")
    expect(terminal.get_by_test_id("tool-result")).to_contain_text("hello-from-bash")
    expect(terminal.get_by_test_id("tool-result")).to_contain_text("oops")

    edit = page.locator('[data-testid="tool-card"][data-tool-name="edit_file"]')
    expect(edit).to_have_attribute("data-status", "done")
    diff = edit.get_by_test_id("tool-diff")
    expect(diff).to_be_visible()
    # the host's diff against the file: line numbers and the lines around the change
    expect(diff.locator(".diff-del .diff-text")).to_have_text(["beta"])
    expect(diff.locator(".diff-add .diff-text")).to_have_text(["BETA"])
    expect(diff.locator(".diff-ctx .diff-text")).to_have_text(["alpha", "gamma"])
    assert (harness.workdir / "notes.txt").read_text() == "alpha\nBETA\ngamma\n"

    panel = page.get_by_test_id("todo-panel")
    expect(panel).to_be_hidden()
    toggle.click()
    expect(panel).to_be_visible()
    items = panel.get_by_test_id("todo-item")
    expect(items).to_have_count(3)
    expect(items.nth(1)).to_have_attribute("data-status", "in_progress")
    expect(items.nth(1)).to_contain_text("Fix the second line")
    statuses = [items.nth(i).get_attribute("data-status") for i in range(3)]
    assert statuses == ["completed", "in_progress", "pending"]
    todo_card = page.locator('[data-testid="tool-card"][data-tool-name="todo_write"]')
    expect(todo_card).to_have_attribute("data-status", "done")
