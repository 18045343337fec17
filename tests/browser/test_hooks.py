"""Hook records in the conversation (issue 29, item 4; docs/decisions.md, "Hook rows"): a real
hook script in the person's hooks file denies the model's `rm` and lets `echo` through; both
firings show as compact rows with the event, the command, the decision, exit code, reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import HarnessServer, fresh_session, send, snap, tool_call, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

GUARD = """import json, sys
d = json.load(sys.stdin)
if "rm " in d["tool_input"].get("command", ""):
    print("rm is not allowed here: use the trash", file=sys.stderr)
    sys.exit(2)
"""


def test_a_hook_that_denies_a_bash_call_shows_as_a_row(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    script = harness.root / "hook-scripts" / "deny_rm.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(GUARD, encoding="utf-8")
    command = f"{sys.executable} {script}"
    doc = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}}
    (harness.data_dir / "hooks.json").write_text(json.dumps(doc), encoding="utf-8")
    try:
        fresh_session(page)
        llm.enqueue(
            Reply(tool_calls=[tool_call("c1", "bash", command="rm -rf build")]),
            Reply(tool_calls=[tool_call("c2", "bash", command="echo kept")]),
            Reply(text="Kept the build folder."),
        )
        send(page, "clean up the build folder")
        page.get_by_test_id("approval-card").get_by_test_id("approval-allow-once").click()
        expect(page.get_by_test_id("assistant-text").last).to_have_text("Kept the build folder.")
        wait_idle(page)

        rows = page.get_by_test_id("hook-row")
        expect(rows).to_have_count(2)
        denied, passed = rows.nth(0), rows.nth(1)
        expect(denied).to_have_attribute("data-decision", "block")
        expect(denied.get_by_test_id("hook-point")).to_have_text("PreToolUse hook")
        expect(denied.get_by_test_id("hook-command")).to_have_text(command)
        expect(denied.get_by_test_id("hook-outcome")).to_contain_text("block · exit 2 · ")
        expect(denied.get_by_test_id("hook-reason")).to_have_text("rm is not allowed here: use the trash")
        expect(passed).to_have_attribute("data-decision", "pass")
        expect(passed.get_by_test_id("hook-outcome")).to_contain_text("pass · exit 0 · ")
        # the denied call never ran: its card carries the hook's reason
        expect(page.get_by_test_id("tool-card").first).to_contain_text("rm is not allowed here")
        denied.locator("summary").click()
        expect(denied.locator(".hook-reason")).to_be_visible()
        snap(page, "/tmp/hooks-rows.png")

        # a reload draws the same rows from the history entries
        page.reload()
        expect(page.locator("html")).to_have_attribute("data-connection", "connected")
        expect(page.get_by_test_id("hook-row")).to_have_count(2)
        expect(page.get_by_test_id("hook-row").first.get_by_test_id("hook-reason")).to_have_text(
            "rm is not allowed here: use the trash"
        )
    finally:
        (harness.data_dir / "hooks.json").unlink(missing_ok=True)


def test_a_project_hook_file_runs_only_after_trust_and_approval_and_asks_again_when_changed(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer, tmp_path: Path
) -> None:
    repo = tmp_path / "cloned-with-hooks"
    marker = repo / "HOOK-MARKER"
    hooks = repo / ".harnessdesk" / "hooks.json"
    hooks.parent.mkdir(parents=True)

    def write(command: str) -> None:
        doc = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}}
        hooks.write_text(json.dumps(doc), encoding="utf-8")

    def turn(text: str) -> None:
        llm.enqueue(Reply(text=f"answered: {text}"))
        send(page, text)
        expect(page.get_by_test_id("assistant-text").last).to_have_text(f"answered: {text}")
        wait_idle(page)

    first = f"touch {marker}"
    write(first)
    page.evaluate(
        """async (path) => {
            const {client, app} = window.harnessdesk;
            const w = await client.call("workspace.create", {path});
            const s = await client.call("session.create", {workspaceId: w.value.workspace.workspaceId});
            await app.open(s.value.sessionId);
        }""",
        str(repo),
    )
    turn("before trust")
    assert not marker.exists()
    toggle = page.get_by_test_id("mcp-toggle")
    expect(toggle).to_be_visible()
    toggle.click()
    panel = page.get_by_test_id("mcp-panel")
    prompt = panel.get_by_test_id("mcp-trust-prompt")
    expect(prompt.get_by_test_id("hook-file-command")).to_have_text(first)
    row = panel.get_by_test_id("hook-file")
    expect(row.get_by_test_id("hook-file-state")).to_have_text("needs trust")
    snap(page, "/tmp/hooks-trust-prompt.png")
    prompt.get_by_test_id("mcp-trust").click()
    expect(row.get_by_test_id("hook-file-state")).to_have_text("needs approval")
    turn("trusted, not approved")
    assert not marker.exists()
    row.get_by_test_id("hook-file-approve").click()
    expect(row.get_by_test_id("hook-file-state")).to_have_text("approved")
    turn("approved")
    assert marker.exists()

    second = repo / "CHANGED-MARKER"
    write(f"touch {second}")
    turn("changed")
    assert not second.exists()
    toggle.click()
    expect(panel).to_be_hidden()
    toggle.click()  # opening the panel reads the files again
    expect(row.get_by_test_id("hook-file-state")).to_have_text("needs approval")
    expect(row.get_by_test_id("hook-file-command")).to_have_text(f"touch {second}")
    snap(page, "/tmp/hooks-changed.png")
    row.get_by_test_id("hook-file-approve").click()
    expect(row.get_by_test_id("hook-file-state")).to_have_text("approved")
    turn("approved again")
    assert second.exists()


def test_claude_code_hooks_are_turned_on_in_settings_and_then_listed_for_approval(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer, tmp_path: Path
) -> None:
    repo = tmp_path / "claude-repo"
    marker = repo / "CLAUDE-HOOK-RAN"
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    doc = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
    settings.write_text(json.dumps(doc), encoding="utf-8")
    page.evaluate(
        """async (path) => {
            const {client, app} = window.harnessdesk;
            const w = await client.call("workspace.create", {path});
            const workspaceId = w.value.workspace.workspaceId;
            await client.call("workspace.setTrust", {workspaceId, trusted: true});
            const s = await client.call("session.create", {workspaceId});
            await app.open(s.value.sessionId);
        }""",
        str(repo),
    )
    page.get_by_test_id("open-settings").click()
    dialog = page.get_by_test_id("settings-dialog")
    section = dialog.get_by_test_id("settings-ns-hooks")
    box = section.get_by_test_id("setting-hooks-claudeCode")
    expect(box).not_to_be_checked()  # off by default
    box.check()
    section.get_by_test_id("settings-save-hooks").click()
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    expect(
        dialog.get_by_test_id("settings-ns-hooks").get_by_test_id("setting-hooks-claudeCode")
    ).to_be_checked()
    snap(page, "/tmp/hooks-settings.png")
    dialog.get_by_test_id("settings-close").click()
    try:
        toggle = page.get_by_test_id("mcp-toggle")
        expect(toggle).to_be_visible()
        toggle.click()
        row = page.get_by_test_id("mcp-panel").get_by_test_id("hook-file")
        expect(row.get_by_test_id("hook-file-state")).to_have_text("needs approval")
        expect(row.get_by_test_id("hook-file-command")).to_have_text(f"touch {marker}")
        assert not marker.exists()
        row.get_by_test_id("hook-file-approve").click()
        expect(row.get_by_test_id("hook-file-state")).to_have_text("approved")
        llm.enqueue(Reply(text="ran"))
        send(page, "go")
        expect(page.get_by_test_id("assistant-text").last).to_have_text("ran")
        wait_idle(page)
        assert marker.exists()
    finally:
        off = {"ns": "hooks", "patch": {"claudeCode": False}}
        page.evaluate("(p) => window.harnessdesk.client.call('settings.update', p)", off)
