"""An editor drives a session over ACP while the window runs: `harnessdesk acp` relays to the
window's in-process host (no socket), and the window lists the session, marked "editor"."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import acp
import pytest

from tests.acp.support import WAIT, RecordingClient, acp_agent
from tests.desktop.support import AppFactory, gui_test
from tests.support.scripted_llm import Reply, ScriptedLlmServer

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]

ROW = (
    'document.querySelector(\'[data-testid="session-item"][data-session-id=%s]'
    ' [data-testid="session-editor"]\')'
)


async def _editor_turn(data_dir: Path, llm: ScriptedLlmServer, project: Path) -> tuple[str, str, int]:
    client = RecordingClient(answers=["allow_once"])
    async with acp_agent(client, data_dir, llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        prompt = [acp.text_block("EDITOR: write a file")]
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt), WAIT)
        return sid, answer.stop_reason, len(client.permissions)


@gui_test
def test_an_editor_session_runs_in_the_open_window(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    scripted_llm.reset()
    scripted_llm.enqueue(
        Reply(tool_calls=[("w1", "write_file", json.dumps({"path": "from-editor.txt", "content": "hi\n"}))]),
        Reply(text="Wrote it."),
    )
    provider = [
        "--provider",
        "openai-compatible",
        "--base-url",
        scripted_llm.base_url,
        "--model",
        "scripted-small",
    ]
    app = apps.launch("--webui", str(ROOT / "webui"), "--real-host", *provider)
    page = app.page()
    project = tmp_path / "project"
    project.mkdir()
    sid, stop, asked = asyncio.run(_editor_turn(app.data_dir, scripted_llm, project))
    assert (stop, asked) == ("end_turn", 1)
    assert (project / "from-editor.txt").read_text() == "hi\n"
    deadline = time.monotonic() + 30
    while not page.evaluate(f"!!{ROW % json.dumps(sid)}"):
        assert time.monotonic() < deadline, "the window never listed the editor's session"
        time.sleep(0.2)
    assert app.close_window(60) == 0
