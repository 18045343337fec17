"""User MCP servers (the data folder's `mcp.json`) end to end: discovery, the model calling a
tool with the same approval as a writing tool, results and status (docs/decisions.md, "MCP
servers")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contract.methods import MCP_LIST, SESSION_CANCEL
from tests.api.conftest import Host
from tests.api.support import event, ftype, ok, prompt
from tests.api.test_subagents import task
from tests.mcp.conftest import BIN, git_init, time_server
from tests.support.scripted_llm import Reply, ScriptedLlmServer

WAIT = 60.0


def call(call_id: str, name: str, args: dict[str, Any]) -> Reply:
    return Reply(tool_calls=[(call_id, name, json.dumps(args))])


async def test_the_agent_calls_a_user_server_tool_after_approval(
    host: Host, llm: ScriptedLlmServer, user_servers: Any
) -> None:
    user_servers({"time": time_server()})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    llm.enqueue(call("c1", "mcp__time__get_current_time", {"timezone": "UTC"}), Reply(text="done"))
    await prompt(client, sid, "what time is it")
    rpc_id, asked = await mux.next(ftype("approval/requested", sid), within=WAIT)
    assert asked.tool_name == "mcp__time__get_current_time"
    assert "read-only" in (asked.reason or "")  # the hint changes the wording, never skips the ask
    answer = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-once"}
    assert (await client.respond(rpc_id, {"ok": True, "value": answer})).accepted
    _, result = await mux.next(event("tool/result", sid), within=WAIT)
    text = result.event.data["message"]["content"][0]["content"]
    assert json.loads(text)["timezone"] == "UTC", text
    assert result.event.data.get("error") is None
    await mux.next(event("turn/end", sid), within=WAIT)
    offered = [t["function"]["name"] for t in llm.requests[0]["tools"]]
    assert "mcp__time__get_current_time" in offered and "mcp__time__convert_time" in offered
    listed = await ok(client, MCP_LIST, {"sessionId": sid})
    (server,) = listed.servers
    assert (server.name, server.scope, server.transport, server.state) == ("time", "user", "stdio", "ready")
    assert {t.name for t in server.tools} >= {"mcp__time__get_current_time"}
    assert all(t.read_only_hint for t in server.tools)


async def test_allow_always_covers_one_git_tool_not_its_neighbours(
    host: Host, llm: ScriptedLlmServer, user_servers: Any, carrier: str
) -> None:
    repo = git_init(host.workdir)
    user_servers({"git": {"command": str(BIN / "mcp-server-git"), "args": ["--repository", str(repo)]}})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    status = call("c1", "mcp__git__git_status", {"repo_path": str(repo)})
    llm.enqueue(status, Reply(text="one"))
    await prompt(client, sid, "status")
    rpc_id, asked = await mux.next(ftype("approval/requested", sid), within=WAIT)
    answer = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-always"}
    await client.respond(rpc_id, {"ok": True, "value": answer})
    _, first = await mux.next(event("tool/result", sid), within=WAIT)
    assert "branch" in first.event.data["message"]["content"][0]["content"].lower()
    await mux.next(event("turn/end", sid), within=WAIT)
    # the same tool again: no ask; another tool of the same server: asks
    llm.enqueue(status, call("c2", "mcp__git__git_log", {"repo_path": str(repo)}), Reply(text="two"))
    await prompt(client, sid, "again")
    _, second = await mux.next(event("tool/result", sid), within=WAIT)
    assert second.event.data.get("error") is None
    _, log_ask = await mux.next(ftype("approval/requested", sid), within=WAIT)
    assert log_ask.tool_name == "mcp__git__git_log"
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    await mux.next(event("turn/end", sid), within=WAIT)


async def test_a_subagent_gets_its_parents_servers_with_the_same_approvals(
    host: Host, llm: ScriptedLlmServer, user_servers: Any, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    user_servers({"time": time_server()})
    client = host.client()
    mux = await host.mux(client)
    parent = await host.create()
    llm.enqueue(
        Reply(when="PARENT", tool_calls=[task("c1", "Tell the time", "CHILD: tell the time")]),
        Reply(when="CHILD", tool_calls=[("t1", "mcp__time__get_current_time", '{"timezone": "UTC"}')]),
        Reply(when="CHILD", text="It is now."),
        Reply(when="PARENT", text="done"),
    )
    await prompt(client, parent, "PARENT: what time is it")
    rpc_id, asked = await mux.next(ftype("approval/requested", parent), within=WAIT)
    assert asked.tool_name == "mcp__time__get_current_time" and asked.subagent is not None
    answer = {"sessionId": parent, "approvalId": asked.approval_id, "outcome": "allowed-once"}
    assert (await client.respond(rpc_id, {"ok": True, "value": answer})).accepted
    _, end = await mux.next(event("turn/end", parent), within=WAIT)
    assert end.event.data["reason"] == {"kind": "completed"}
    child_request = next(r for r in llm.requests if "CHILD: tell the time" in json.dumps(r["messages"]))
    assert "mcp__time__get_current_time" in [t["function"]["name"] for t in child_request["tools"]]
