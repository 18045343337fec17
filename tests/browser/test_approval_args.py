"""Approval cards show the call's arguments readably, not as escaped JSON."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.support import HarnessServer, fresh_session, send, tool_call, turn_ends, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def text_content(locator: Locator) -> str:
    """The exact text (Playwright's to_have_text collapses whitespace)."""
    return str(locator.evaluate("(el) => el.textContent"))


def test_write_file_shows_path_and_real_lines_collapsed_when_long(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    content = "".join(f'line {i}: say "hi"\tand tab\n' for i in range(1, 31))
    llm.enqueue(
        Reply(tool_calls=[tool_call("call-long", "write_file", path="docs/long.txt", content=content)]),
        Reply(text="Not written."),
    )
    send(page, "Write a long file")
    card = page.get_by_test_id("approval-card")
    args = card.get_by_test_id("approval-args")
    expect(args.get_by_test_id("approval-path")).to_have_text("docs/long.txt")
    body = args.get_by_test_id("approval-content")
    assert text_content(body) == content
    assert "\\" not in text_content(args), text_content(args)
    expect(args.get_by_test_id("approval-json")).to_have_count(0)

    # 30 lines: collapsed to a few with a toggle
    toggle = args.get_by_test_id("approval-args-toggle")
    expect(toggle).to_have_text("Show all 30 lines")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(body).to_have_class(re.compile(r"\bis-collapsed\b"))
    collapsed = body.bounding_box()
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(toggle).to_have_text("Show less")
    expect(body).not_to_have_class(re.compile(r"\bis-collapsed\b"))
    expanded = body.bounding_box()
    assert collapsed and expanded and expanded["height"] > collapsed["height"] * 1.5, (collapsed, expanded)

    card.get_by_test_id("approval-reject").click()
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Not written.")
    turn_ends(page)
    assert not (harness.workdir / "docs" / "long.txt").exists()


def test_edit_file_shows_a_diff_and_bash_a_terminal(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    edit = tool_call(
        "call-e", "edit_file", path="notes.txt", old_string="alpha\nbeta\n", new_string='alpha\nBETA "b"\n'
    )
    bash = tool_call("call-b", "bash", command='echo "hi" &&\n  ls -la', timeout=30)
    llm.enqueue(Reply(tool_calls=[edit]), Reply(tool_calls=[bash]), Reply(text="Nothing done."))
    send(page, "Edit the notes, then list the files")

    card = page.get_by_test_id("approval-card")
    expect(card).to_have_attribute("data-tool-name", "edit_file")
    args = card.get_by_test_id("approval-args")
    diff = args.get_by_test_id("approval-diff")
    expect(diff.locator(".diff-del")).to_have_text(["-beta"])
    expect(diff.locator(".diff-add")).to_have_text(['+BETA "b"'])
    expect(diff.locator(".diff-ctx")).to_have_text([" alpha"])
    expect(args).to_contain_text("notes.txt")
    expect(args.get_by_test_id("approval-json")).to_have_count(0)
    expect(args.get_by_test_id("approval-args-toggle")).to_have_count(0)
    card.get_by_test_id("approval-reject").click()

    expect(card).to_have_attribute("data-tool-name", "bash")
    command = card.get_by_test_id("approval-command")
    expect(command).to_have_class(re.compile(r"\bterminal\b"))
    assert text_content(command) == '$ echo "hi" &&\n  ls -la'
    # arguments the terminal does not show follow as JSON
    expect(card.get_by_test_id("approval-json")).to_have_text(re.compile(r'"timeout": 30'))
    card.get_by_test_id("approval-reject").click()
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Nothing done.")
    turn_ends(page)
    wait_idle(page)


def test_other_tools_show_pretty_json_with_strings_verbatim(page: Page) -> None:
    """No built-in tool besides these asks for approval: feed the card a request directly."""
    sid = fresh_session(page)
    frame = {
        "type": "approval/requested",
        "sessionId": sid,
        "approvalId": "ap-x",
        "toolName": "web_fetch",
        "reason": "web_fetch needs your approval",
        "arguments": json.dumps(
            {"url": 'https://example.com/a?b="c"', "body": "first line\nsecond line", "retries": 2}
        ),
    }
    page.evaluate(
        "(payload) => window.harnessdesk.app.manager.handleMux({type: 'server-request', rpcId: 'fake-1', "
        "method: payload.type, payload})",
        frame,
    )
    card = page.get_by_test_id("approval-card")
    expect(card).to_have_attribute("data-tool-name", "web_fetch")
    json_block = card.get_by_test_id("approval-json")
    assert text_content(json_block) == (
        '{\n  "url": "https://example.com/a?b="c"",\n  "body":\n    first line\n    second line\n'
        '  "retries": 2\n}'
    )
    expect(json_block.locator(".hljs-attr").first).to_have_text('"url"')
    page.evaluate(
        "(sessionId) => window.harnessdesk.app.manager.handleMux({type: 'server-request', rpcId: 'fake-2', "
        "method: 'approval/resolved', payload: {type: 'approval/resolved', sessionId, approvalId: 'ap-x', "
        "outcome: 'rejected'}})",
        sid,
    )
    expect(card).to_have_count(0)
