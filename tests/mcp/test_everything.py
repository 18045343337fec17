"""`@modelcontextprotocol/server-everything` over stdio and streamable HTTP: tools, an image
result, the scrubbed environment, a long call cancelled with its turn, and the model calling
through the same approvals (docs/decisions.md, "MCP servers")."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from contract.methods import SESSION_CANCEL
from tests.api.conftest import Host
from tests.api.support import Frames, event, ftype, ok, prompt
from tests.mcp.conftest import EVERYTHING, needs_everything
from tests.mcp.test_faults import server_in
from tests.support.ports import free_port
from tests.support.scripted_llm import Reply, ScriptedLlmServer

WAIT = 60.0


async def run_call(
    client: Any, mux: Frames, llm: ScriptedLlmServer, sid: str, name: str, args: dict[str, Any]
) -> dict[str, Any]:
    """One model call of `name`, allowed once; the tool/result's data."""
    llm.enqueue(Reply(tool_calls=[("c1", name, json.dumps(args))]), Reply(text="done"))
    await prompt(client, sid, f"call {name}")
    rpc_id, asked = await mux.next(ftype("approval/requested", sid), within=WAIT)
    assert asked.tool_name == name
    answer = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-once"}
    await client.respond(rpc_id, {"ok": True, "value": answer})
    _, result = await mux.next(event("tool/result", sid), within=WAIT)
    await mux.next(event("turn/end", sid), within=WAIT)
    return dict(result.event.data)


def content(data: dict[str, Any]) -> str:
    return str(data["message"]["content"][0]["content"])


async def test_stdio_tools_images_and_a_scrubbed_environment(
    host: Host, llm: ScriptedLlmServer, user_servers: Any, monkeypatch: pytest.MonkeyPatch, carrier: str
) -> None:
    needs_everything()
    monkeypatch.setenv("HARNESSDESK_PROBE_SECRET", "probe-value-123")
    user_servers({"everything": {"command": str(EVERYTHING), "args": ["stdio"], "env": {"NAMED": "yes"}}})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    server = await server_in(client, sid, "everything", {"ready"})
    names = {t.name for t in server.tools}
    assert {"mcp__everything__get-sum", "mcp__everything__echo", "mcp__everything__get-tiny-image"} <= names
    summed = await run_call(client, mux, llm, sid, "mcp__everything__get-sum", {"a": 2, "b": 3})
    assert "The sum of 2 and 3 is 5." in content(summed)
    image = await run_call(client, mux, llm, sid, "mcp__everything__get-tiny-image", {})
    assert "[image: image/png" in content(image) and "content discarded]" in content(image)
    env = await run_call(client, mux, llm, sid, "mcp__everything__get-env", {})
    assert "NAMED" in content(env)
    assert "HARNESSDESK_PROBE_SECRET" not in content(env) and "probe-value-123" not in content(env)


async def test_a_cancelled_turn_cancels_the_long_call(
    host: Host, llm: ScriptedLlmServer, user_servers: Any, carrier: str
) -> None:
    needs_everything()
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    user_servers({"everything": {"command": str(EVERYTHING), "args": ["stdio"]}})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await server_in(client, sid, "everything", {"ready"})
    name = "mcp__everything__trigger-long-running-operation"
    llm.enqueue(Reply(tool_calls=[("c1", name, json.dumps({"duration": 30, "steps": 10}))]))
    await prompt(client, sid, "long")
    rpc_id, asked = await mux.next(ftype("approval/requested", sid), within=WAIT)
    answer = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-once"}
    await client.respond(rpc_id, {"ok": True, "value": answer})
    await asyncio.sleep(0.5)  # the call is in flight (no timing is asserted)
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    _, end = await mux.next(event("turn/end", sid), within=WAIT)
    assert end.event.data["reason"]["kind"] == "aborted"
    again = await server_in(client, sid, "everything", {"ready"})  # the server lives on
    assert again.error is None


@pytest.fixture
def everything_http() -> Iterator[str]:
    needs_everything()
    port = free_port()
    proc = subprocess.Popen(
        [str(EVERYTHING), "streamableHttp"],
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "listening on port" in line:
                break
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_streamable_http_server(
    host: Host, llm: ScriptedLlmServer, user_servers: Any, everything_http: str
) -> None:
    user_servers({"web": {"type": "http", "url": everything_http, "headers": {"X-Probe": "${PROBE:-p1}"}}})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    server = await server_in(client, sid, "web", {"ready", "failed"})
    assert server.state == "ready", server.error
    assert server.transport == "http" and server.command_line == everything_http
    echoed = await run_call(client, mux, llm, sid, "mcp__web__echo", {"message": "over http"})
    assert "over http" in content(echoed)
