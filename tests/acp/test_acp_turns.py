"""`harnessdesk acp` driven by the ACP SDK's client side: turns, tools, approvals, cancel."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import acp
import pytest

from tests.acp.support import WAIT, RecordingClient, acp_agent
from tests.support.scripted_llm import Reply, ScriptedLlmServer


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("first line\n")
    return folder


async def test_initialize_and_a_streamed_turn(tmp_path: Path, project: Path, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="Hello from the scripted model, in several pieces.", chunk_size=5, delay=0.03))
    client = RecordingClient()
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        init = conn.init
        assert init.protocol_version == 1
        assert init.agent_capabilities.load_session is True
        assert init.agent_capabilities.prompt_capabilities.image is True
        assert init.agent_info.name == "harnessdesk"
        created = await conn.new_session(cwd=str(project), mcp_servers=[])
        sid = created.session_id
        assert {m.id for m in created.modes.available_modes} >= {"read-only", "workspace-write"}
        assert {o.id for o in created.config_options} == {"mode", "model"}
        await client.wait_for(lambda: "available_commands_update" in client.kinds(sid))
        commands = next(u for s, u in client.updates if u.session_update == "available_commands_update")
        assert "compact" in {c.name for c in commands.available_commands}

        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), WAIT)
        assert answer.stop_reason == "end_turn"
        chunks = [u for s, u in client.updates if u.session_update == "agent_message_chunk"]
        assert len(chunks) > 1  # streamed deltas (paced: no coalescing), not one committed message
        assert client.text(session_id=sid) == "Hello from the scripted model, in several pieces."
        assert llm.requests[-1]["messages"][-1]["content"] == "hi"


async def test_a_tool_call_asks_permission_once_then_always(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(
        Reply(tool_calls=[("c1", "bash", '{"command": "mkdir -p one"}')]),
        Reply(text="made one"),
        Reply(tool_calls=[("c2", "bash", '{"command": "mkdir -p two"}')]),
        Reply(text="made two"),
        Reply(tool_calls=[("c3", "bash", '{"command": "mkdir -p three"}')]),
        Reply(text="made three"),
    )
    client = RecordingClient(answers=["allow_once", "allow_always"])
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        first = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("one")]), WAIT)
        assert first.stop_reason == "end_turn"
        assert (project / "one").is_dir()
        starts = [u for s, u in client.updates if u.session_update == "tool_call"]
        assert (
            starts[0].tool_call_id == "c1" and starts[0].kind == "execute" and starts[0].status == "pending"
        )
        assert client.permissions[0].tool_call_id == "c1"
        updates = [u for s, u in client.updates if u.session_update == "tool_call_update"]
        assert [u.status for u in updates if u.tool_call_id == "c1"] == ["in_progress", "completed"]

        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("two")]), WAIT)
        assert (project / "two").is_dir()
        asked = len(client.permissions)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("three")]), WAIT)
        assert (project / "three").is_dir()
        assert len(client.permissions) == asked  # "Always allow" covered `mkdir -p …`: not asked again


async def test_a_rejected_call_fails_and_writes_nothing(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(
        Reply(tool_calls=[("c1", "write_file", '{"path": "notes.txt", "content": "replaced\\n"}')]),
        Reply(text="could not write"),
    )
    client = RecordingClient(answers=["reject_once"])
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("write")]), WAIT)
        start = next(u for s, u in client.updates if u.session_update == "tool_call")
        assert start.kind == "edit" and start.locations[0].path == str(project / "notes.txt")
        done = [
            u for s, u in client.updates if u.session_update == "tool_call_update" and u.tool_call_id == "c1"
        ]
        assert done[-1].status == "failed"
        assert (project / "notes.txt").read_text() == "first line\n"


async def test_an_edit_carries_its_diff(tmp_path: Path, project: Path, llm: ScriptedLlmServer) -> None:
    edit = '{"path": "notes.txt", "old_string": "first line", "new_string": "second line"}'
    llm.enqueue(Reply(tool_calls=[("c1", "edit_file", edit)]), Reply(text="edited"))
    client = RecordingClient(answers=["allow_once"])
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("edit")]), WAIT)
        assert (project / "notes.txt").read_text() == "second line\n"
        done = [
            u for s, u in client.updates if u.session_update == "tool_call_update" and u.status == "completed"
        ]
        diffs = [c for c in done[-1].content if c.type == "diff"]
        assert diffs[0].path == str(project / "notes.txt")
        assert (diffs[0].old_text, diffs[0].new_text) == ("first line", "second line")


async def test_a_client_without_approvals_rejects_and_does_not_hang(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(tool_calls=[("c1", "bash", '{"command": "touch marker"}')]), Reply(text="no"))
    client = RecordingClient(fail_permissions=True)
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("go")]), WAIT)
        assert answer.stop_reason == "end_turn"
        assert not (project / "marker").exists()
        tool_results = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
        assert "no approval channel" in tool_results[-1]["content"]


async def test_cancel_mid_stream(tmp_path: Path, project: Path, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="slow " * 400, chunk_size=5, delay=0.05))
    client = RecordingClient()
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[acp.text_block("talk")]))
        await client.wait_for(lambda: client.text(session_id=sid) != "")
        await conn.cancel(session_id=sid)
        answer = await asyncio.wait_for(running, WAIT)
        assert answer.stop_reason == "cancelled"
        assert len(client.text(session_id=sid)) < len("slow " * 400)


async def test_bad_requests_are_json_rpc_errors(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="slow " * 200, chunk_size=5, delay=0.05))
    client = RecordingClient()
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, proc):
        with pytest.raises(acp.RequestError) as relative:
            await conn.new_session(cwd="relative/dir", mcp_servers=[])
        assert relative.value.code == -32602
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[acp.text_block("one")]))
        await client.wait_for(lambda: client.text(session_id=sid) != "")
        with pytest.raises(acp.RequestError) as busy:
            await conn.prompt(session_id=sid, prompt=[acp.text_block("two")])
        assert busy.value.code == -32602 and "busy" in str(busy.value.data)
        with pytest.raises(acp.RequestError):
            await conn.prompt(session_id="no-such-session", prompt=[acp.text_block("x")])
        await conn.cancel(session_id=sid)
        await asyncio.wait_for(running, WAIT)
        assert proc.returncode is None  # still serving


async def test_todos_become_a_plan_and_the_title_an_info_update(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    todos = json.dumps(
        {
            "todos": [
                {"content": "Read the code", "status": "completed"},
                {"content": "Fix it", "status": "in_progress"},
            ]
        }
    )
    llm.enqueue(Reply(tool_calls=[("t1", "todo_write", todos)]), Reply(text="planned"))
    client = RecordingClient()
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Plan the fix")]), WAIT)
        plan = next(u for s, u in client.updates if u.session_update == "plan")
        assert [(e.content, e.status) for e in plan.entries] == [
            ("Read the code", "completed"),
            ("Fix it", "in_progress"),
        ]
        start = next(u for s, u in client.updates if u.session_update == "tool_call")
        assert start.kind == "think"
        await client.wait_for(lambda: "session_info_update" in client.kinds(sid))
        info = next(u for s, u in client.updates if u.session_update == "session_info_update")
        assert info.title == "Plan the fix"
