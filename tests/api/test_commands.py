"""`command.list` / `command.execute` over both carriers: admission, the run/done pair, `/plan`,
handler errors and crashes, cancellation, and `host/commands-changed`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    COMMAND_EXECUTE,
    COMMAND_LIST,
    METHODS,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
)
from host.engine.agent.commands import Command, CommandContext, CommandResult, failure, success
from host.fetch.errors import TransportError
from tests.api.conftest import Host, open_test_host
from tests.api.support import err, event, events_of, ftype, ok, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer

WRITE_TOOLS = {"write_file", "edit_file", "bash"}


def tool_names(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


async def execute(host: Host, sid: str, line: str) -> Any:
    return await ok(host.client(), COMMAND_EXECUTE, {"sessionId": sid, "line": line})


async def test_the_catalogue_depends_on_the_preset(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    listed = (await ok(client, COMMAND_LIST, {"sessionId": sid})).commands
    plan = next(c for c in listed if c.name == "plan")
    assert plan.input is not None
    assert plan.input.hint == "[off|message]" and "changes nothing" in plan.description
    assert [c.name for c in listed] == sorted(c.name for c in listed)
    chat = (await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "chat"})).session_id
    assert "plan" not in [c.name for c in (await ok(client, COMMAND_LIST, {"sessionId": chat})).commands]
    await err(client, COMMAND_LIST, {"sessionId": "s-nope"}, "session-not-found")
    await err(client, COMMAND_EXECUTE, {"sessionId": "s-nope", "line": "/plan"}, "session-not-found")
    await err(client, COMMAND_EXECUTE, {"sessionId": sid}, "bad-request")
    assert METHODS["command.execute"].user_paced and not METHODS["command.list"].user_paced


async def test_a_line_that_is_not_a_known_command_logs_nothing(host: Host) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    for line in ("/nope", " /plan", "/Plan", "/plan/x", "plan", "", "/", "/9lives"):
        assert (await execute(host, sid, line)).model_dump(exclude_none=True) == {"matched": False}
    chat = (await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "chat"})).session_id
    assert (await execute(host, chat, "/plan")).matched is False  # not in this session's catalogue
    await asyncio.sleep(0.05)
    assert events_of(mux.frames) == []


async def test_plan_mode_hides_the_write_tools_until_plan_off(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    answer = await execute(host, sid, "/plan")
    assert answer.matched is True and answer.command_id.startswith("cmd-")
    _, run = await mux.next(event("command/run", sid))
    _, done = await mux.next(event("command/done", sid))
    user = {"kind": "user"}
    assert run.event.data == {"commandId": answer.command_id, "name": "plan", "args": "", "source": user}
    assert done.event.data["commandId"] == answer.command_id and done.event.data["kind"] == "success"
    assert "Plan mode on" in done.event.data["text"] and run.event.seq < done.event.seq
    _, projected = await mux.seen(lambda f: f.type == "session/projection" and f.key == "plan")
    assert projected.value == {"active": True}
    await run_turn(client, mux, sid, "how would you refactor this?")
    request = llm.requests[-1]
    assert not tool_names(request) & WRITE_TOOLS and "read_file" in tool_names(request)
    texts = [str(m["content"]) for m in request["messages"] if m["role"] == "user"]
    assert any("Plan mode is on" in t for t in texts)
    assert "/plan" not in texts and not any(done.event.data["text"] in t for t in texts)  # nor its output
    again = await execute(host, sid, "/plan")
    _, done = await mux.next(event("command/done", sid, commandId=again.command_id))
    assert "already on" in done.event.data["text"]
    off = await execute(host, sid, "/plan   off  ")
    _, run = await mux.next(event("command/run", sid, commandId=off.command_id))
    assert run.event.data["args"] == "   off  "  # the raw input, separating whitespace included
    await run_turn(client, mux, sid, "go ahead")
    assert tool_names(llm.requests[-1]) >= WRITE_TOOLS
    assert any("Plan mode is off" in str(m["content"]) for m in llm.requests[-1]["messages"])
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    assert history.projections is not None
    assert "plan" not in history.projections.values  # off: nothing to show


async def test_plan_with_a_message_steers_it_into_the_agent(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await execute(host, sid, "/plan outline the migration")
    await mux.next(event("turn/end", sid))
    request = llm.requests[-1]
    assert not tool_names(request) & WRITE_TOOLS
    texts = [m["content"] for m in request["messages"] if m["role"] == "user"]
    assert texts[0] == "outline the migration" and "Plan mode is on" in texts[1]
    assert (await ok(client, SESSION_LIST)).items[0].blank is False


async def test_handler_results_errors_crashes_and_cancels(host: Host) -> None:
    registry = host.engine.presets.service.commands
    client = host.client()
    frames = await host.host_stream(client)
    mux = await host.mux(client)
    started = asyncio.Event()

    async def echo(ctx: CommandContext) -> CommandResult:
        return success(f"echo:{ctx.input}") if ctx.argument else failure("Usage: /echo <text>")

    async def crash(ctx: CommandContext) -> CommandResult:
        raise RuntimeError("boom")

    async def slow(ctx: CommandContext) -> CommandResult:
        started.set()
        await asyncio.sleep(60)
        return success()

    unregister = registry.register(Command("echo", "Say it back", echo, hint="<text>"))
    await frames.next(ftype("host/commands-changed"))
    registry.register(Command("crash", "Fails", crash))
    registry.register(Command("slow", "Waits", slow))
    sid = await host.create()
    assert "echo" in [c.name for c in (await ok(client, COMMAND_LIST, {"sessionId": sid})).commands]
    said = await execute(host, sid, "/echo hi there")
    _, done = await mux.next(event("command/done", sid, commandId=said.command_id))
    assert done.event.data["text"] == "echo: hi there"
    empty = await execute(host, sid, "/echo")
    assert empty.matched is True  # an error result is still a match
    _, done = await mux.next(event("command/done", sid, commandId=empty.command_id))
    assert done.event.data == {"commandId": empty.command_id, "kind": "error", "text": "Usage: /echo <text>"}
    with pytest.raises(TransportError, match="500"):  # a crash is a host failure (HTTP 500), not a result
        await client.call(COMMAND_EXECUTE, {"sessionId": sid, "line": "/crash"})
    _, done = await mux.next(event("command/done", sid, kind="error"))
    assert done.event.data["text"] == "The command failed: boom"
    call = asyncio.create_task(client.call(COMMAND_EXECUTE, {"sessionId": sid, "line": "/slow"}))
    await asyncio.wait_for(started.wait(), 10)
    call.cancel()
    _, done = await mux.next(event("command/done", sid, kind="error"))
    assert done.event.data["text"] == "The command was cancelled."
    unregister()
    await frames.next(ftype("host/commands-changed"))
    assert (await execute(host, sid, "/echo hi")).matched is False


async def test_plan_mode_survives_a_restart(tmp_path: Path, llm: ScriptedLlmServer, carrier: str) -> None:
    data = tmp_path / "data"
    first = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=data)
    try:
        sid = await first.create()
        assert (await execute(first, sid, "/plan")).matched is True
    finally:
        await first.close()
    again = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=data)
    try:
        client = again.client()
        history = await ok(client, SESSION_HISTORY, {"sessionId": sid})  # cold: read from the log
        assert history.projections is not None
        assert history.projections.values["plan"] == {"active": True}
        mux = await again.mux(client)
        await run_turn(client, mux, sid, "what now?")
        assert not tool_names(llm.requests[-1]) & WRITE_TOOLS
    finally:
        await again.close()


async def test_permission_shows_and_switches_the_session_preset(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    shown = await execute(host, sid, "/permission")
    _, done = await mux.next(event("command/done", sid, commandId=shown.command_id))
    assert done.event.data["text"] == "Permission mode: Ask. Available: read-only, auto, ask, full."
    bad = await execute(host, sid, "/permission yolo")
    _, done = await mux.next(event("command/done", sid, commandId=bad.command_id))
    assert done.event.data["kind"] == "error" and "Unknown permission mode 'yolo'" in done.event.data["text"]
    start = len(mux.items)
    switched = await execute(host, sid, "/permission read-only")
    _, done = await mux.next(event("command/done", sid, commandId=switched.command_id))
    assert done.event.data == {
        "commandId": switched.command_id,
        "kind": "success",
        "text": "Permission mode Read-only",
    }
    logged = [(e.type, e.data) for e in events_of(mux.since(start), sid)]
    assert logged == [
        (
            "command/run",
            {
                "commandId": switched.command_id,
                "name": "permission",
                "args": " read-only",
                "source": {"kind": "user"},
            },
        ),
        ("permission/preset", {"preset": "workspace-write"}),  # the creation pin, logged first
        ("sandbox/mode", {"mode": "workspace-write", "mechanism": "none", "network": False}),
        ("approval/policy", {"policy": "ask"}),
        ("permission/preset", {"preset": "read-only"}),
        ("sandbox/mode", {"mode": "read-only", "mechanism": "none", "network": False}),  # only what changed
        logged[-1],
    ]
    _, projected = await mux.seen(lambda f: f.type == "session/projection" and f.key == "permissions")
    assert projected.value["currentValue"] == "read-only"
    llm.enqueue(
        Reply(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "hi"}')]), Reply(text="ok")
    )
    events = await run_turn(client, mux, sid, "write x.txt")
    result = next(e for e in events if e.type == "tool/result")
    assert result.data["error"]["code"] == "PERMISSION_DENIED" and not (host.workdir / "x.txt").exists()


async def test_the_agent_preset_caps_what_permission_can_switch_to(host: Host) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = (
        await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "read-only"})
    ).session_id
    wider = await execute(host, sid, "/permission danger-full-access")
    _, done = await mux.next(event("command/done", sid, commandId=wider.command_id))
    assert done.event.data["text"].startswith(
        "Permission mode Read-only: the agent preset “Read-only” allows no more"
    )
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    assert history.projections is not None
    assert history.projections.values["permissions"]["currentValue"] == "read-only"


async def test_permission_takes_the_words_the_picker_shows(host: Host) -> None:
    """`/permission ask` (issue 46, item 5): the picker's words, the titles and the wire names."""
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    for line, mode in (
        ("/permission read-only", "read-only"),
        ("/permission ask", "workspace-write"),
        ("/permission Read-only", "read-only"),
        ("/permission workspace-write", "workspace-write"),
        ("/permission full", "danger-full-access"),
        ("/permission ask", "workspace-write"),
        ("/permission Full access", "danger-full-access"),
    ):
        ran = await execute(host, sid, line)
        _, done = await mux.next(event("command/done", sid, commandId=ran.command_id))
        assert done.event.data["kind"] == "success", (line, done.event.data)
        history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
        assert history.projections is not None
        assert history.projections.values["permissions"]["currentValue"] == mode, line
