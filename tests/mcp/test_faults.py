"""Servers that crash, hang, flood stderr or answer what is not JSON: each gives one clear
error in `mcp.list`, the host keeps answering, and Restart starts the server again."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    CREDENTIALS_SET,
    MCP_LIST,
    MCP_OPEN_USER_FILE,
    MCP_RESTART,
    MCP_SET_ENABLED,
    SESSION_LIST,
)
from tests.api.conftest import Host
from tests.api.support import event, ftype, ok, prompt
from tests.mcp.conftest import time_server
from tests.support.scripted_llm import Reply, ScriptedLlmServer

FAULTY = Path(__file__).parent / "servers" / "faulty.py"
WAIT = 60.0


def faulty(mode: str, startup_ms: int = 3000) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAULTY), mode], "startupTimeoutMs": startup_ms}


async def server_in(client: Any, sid: str, name: str, states: set[str]) -> Any:
    """mcp.list until `name` is in one of `states` (bounded generously)."""
    for _ in range(1200):
        listed = await ok(client, MCP_LIST, {"sessionId": sid})
        found = {s.name: s for s in listed.servers}
        if name in found and found[name].state in states:
            return found[name]
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name} never reached {states}: {found.get(name)}")


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("hang", "did not start within 3 s"),
        ("garbage", "did not start within 3 s (the last problem:"),
        ("flood", "closed"),
    ],
)
async def test_a_server_that_cannot_start_fails_with_one_clear_error(
    host: Host, user_servers: Any, mode: str, words: str
) -> None:
    user_servers({"bad": faulty(mode), "time": time_server()})
    client = host.client()
    sid = await host.create()
    bad = await server_in(client, sid, "bad", {"failed"})
    assert words in (bad.error or ""), bad.error
    assert bad.tools == []
    if mode == "flood":
        assert bad.stderr_tail is not None and bad.stderr_tail.endswith("FLOOD-END\n")
        assert len(bad.stderr_tail) <= 4096
    good = await server_in(client, sid, "time", {"ready"})  # the others are not held up
    assert good.tools
    assert (await ok(client, SESSION_LIST, {})) is not None  # the host keeps answering


async def test_a_crash_mid_call_is_a_tool_error_then_restart_brings_it_back(
    host: Host, llm: ScriptedLlmServer, user_servers: Any, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough for the process lifecycle")
    user_servers({"faulty": faulty("crash")})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await server_in(client, sid, "faulty", {"ready"})
    llm.enqueue(Reply(tool_calls=[("c1", "mcp__faulty__poke", "{}")]), Reply(text="ok"))
    await prompt(client, sid, "poke it")
    rpc_id, asked = await mux.next(ftype("approval/requested", sid), within=WAIT)
    assert "may change things" in (asked.reason or "")  # no readOnlyHint
    answer = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-once"}
    await client.respond(rpc_id, {"ok": True, "value": answer})
    _, result = await mux.next(event("tool/result", sid), within=WAIT)
    assert result.event.data["error"]["code"] in ("MCP_ERROR", "TIMEOUT"), result.event.data
    await mux.next(event("turn/end", sid), within=WAIT)
    failed = await server_in(client, sid, "faulty", {"failed"})
    assert "boom, going down" in (failed.stderr_tail or "")
    restarted = await ok(client, MCP_RESTART, {"sessionId": sid, "name": "faulty"})
    assert restarted.server.state == "ready"
    assert [t.name for t in restarted.server.tools] == ["mcp__faulty__poke"]


async def test_disable_and_enable(host: Host, user_servers: Any) -> None:
    user_servers({"time": time_server()})
    client = host.client()
    sid = await host.create()
    await server_in(client, sid, "time", {"ready"})
    off = await ok(client, MCP_SET_ENABLED, {"sessionId": sid, "name": "time", "enabled": False})
    assert (off.server.state, off.server.enabled) == ("disabled", False)
    overrides = json.loads((host.data_dir / "mcp-overrides.json").read_text())
    (section,) = overrides["projects"].values()
    assert section["disabled"] == ["time"]
    on = await ok(client, MCP_SET_ENABLED, {"sessionId": sid, "name": "time", "enabled": True})
    assert on.server.enabled is True
    await server_in(client, sid, "time", {"ready"})


async def test_list_changed_swaps_the_tool_set(
    host: Host, llm: ScriptedLlmServer, user_servers: Any, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    user_servers({"grow": faulty("grow")})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    before = await server_in(client, sid, "grow", {"ready"})
    assert [t.raw_name for t in before.tools] == ["poke"]
    llm.enqueue(Reply(tool_calls=[("c1", "mcp__grow__poke", "{}")]), Reply(text="ok"), Reply(text="two"))
    await prompt(client, sid, "grow it")
    rpc_id, asked = await mux.next(ftype("approval/requested", sid), within=WAIT)
    answer = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-once"}
    await client.respond(rpc_id, {"ok": True, "value": answer})
    await mux.next(event("turn/end", sid), within=WAIT)
    for _ in range(600):
        listed = await ok(client, MCP_LIST, {"sessionId": sid})
        if len(listed.servers[0].tools) == 2:
            break
        await asyncio.sleep(0.05)
    assert [t.raw_name for t in listed.servers[0].tools] == ["poke", "extra"]
    await prompt(client, sid, "again")
    await mux.next(event("turn/end", sid), within=WAIT)
    offered = [t["function"]["name"] for t in llm.requests[-1]["tools"]]
    assert "mcp__grow__extra" in offered


async def test_open_user_file_writes_an_empty_one_first(host: Host) -> None:
    client = host.client()
    path = host.data_dir / "mcp.json"
    assert not path.exists()
    response = await client.call(MCP_OPEN_USER_FILE, {})
    assert json.loads(path.read_text()) == {"mcpServers": {}}
    if response.result.ok:  # a desktop opener exists here
        assert response.result.value.path == str(path)
    else:  # no opener on a headless machine: one sentence, nothing else changed
        assert response.result.error.code == "internal"
    path.write_text('{"mcpServers": {"mine": {"command": "x"}}}')
    await client.call(MCP_OPEN_USER_FILE, {})
    assert "mine" in path.read_text()  # an existing file is never touched


async def test_a_credential_a_server_prints_is_redacted_from_its_stderr_tail(
    host: Host, user_servers: Any
) -> None:
    client = host.client()
    secret = "sk-probe-5c1e7a9b3d"
    await ok(client, CREDENTIALS_SET, {"ref": "PROBE_MCP_TOKEN", "value": secret})
    leaky = {
        "command": "/bin/sh",
        "args": ["-c", "echo token=$TOKEN >&2; exit 1"],
        "env": {"TOKEN": "${cred:PROBE_MCP_TOKEN}"},
    }
    user_servers({"leaky": leaky})
    sid = await host.create()
    failed = await server_in(client, sid, "leaky", {"failed"})
    assert failed.stderr_tail is not None and "token=[redacted]" in failed.stderr_tail
    assert secret not in failed.stderr_tail and secret not in (failed.error or "")
