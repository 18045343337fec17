"""Issue 18's end-to-end run, as a person would: choose a folder, ask for a change to a file that
is already there, see the diff, approve, revert the turn, see the file restored. The model is the
scripted OpenAI-compatible server on loopback; everything else (serve, the store, the tools, the
files, Chromium) is real. Screenshots: tests/screenshots/journey-<step>.png."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import (
    Contexts,
    HarnessServer,
    openai_args,
    send,
    shoot,
    tool_call,
    tool_messages,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

ORIGINAL = 'def greet(name):\n    return "Hello " + name\n\n\nprint(greet("world"))\n'
CHANGED = (
    'def greet(name: str) -> str:\n    return f"Hello, {name}! Nice to see you."\n\n\nprint(greet("world"))\n'
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """~/code/greeter with greet.py in it (the served host's home is a temporary folder)."""
    home = tmp_path / "home"
    folder = home / "code" / "greeter"
    folder.mkdir(parents=True)
    (folder / "greet.py").write_text(ORIGINAL)
    monkeypatch.setenv("HOME", str(home))
    return Path(os.path.realpath(folder))


def write_call(call_id: str, content: str) -> tuple[str, str, str]:
    return tool_call(call_id, "write_file", path="greet.py", content=content)


def shoot_step(page: Page, step: str) -> None:
    shoot(page, f"journey-{step}")


def test_choose_a_folder_change_a_file_see_the_diff_approve_and_revert(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer, project: Path
) -> None:
    server = make_harness(openai_args(llm.base_url), "journey")
    page = contexts.warm_page(server.url)

    # choose a folder: Open folder… → ~/code/greeter → Open this folder
    page.get_by_test_id("open-folder").click()
    dialog = page.get_by_test_id("folder-dialog")
    for name in ("code", "greeter"):
        dialog.get_by_test_id("folder-entry").filter(has_text=name).click()
        expect(dialog.get_by_test_id("folder-crumb").last).to_have_text(name)
    dialog.get_by_test_id("folder-open").click()
    expect(dialog).to_be_hidden()
    page.wait_for_function("() => window.harnessdesk.app.manager.activeId")
    sid = page.evaluate("() => window.harnessdesk.app.manager.activeId")
    assert page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id).cwd", sid) == str(project)

    # ask for a change to the existing file: the agent reads it, then rewrites it
    llm.enqueue(
        Reply(tool_calls=[tool_call("r1", "read_file", path="greet.py")]),
        Reply(text="Adding type hints and a warmer greeting.", tool_calls=[write_call("w1", CHANGED)]),
        Reply(text="Done: greet() has type hints and says hello more warmly."),
    )
    send(page, "Make the greeting in greet.py friendlier and add type hints")

    # see the diff against what is there (not the whole file as new)
    card = page.get_by_test_id("approval-card")
    diff = card.get_by_test_id("approval-diff")
    expect(diff.get_by_test_id("diff-file")).to_have_text("greet.py")
    expect(diff.locator(".diff-del .diff-text")).to_have_text(
        ["def greet(name):", '    return "Hello " + name']
    )
    expect(diff.locator(".diff-add .diff-text")).to_have_text(
        ["def greet(name: str) -> str:", '    return f"Hello, {name}! Nice to see you."']
    )
    expect(diff.locator(".diff-ctx .diff-text").last).to_have_text('print(greet("world"))')
    shoot_step(page, "1-approval")
    assert (project / "greet.py").read_text() == ORIGINAL  # nothing written before the approval

    # approve: the file changes, the tool card keeps the diff
    card.get_by_test_id("approval-allow-once").click()
    ends = turn_ends(page)
    wait_idle(page)
    assert (project / "greet.py").read_text() == CHANGED
    tool = page.get_by_test_id("tool-card").filter(has_text="write_file")
    expect(tool.get_by_test_id("tool-diff").locator(".diff-add")).to_have_count(2)
    assert '"Hello " + name' in tool_messages(llm.requests[1])[0]["content"]  # it read the file first
    shoot_step(page, "2-approved")

    # revert the turn: the file is restored, and the conversation says what was put back
    ends.last.get_by_test_id("revert-turn").click()
    page.get_by_test_id("revert-dialog").get_by_test_id("revert-confirm").click()
    restored = page.get_by_test_id("restored-row")
    expect(restored.locator("li")).to_have_text(["greet.py — restored"])
    assert (project / "greet.py").read_text() == ORIGINAL
    shoot_step(page, "3-reverted")
    page.reload()
    expect(page.get_by_test_id("restored-row").locator("li")).to_have_text(["greet.py — restored"])
    expect(page.get_by_test_id("turn-files")).to_contain_text("Reverted: 1 file put back")
