"""An editor drives a session over ACP while the app runs; the person sees it in the sidebar,
marked as an editor's, with its conversation (the acp process relays to the running host)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import acp
import pytest
from playwright.sync_api import Page, expect

from tests.acp.support import WAIT, RecordingClient, acp_agent
from tests.browser.support import HarnessServer, shoot, tool_call
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def _editor_turn(harness: HarnessServer, llm: ScriptedLlmServer, project: Path) -> dict[str, Any]:
    """One ACP session and turn (with an approved tool call), on a thread of its own: the sync
    Playwright API keeps this thread's event loop."""
    out: dict[str, Any] = {}

    async def run() -> None:
        client = RecordingClient(answers=["allow_once"])
        async with acp_agent(client, harness.data_dir, llm, project) as (conn, _proc):
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            answer = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[acp.text_block("EDITOR: add a file")]), WAIT
            )
            out.update(sid=sid, stop=answer.stop_reason, asked=len(client.permissions))

    def target() -> None:
        try:
            asyncio.run(run())
        except BaseException as exc:  # reported by the test below
            out["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(WAIT * 2)
    assert "error" not in out, out.get("error")
    return out


def test_an_editor_session_shows_in_the_running_app(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    project = tmp_path / "editor-project"
    project.mkdir()
    llm.enqueue(
        Reply(when="EDITOR", tool_calls=[tool_call("e1", "write_file", path="hello.txt", content="hi\n")]),
        Reply(when="EDITOR", text="Wrote **hello.txt** for the editor."),
    )
    done = _editor_turn(harness, llm, project)
    assert done["stop"] == "end_turn" and done["asked"] == 1
    assert (project / "hello.txt").read_text() == "hi\n"

    row = page.locator(f'[data-testid="session-item"][data-session-id="{done["sid"]}"]')
    expect(row.get_by_test_id("session-editor")).to_have_text("editor")
    row.get_by_test_id("session-open").click(position={"x": 8, "y": 8})  # left of the hover tools
    expect(page.get_by_test_id("msg-user").first).to_contain_text("EDITOR: add a file")
    expect(page.locator('[data-testid="tool-card"][data-tool-name="write_file"]')).to_have_count(1)
    expect(page.get_by_test_id("assistant-text").last).to_contain_text("Wrote hello.txt for the editor.")
    shoot(page, "acp-session-in-the-app")
