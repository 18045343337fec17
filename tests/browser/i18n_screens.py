"""The main screens, walked in one page, for the language tests and their screenshots
(docs/decisions.md, "Languages"): the welcome, a session's preset picker and a shipped preset, a
conversation with tool cards, an approval card waiting with its diff, the slash menu and the help
dialog, the Changes view, the Terminal and Files panes and the file viewer, the permissions
dialog, the MCP panel with a failed server, the revert dialog, Settings, the delete dialog and the
folder browser. `main_screens` drives the page and yields each screen's name once it shows; the
caller checks it (`english_on_screen`) or shoots it (tests/browser/i18n_shots.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from contract.methods import PERMISSION_SET
from tests.browser.support import HarnessServer, ensure_folder, rpc, tool_call
from tests.support.scripted_llm import Reply, ScriptedLlmServer

ALLOWED_WORDS = (
    # product and model names, formats and keys: never translated
    "HarnessDesk", "DeepSeek", "OpenAI", "Ollama", "LM Studio", "llama.cpp", "vLLM", "Jan", "SmolLM2",
    "MCP", "API", "URL", "JSON", "GGUF", "ZIP", "Git", "HEAD", "SHA", "UTF",
    "KiB", "KB", "MB", "GB", "TB", "Esc", "Enter", "Shift", "Tab", "Ctrl", "Alt", "Cmd",
    "English", "token", "stdio", "stderr", "bash", "shell", "MiB", "Claude Code", "Codex", "Qwen", "Meta",
    "SearXNG", "Brave",
    "SSH", "ssh", "Python",
)  # fmt: skip
"""Words a Chinese screen may show in Latin letters."""

ENGLISH_ON_SCREEN = (Path(__file__).parent / "english_on_screen.js").read_text()
"""The in-page check: ([allowed words, foreign strings]) → the offending strings."""


def english_on_screen(page: Page, foreign: tuple[str, ...] = ()) -> list[str]:
    """Visible text, titles, placeholders, aria-labels and alt texts with English words, outside
    what is not ours to translate (`translate="no"`: model output, paths, code, the host's words)
    and the `foreign` strings (what the person typed: a session's title inside a button's label)."""
    return list(page.evaluate(ENGLISH_ON_SCREEN, [list(ALLOWED_WORDS), list(foreign)]))


NOTES = "# Notes\n\n- milk\n- eggs\n"
PROMPT = "Add flour to the notes"
FOREIGN = (PROMPT, "work")
"""What the person wrote (the prompt, which titles the session) and their folder's name."""


def main_screens(page: Page, llm: ScriptedLlmServer, harness: HarnessServer) -> Iterator[str]:
    """Drive `page` (connected, no session open) through the main screens; yields each name."""
    (harness.workdir / "notes.md").write_text(NOTES)
    failing = {"type": "stdio", "command": "/bin/sh", "args": ["-c", "echo cannot start >&2; exit 3"]}
    (harness.data_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"broken": failing}}))
    expect(page.get_by_test_id("empty-state")).to_be_visible()
    yield "welcome"

    ensure_folder(page)
    page.get_by_test_id("new-session").click()
    # a fresh server's first session: under a loaded machine (the full suite) its first history
    # read has taken more than the usual 10 s
    expect(page.get_by_test_id("session-empty")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("preset-option").first).to_be_visible()
    yield "new-session"

    page.get_by_test_id("preset-details").first.click()
    expect(page.get_by_test_id("preset-content")).to_be_visible()
    yield "preset"
    page.get_by_test_id("preset-viewer-close").click()

    sid = str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))
    rpc(page, PERMISSION_SET, {"sessionId": sid, "preset": "workspace-write"})  # every write asks
    edit = {"path": "notes.md", "old_string": "- eggs\n", "new_string": "- eggs\n- flour\n"}
    llm.enqueue(
        Reply(text="Let me look first.", tool_calls=[tool_call("r1", "read_file", path="notes.md")]),
        Reply(tool_calls=[tool_call("e1", "edit_file", **edit)]),
        Reply(tool_calls=[tool_call("b1", "bash", command="wc -l notes.md")]),
        Reply(text="Added **flour** to `notes.md`; it has 5 lines now."),
    )
    box = page.get_by_test_id("composer-input")
    box.fill(PROMPT)
    box.press("Enter")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-diff")).to_be_visible()
    yield "approval"

    card.get_by_test_id("approval-allow-once").click()
    expect(page.locator("[data-testid=approval-card][data-tool-name=bash]")).to_be_visible()
    page.locator("[data-testid=approval-card][data-tool-name=bash]").get_by_test_id(
        "approval-allow-once"
    ).click()
    expect(page.get_by_test_id("turn-end")).to_have_count(1)
    expect(page.get_by_test_id("working-indicator")).to_be_hidden()
    yield "conversation"

    box.fill("/")
    expect(page.get_by_test_id("slash-menu")).to_be_visible()
    yield "slash"
    box.fill("/help")
    box.press("Enter")
    expect(page.get_by_test_id("help-dialog")).to_be_visible()
    yield "help"
    page.get_by_test_id("help-close").click()

    page.get_by_test_id("changes-toggle").click()
    expect(page.get_by_test_id("changes-file")).to_have_count(1)
    yield "changes"
    page.get_by_test_id("changes-close").click()

    page.get_by_test_id("terminal-toggle").click()  # the person's own shell (its output is theirs)
    expect(page.get_by_test_id("terminal-tab")).to_have_count(1)
    expect(page.locator("[data-testid=terminal-view]:not([hidden]) .xterm-rows")).to_be_visible()
    page.get_by_test_id("terminal-find").click()
    yield "terminal"
    page.get_by_test_id("terminal-hide").click()

    page.get_by_test_id("files-toggle").click()
    expect(page.locator("[data-testid=files-entry][data-path='notes.md']")).to_be_visible()
    yield "files"
    page.locator("[data-testid=files-entry][data-path='notes.md']").click()
    expect(page.get_by_test_id("file-viewer-meta")).to_be_visible()
    yield "file-viewer"
    page.get_by_test_id("files-hide").click()

    page.get_by_test_id("permissions-toggle").click()
    expect(page.get_by_test_id("permissions-dialog")).to_be_visible()
    yield "permissions"
    page.get_by_test_id("permissions-close").click()

    page.get_by_test_id("mcp-toggle").click()
    server = page.get_by_test_id("mcp-server")
    expect(server).to_have_attribute("data-state", "failed")
    yield "mcp"
    page.get_by_test_id("mcp-toggle").click()

    page.get_by_test_id("revert-turn").click()
    expect(page.get_by_test_id("revert-dialog")).to_be_visible()
    yield "revert"
    page.get_by_test_id("revert-dialog-cancel").click()

    page.get_by_test_id("open-settings").click()
    expect(page.get_by_test_id("settings-ns-ui-appearance")).to_be_visible()
    expect(page.get_by_test_id("model-library")).to_be_visible()
    yield "settings"
    page.get_by_test_id("settings-close").click()

    item = page.locator(f'[data-testid="session-item"][data-session-id="{sid}"]')
    item.hover()
    item.get_by_test_id("session-delete").click()
    expect(page.get_by_test_id("delete-dialog")).to_be_visible()
    yield "delete"
    page.get_by_test_id("delete-dialog-cancel").click()

    page.get_by_test_id("open-folder").click()
    expect(page.get_by_test_id("folder-dialog")).to_be_visible()
    expect(page.get_by_test_id("folder-crumb").first).to_be_visible()
    yield "folder"
    page.get_by_test_id("folder-cancel").click()


def check_screens(page: Page, llm: ScriptedLlmServer, harness: HarnessServer) -> dict[str, Any]:
    """Each screen's untranslated strings (empty lists when the screen is all Chinese)."""
    return {name: english_on_screen(page, FOREIGN) for name in main_screens(page, llm, harness)}
