"""Subagents (docs/architecture.md, "Subagents"): the `task` tool runs a child session to its
final answer; children run three at a time; cancelling the parent cancels them; a child's
approvals and questions are asked in the parent's conversation, labelled with the child.

The scripted provider answers each conversation by its first user message (`Reply.when`), so
children that run at the same time each get their own script."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from contract.methods import (
    COMMAND_EXECUTE,
    SESSION_CANCEL,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
    SUBAGENT_LIST,
)
from contract.subagents import DiagnosticChild
from tests.api.conftest import Host
from tests.api.support import Frames, event, events_of, ftype, ok, page_events, prompt
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def task(call_id: str, description: str, words: str, **extra: Any) -> tuple[str, str, str]:
    return (call_id, "task", json.dumps({"description": description, "prompt": words, **extra}))


def tool_text(result: Any) -> str:
    return str(result.data["message"]["content"][0]["content"])


async def child_added(host_frames: Frames, parent: str) -> Any:
    _, frame = await host_frames.next(
        lambda f: getattr(f, "type", None) == "host/session-added" and f.origin == "subagent"
    )
    assert frame.parent_session_id == parent
    return frame


def answer(value: Any) -> dict[str, Any]:
    return {"ok": True, "value": value}


async def test_a_task_runs_a_child_to_its_answer(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(
        Reply(when="PARENT", tool_calls=[task("c1", "Count the files", "CHILD-A: count the files")]),
        Reply(when="CHILD-A", text="There are 3 files."),
        Reply(when="PARENT", text="The subagent counted 3 files."),
    )
    client = host.client()
    mux, hosts = await host.mux(client), await host.host_stream(client)
    parent = await host.create()
    await prompt(client, parent, "PARENT: how many files?")
    added = await child_added(hosts, parent)
    child = added.session_id
    assert added.cwd == str(host.workdir) and added.agent_preset == "standard"
    _, end = await mux.next(event("turn/end", parent))
    parent_events = events_of(mux.frames, parent)
    spawned = next(e for e in parent_events if e.type == "subagent/spawned")
    assert spawned.data == {
        "callId": "c1",
        "sessionId": child,
        "label": "Count the files",
        "agentPreset": "standard",
    }
    result = next(e for e in parent_events if e.type == "tool/result")
    assert tool_text(result) == "There are 3 files." and result.data.get("error") is None
    assert end.event.data["reason"] == {"kind": "completed"}

    child_events = [e.dump() for e in page_events(await ok(client, SESSION_HISTORY, {"sessionId": child}))]
    types = [e["type"] for e in child_events]
    start, end = types.index("turn/start"), types.index("turn/end")
    assert start < types.index("subagent/descriptor") < end  # logged in the child's first turn
    descriptor = next(e["data"] for e in child_events if e["type"] == "subagent/descriptor")
    assert descriptor["version"] == 2 and descriptor["mode"] == "continuable"
    assert descriptor["label"] == "Count the files" and descriptor["persona"] == "standard"
    assert descriptor["provider"] == "inprocess" and descriptor["agentModel"] == "scripted-small"
    opening = next(e for e in child_events if e["type"] == "user/message")
    assert opening["data"]["content"] == [{"type": "text", "text": "CHILD-A: count the files"}]
    assert opening["data"]["source"]["plugin"] == "task"

    rows = {s.session_id: s for s in (await ok(client, SESSION_LIST)).items}
    assert rows[child].origin == "subagent" and rows[child].parent_session_id == parent
    assert rows[child].title == "Count the files" and rows[child].cwd == str(host.workdir)
    assert rows[parent].origin is None
    offered = [[t["function"]["name"] for t in r.get("tools", [])] for r in llm.requests]
    assert "task" in offered[0]  # the parent may delegate
    assert offered[1] and "task" not in offered[1]  # a subagent may not


async def test_three_children_at_once_their_approvals_asked_in_the_parent(
    host: Host, llm: ScriptedLlmServer
) -> None:
    names = ["alpha", "beta", "gamma", "delta"]
    calls = [task(f"c-{n}", f"Check {n}", f"CHILD-{n}: check {n}") for n in names]
    llm.enqueue(Reply(when="PARENT", tool_calls=calls))
    for n in names:
        bash = json.dumps({"command": f"echo {n}"})
        llm.enqueue(Reply(when=f"CHILD-{n}", tool_calls=[(f"b-{n}", "bash", bash)]))
        llm.enqueue(Reply(when=f"CHILD-{n}", text=f"{n} is fine"))
    llm.enqueue(Reply(when="PARENT", text="all four are fine"))
    client = host.client()
    mux, hosts = await host.mux(client), await host.host_stream(client)
    parent = await host.create()
    await prompt(client, parent, "PARENT: check everything")

    asked: list[tuple[str, Any]] = []
    for _ in range(3):  # three children run at once, each waiting for its approval
        asked.append(await mux.next(ftype("approval/requested", parent)))
    listed = await ok(client, SUBAGENT_LIST, {"parentSessionId": parent})
    entries = [e for e in listed.entries if not isinstance(e, DiagnosticChild)]
    assert len(entries) == len(listed.entries)  # every child's log says what it is
    assert [e.activity for e in entries] == ["running"] * 3  # the fourth waits for a slot
    assert listed.parent_available is True
    children = {e.id: e.label for e in entries}
    for _, frame in asked:
        assert frame.subagent is not None and children[frame.subagent.session_id] == frame.subagent.label
        assert frame.tool_name == "bash"
    for rpc_id, frame in asked:
        value = {"sessionId": parent, "approvalId": frame.approval_id, "outcome": "allowed-once"}
        assert (await client.respond(rpc_id, answer(value))).accepted
    rpc_id, last = await mux.next(ftype("approval/requested", parent))  # the fourth, once a slot freed
    assert last.subagent is not None and last.subagent.session_id not in children
    value = {"sessionId": parent, "approvalId": last.approval_id, "outcome": "allowed-once"}
    assert (await client.respond(rpc_id, answer(value))).accepted
    await mux.next(event("turn/end", parent))
    parent_events = events_of(mux.frames, parent)
    results = {
        e.data["message"]["source"]["callId"]: tool_text(e) for e in parent_events if e.type == "tool/result"
    }
    assert results == {f"c-{n}": f"{n} is fine" for n in names}
    spawned = [e.data["label"] for e in parent_events if e.type == "subagent/spawned"]
    assert sorted(spawned) == sorted(f"Check {n}" for n in names)
    added = [f for f in hosts.frames if getattr(f, "type", None) == "host/session-added" and f.origin]
    assert len(added) == 4
    for frame in added:  # each child logged its own audit of the approval
        child_events = page_events(await ok(client, SESSION_HISTORY, {"sessionId": frame.session_id}))
        assert [e.data["outcome"] for e in child_events if e.type == "approval/decided"] == ["allowed-once"]


async def test_cancelling_the_parent_cancels_its_child(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(
        Reply(when="PARENT", tool_calls=[task("c1", "Slow work", "CHILD-slow: take your time")]),
        Reply(when="CHILD-slow", text="working on it, step one of many", chunk_size=4, hang_after=2),
    )
    client = host.client()
    mux, hosts = await host.mux(client), await host.host_stream(client)
    parent = await host.create()
    await prompt(client, parent, "PARENT: delegate something slow")
    child = (await child_added(hosts, parent)).session_id
    await mux.next(event("assistant/chunk", child))  # the child is answering
    await ok(client, SESSION_CANCEL, {"sessionId": parent})
    _, child_end = await mux.next(event("turn/end", child))
    assert child_end.event.data["reason"] == {"kind": "aborted", "by": "parent"}
    _, parent_end = await mux.next(event("turn/end", parent))
    assert parent_end.event.data["reason"] == {"kind": "aborted", "by": "user"}
    result = next(e for e in events_of(mux.frames, parent) if e.type == "tool/result")
    assert result.data["error"] == {"name": "task", "code": "CANCELLED"}
    assert await asyncio.to_thread(llm.wait_for_disconnects, 1, 15)  # the child's stream was closed

    def idle(sid: str) -> Callable[[Any], bool]:
        return lambda f: (
            getattr(f, "type", None) == "host/session-status" and f.session_id == sid and not f.running
        )

    for sid in (parent, child):
        await hosts.seen(idle(sid))


async def test_a_child_question_is_asked_in_the_parent(host: Host, llm: ScriptedLlmServer) -> None:
    question = {
        "questions": [
            {"id": "q1", "question": "Which colour?", "options": [{"label": "red"}, {"label": "blue"}]}
        ]
    }
    llm.enqueue(
        Reply(when="PARENT", tool_calls=[task("c1", "Pick a colour", "CHILD-ask: ask the user")]),
        Reply(when="CHILD-ask", tool_calls=[("q-1", "ask_user", json.dumps(question))]),
        Reply(when="CHILD-ask", text="The user likes blue."),
        Reply(when="PARENT", text="Blue it is."),
    )
    client = host.client()
    mux = await host.mux(client)
    parent = await host.create()
    await prompt(client, parent, "PARENT: ask which colour")
    rpc_id, frame = await mux.next(ftype("question/requested", parent))
    assert frame.subagent is not None and frame.subagent.label == "Pick a colour"
    child = frame.subagent.session_id
    value = {"sessionId": parent, "answer": {"answers": [{"id": "q1", "selected": ["blue"]}]}}
    assert (await client.respond(rpc_id, answer(value))).accepted
    await mux.next(event("turn/end", parent))
    child_result = next(e for e in events_of(mux.frames, child) if e.type == "tool/result")
    assert "blue" in tool_text(child_result)
    parent_result = next(e for e in events_of(mux.frames, parent) if e.type == "tool/result")
    assert tool_text(parent_result) == "The user likes blue."


async def test_a_child_never_has_more_rights_than_its_parent(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(
        Reply(when="PARENT", tool_calls=[task("c1", "Write a file", "CHILD-w: write it", preset="standard")]),
        Reply(
            when="CHILD-w", tool_calls=[("w1", "write_file", json.dumps({"path": "x.txt", "content": "x"}))]
        ),
        Reply(when="CHILD-w", text="I could not write."),
        Reply(when="PARENT", text="ok"),
    )
    client = host.client()
    mux = await host.mux(client)
    created = await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "read-only"})
    parent = created.session_id
    await prompt(client, parent, "PARENT: delegate a write")
    await mux.next(event("turn/end", parent))
    spawned = next(e for e in events_of(mux.frames, parent) if e.type == "subagent/spawned")
    child = spawned.data["sessionId"]
    assert spawned.data["agentPreset"] == "standard"  # the preset it asked for...
    child_events = page_events(await ok(client, SESSION_HISTORY, {"sessionId": child}))
    denied = next(e for e in child_events if e.type == "tool/result")
    assert denied.data["error"] == {"name": "write_file", "code": "PERMISSION_DENIED"}  # ...not its rights
    assert [e.data["preset"] for e in child_events if e.type == "permission/preset"] == ["read-only"]
    assert not (host.workdir / "x.txt").exists()
    assert not any(e.type == "approval/asked" for e in child_events)


async def test_a_planning_parent_s_children_plan_too(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(
        Reply(when="PARENT", tool_calls=[task("c1", "Plan it", "CHILD-plan: look")]),
        Reply(when="CHILD-plan", text="Here is a plan."),
        Reply(when="PARENT", text="ok"),
    )
    client = host.client()
    mux = await host.mux(client)
    parent = await host.create()
    assert (await ok(client, COMMAND_EXECUTE, {"sessionId": parent, "line": "/plan"})).matched
    await prompt(client, parent, "PARENT: plan with a subagent")
    await mux.next(event("turn/end", parent))
    child_request = next(r for r in llm.requests if "CHILD-plan" in json.dumps(r["messages"][1:2]))
    offered = {t["function"]["name"] for t in child_request.get("tools", [])}
    assert offered and not offered & {"bash", "write_file", "edit_file"}
    child = next(e for e in events_of(mux.frames, parent) if e.type == "subagent/spawned").data["sessionId"]
    child_events = page_events(await ok(client, SESSION_HISTORY, {"sessionId": child}))
    assert [e.data["active"] for e in child_events if e.type == "plan/mode"] == [True]
