"""ACP sessions are ordinary sessions: loaded after a restart, listed, moded, in the same store."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from pathlib import Path

import acp
import pytest
from acp.schema import McpServerStdio, SseMcpServer

from tests.acp.support import WAIT, RecordingClient, acp_agent, acp_command
from tests.api.support import cli_env, start_serve
from tests.support.scripted_llm import Reply, ScriptedLlmServer

# A 1x1 PNG.
PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def _conversation(client: RecordingClient, sid: str) -> list[tuple[str, str]]:
    """(kind, text) of the message and thought chunks, consecutive chunks of a kind joined."""
    out: list[tuple[str, str]] = []
    for s, u in client.updates:
        if s != sid or u.session_update not in (
            "user_message_chunk",
            "agent_message_chunk",
            "agent_thought_chunk",
        ):
            continue
        if out and out[-1][0] == u.session_update:
            out[-1] = (u.session_update, out[-1][1] + u.content.text)
        else:
            out.append((u.session_update, u.content.text))
    return out


async def test_load_after_a_restart_replays_the_conversation(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    data = tmp_path / "data"
    llm.enqueue(
        Reply(reasoning="thinking it over", text="first answer"),
        Reply(tool_calls=[("c1", "list_dir", "{}")]),
        Reply(text="second answer"),
    )
    first = RecordingClient()
    async with acp_agent(first, data, llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("question one")]), WAIT)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("question two")]), WAIT)
    assert _conversation(first, sid)[0] == ("agent_thought_chunk", "thinking it over")

    second = RecordingClient()
    async with acp_agent(second, data, llm, project) as (conn, _proc):
        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [sid]
        assert listed.sessions[0].title
        loaded = await asyncio.wait_for(
            conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[]), WAIT
        )
        assert loaded.modes.current_mode_id == "workspace-write"
        replayed = _conversation(second, sid)
        assert replayed == [
            ("user_message_chunk", "question one"),
            ("agent_thought_chunk", "thinking it over"),
            ("agent_message_chunk", "first answer"),
            ("user_message_chunk", "question two"),
            ("agent_message_chunk", "second answer"),
        ]
        tools = [u for s, u in second.updates if u.session_update in ("tool_call", "tool_call_update")]
        assert [(u.session_update, u.status) for u in tools] == [
            ("tool_call", "pending"),
            ("tool_call_update", "completed"),
        ]
        # the loaded session goes on where it was
        llm.enqueue(Reply(text="third answer"))
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("three")]), WAIT)
        assert answer.stop_reason == "end_turn"
        assert [m["content"] for m in llm.requests[-1]["messages"] if m["role"] == "user"][-2:] == [
            "question two",
            "three",
        ]
        with pytest.raises(acp.RequestError):
            await conn.load_session(cwd=str(project), session_id="s-nope", mcp_servers=[])
        with pytest.raises(acp.RequestError):
            await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])


async def test_a_mode_switch_is_the_permission_switch(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(
        Reply(tool_calls=[("c1", "write_file", '{"path": "a.txt", "content": "x"}')]),
        Reply(text="refused"),
    )
    client = RecordingClient(answers=["allow_once"])
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="read-only")
        await client.wait_for(lambda: "current_mode_update" in client.kinds(sid))
        mode = next(u for s, u in client.updates if u.session_update == "current_mode_update")
        assert mode.current_mode_id == "read-only"
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("write")]), WAIT)
        assert not (project / "a.txt").exists()
        done = [
            u for s, u in client.updates if u.session_update == "tool_call_update" and u.tool_call_id == "c1"
        ]
        assert done[-1].status == "failed"
        assert client.permissions == []  # refused by the mode, never asked
        options = await conn.set_config_option(config_id="mode", session_id=sid, value="workspace-write")
        assert next(o for o in options.config_options if o.id == "mode").current_value == "workspace-write"
        model = await conn.set_config_option(
            config_id="model", session_id=sid, value="openai-compatible:scripted-large"
        )
        chosen = next(o for o in model.config_options if o.id == "model")
        assert chosen.current_value == "openai-compatible:scripted-large"
        llm.enqueue(Reply(text="from the large one"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), WAIT)
        assert llm.requests[-1]["model"] == "scripted-large"
        with pytest.raises(acp.RequestError):
            await conn.set_session_mode(session_id=sid, mode_id="no-such-mode")


async def test_images_and_resources_reach_the_model(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="a pixel"))
    client = RecordingClient()
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        prompt = [
            acp.text_block("what is this?"),
            acp.image_block(PIXEL, "image/png"),
            acp.resource_link_block("spec.md", "file:///tmp/spec.md"),
            acp.resource_block(acp.embedded_text_resource("file:///tmp/notes.md", "the notes")),
        ]
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt), WAIT)
        content = llm.requests[-1]["messages"][-1]["content"]
        text = " ".join(p.get("text", "") for p in content if p["type"] == "text")
        assert "what is this?" in text and 'uri="file:///tmp/spec.md"' in text and "the notes" in text
        assert any(p["type"] == "image_url" for p in content)
        with pytest.raises(acp.RequestError):
            await conn.prompt(session_id=sid, prompt=[acp.audio_block("AAAA", "audio/wav")])


async def test_a_running_instance_owns_the_store(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    """With `serve` running, `acp` relays to it: the session is in its list while the editor
    drives it, marked as an editor's, and stays after the editor disconnects."""
    data = tmp_path / "data"
    served = start_serve(
        data, "--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "scripted-small"
    )
    try:
        llm.enqueue(Reply(text="relayed answer", chunk_size=3, delay=0.01))
        client = RecordingClient()
        async with acp_agent(client, data, llm, project) as (conn, _proc):
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), WAIT)
            assert answer.stop_reason == "end_turn"
            assert client.text(session_id=sid) == "relayed answer"
            rows = _served_sessions(served.base_url, served.token)
            assert rows[sid]["origin"] == "acp" and rows[sid]["running"] is False
        rows = _served_sessions(served.base_url, served.token)
        assert sid in rows  # the editor went away; the session stays
    finally:
        assert served.stop() == 0


def _served_sessions(base_url: str, token: str) -> dict[str, dict[str, object]]:
    import httpx

    body = {
        "type": "client-request",
        "rpcId": "00000000-0000-4000-8000-000000000001",
        "method": "session.list",
    }
    response = httpx.post(
        f"{base_url}/api/session.list",
        json={**body, "payload": {}},
        headers={"authorization": f"Bearer {token}", "origin": base_url},
        timeout=30,
    )
    return {r["sessionId"]: r for r in response.json()["result"]["value"]["items"]}


def test_stdout_carries_frames_only_and_bad_frames_get_errors(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    lines = [
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"nonsense": True}}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "no/such/method", "params": {}}),
    ]
    done = subprocess.run(
        acp_command(tmp_path / "data", llm),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=WAIT,
    )
    frames = [json.loads(line) for line in done.stdout.splitlines()]  # every stdout line is JSON
    by_id = {f.get("id"): f for f in frames}
    assert by_id[1]["result"]["protocolVersion"] == 1
    assert by_id[2]["error"]["code"] == -32602
    assert by_id[3]["error"]["code"] == -32601
    assert any(f.get("error", {}).get("code") == -32700 for f in frames)  # the unparsable line
    assert done.returncode == 0


async def test_mcp_servers_the_editor_passes_become_tools(
    tmp_path: Path, project: Path, llm: ScriptedLlmServer
) -> None:
    """A stdio server from `session/new` (the real `mcp-server-time`) gives the model its tools,
    called through the same approval as any tool."""
    server = Path(sys.executable).parent / "mcp-server-time"
    llm.enqueue(
        Reply(tool_calls=[("m1", "mcp__time__get_current_time", '{"timezone": "UTC"}')]),
        Reply(text="it is now"),
    )
    client = RecordingClient(answers=["allow_once"])
    async with acp_agent(client, tmp_path / "data", llm, project) as (conn, _proc):
        assert conn.init.agent_capabilities.mcp_capabilities.http is True
        spec = McpServerStdio(name="time", command=str(server), args=[], env=[])
        sid = (
            await asyncio.wait_for(conn.new_session(cwd=str(project), mcp_servers=[spec]), WAIT)
        ).session_id
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("time?")]), WAIT)
        assert answer.stop_reason == "end_turn"
        offered = {t["function"]["name"] for t in llm.requests[0]["tools"]}
        assert "mcp__time__get_current_time" in offered
        assert client.permissions[0].tool_call_id == "m1"
        done = [
            u for s, u in client.updates if u.session_update == "tool_call_update" and u.tool_call_id == "m1"
        ]
        assert done[-1].status == "completed" and "UTC" in done[-1].raw_output
        with pytest.raises(acp.RequestError):
            sse = SseMcpServer(type="sse", name="old", url="http://127.0.0.1:9/sse", headers=[])
            await conn.new_session(cwd=str(project), mcp_servers=[sse])
