"""`goal.*` over both carriers (spec 07 §1, §6 items 1-11, 14, 15): CAS refs, every error, the
`goal/change` records, the `goal` projection on the mux and the history tail, subagent and
preset refusals, Stop pausing a round, and `/goal`."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from contract.methods import (
    COMMAND_EXECUTE,
    COMMAND_LIST,
    GOAL_CLEAR,
    GOAL_COMPLETE,
    GOAL_CREATE,
    GOAL_EDIT,
    GOAL_PAUSE,
    GOAL_RESUME,
    SESSION_CANCEL,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_RENAME,
    AnyMethod,
)
from tests.api.conftest import Host
from tests.api.support import err, event, events_of, ftype, ok, raw
from tests.support.scripted_llm import Reply, ScriptedLlmServer

SNAPSHOT_KEYS = {"kind", "version", "operation", "goal", "roundsStarted", "createdAt", "updatedAt"}
TOMBSTONE_KEYS = {"kind", "version", "operation", "cleared", "clearedAt"}


def ref_of(value: Any) -> dict[str, Any]:
    return {"id": value.ref.id, "revision": value.ref.revision}


async def goal_err(client: Any, method: AnyMethod, payload: dict[str, Any], goal_code: str) -> None:
    error = await err(client, method, payload, "internal")
    assert error.details == {"goalCode": goal_code}, error


async def test_mutations_are_compare_and_set_with_one_goal_change_each(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="on it", hang_after=1))  # round 1 holds the agent: no more rounds start
    client = host.client()
    mux = await host.mux()
    sid = await host.create()
    created = await ok(client, GOAL_CREATE, {"sessionId": sid, "objective": "Port the parser"})
    assert created.ref.id.startswith("goal-") and created.ref.revision == 1
    ref1 = ref_of(created)
    await goal_err(client, GOAL_CREATE, {"sessionId": sid, "objective": "again"}, "GOAL_ALREADY_EXISTS")

    # schema failures are bad requests; a blank objective is the domain's
    for payload in (
        {"sessionId": sid, "ref": ref1},
        {"sessionId": sid, "ref": ref1, "objective": ""},
        {"sessionId": sid, "ref": ref1, "maxGoalRounds": 0},
        {"sessionId": sid, "ref": ref1, "maxGoalRounds": "5"},
        {"sessionId": sid, "ref": {"id": ref1["id"], "revision": 0}, "objective": "x"},
    ):
        await err(client, GOAL_EDIT, payload, "bad-request")
    await err(client, GOAL_CREATE, {"sessionId": sid, "objective": ""}, "bad-request")
    await goal_err(
        client, GOAL_EDIT, {"sessionId": sid, "ref": ref1, "objective": "  "}, "GOAL_INVALID_OBJECTIVE"
    )
    stale = {"id": ref1["id"], "revision": 7}
    await goal_err(
        client, GOAL_EDIT, {"sessionId": sid, "ref": stale, "objective": "x"}, "GOAL_STALE_REVISION"
    )

    ref2 = ref_of(await ok(client, GOAL_EDIT, {"sessionId": sid, "ref": ref1, "maxGoalRounds": 40}))
    assert ref2 == {"id": ref1["id"], "revision": 2}
    await goal_err(client, GOAL_RESUME, {"sessionId": sid, "ref": ref2}, "GOAL_INVALID_TRANSITION")  # armed
    ref3 = ref_of(await ok(client, GOAL_PAUSE, {"sessionId": sid, "ref": ref2}))
    await goal_err(client, GOAL_PAUSE, {"sessionId": sid, "ref": ref3}, "GOAL_INVALID_TRANSITION")
    ref4 = ref_of(await ok(client, GOAL_RESUME, {"sessionId": sid, "ref": ref3}))
    ref5 = ref_of(await ok(client, GOAL_COMPLETE, {"sessionId": sid, "ref": ref4}))
    await goal_err(client, GOAL_COMPLETE, {"sessionId": sid, "ref": ref5}, "GOAL_INVALID_TRANSITION")
    assert [r["revision"] for r in (ref3, ref4, ref5)] == [3, 4, 5]

    fresh = ref_of(await ok(client, GOAL_CREATE, {"sessionId": sid, "objective": "Next one"}))
    assert fresh["id"] != ref1["id"] and fresh["revision"] == 1
    assert (await ok(client, GOAL_CLEAR, {"sessionId": sid, "ref": fresh})).cleared is True
    await goal_err(client, GOAL_CLEAR, {"sessionId": sid, "ref": fresh}, "GOAL_NOT_FOUND")
    await goal_err(client, GOAL_PAUSE, {"sessionId": sid, "ref": fresh}, "GOAL_NOT_FOUND")
    await err(client, GOAL_CREATE, {"sessionId": "s-nope", "objective": "x"}, "session-not-found")

    # exactly one goal/change per accepted mutation, with exactly the spec's keys
    _, last = await mux.seen(event("goal/change", sid, operation="clear"))
    changes = [e for e in events_of(mux.frames, sid) if e.type == "goal/change"]
    ops = [c.data["operation"] for c in changes]
    assert ops == ["create", "edit", "pause", "resume", "complete", "create", "clear"]
    for change in changes[:-1]:
        assert set(change.data) == SNAPSHOT_KEYS and change.data["version"] == 1
        assert "activation" not in change.data and "blockedReason" not in change.data["goal"]
    assert set(last.event.data) == TOMBSTONE_KEYS
    assert last.event.data["cleared"] == {"id": fresh["id"], "revision": 2}
    assert [c.data["goal"]["revision"] for c in changes[:5]] == [1, 2, 3, 4, 5]

    # each goal/change is followed by session/projection {key: goal, seq: that event's seq}
    _, final = await mux.seen(
        lambda f: getattr(f, "type", None) == "session/projection" and f.seq == last.event.seq
    )
    frames = [f for f in mux.frames if getattr(f, "type", None) == "session/projection" and f.key == "goal"]
    assert [f.seq for f in frames] == [c.seq for c in changes]
    assert final.value is None and frames[0].value["goal"]["phase"] == "active"
    assert "activation" not in frames[0].value

    # the tail page carries the projection; an older page carries no projections at all
    tail = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    assert tail.projections is not None
    assert tail.projections.values["goal"] is None
    first_seq = tail.events[0].event.seq
    if first_seq > 0:
        older = await ok(client, SESSION_HISTORY, {"sessionId": sid, "beforeSeq": first_seq})
        assert older.projections is None
    await ok(client, SESSION_CANCEL, {"sessionId": sid})


async def test_subagents_and_presets_without_the_goal_stack_are_refused(host: Host) -> None:
    client = host.client()
    chat = (await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "chat"})).session_id
    error = await err(client, GOAL_CREATE, {"sessionId": chat, "objective": "x"}, "internal")
    assert not error.details.get("goalCode") and "goal" in error.message
    body = json.dumps(
        {
            "type": "client-request",
            "rpcId": "r-1",
            "method": "goal.create",
            "payload": {"sessionId": chat, "objective": "x"},
        }
    )
    answer = await raw(
        client, "POST", "/api/goal.create", {"content-type": "application/json"}, body.encode()
    )
    assert json.loads(answer.body)["result"]["error"]["details"] == {}  # `internal {}` on the wire
    tail = await ok(client, SESSION_HISTORY, {"sessionId": chat})
    assert tail.projections is not None
    assert "goal" not in tail.projections.values  # not mounted: the key is absent
    names = [c.name for c in (await ok(client, COMMAND_LIST, {"sessionId": chat})).commands]
    assert "goal" not in names


async def test_stop_during_a_goal_round_pauses_the_goal(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="round one", hang_after=1))
    client = host.client()
    mux = await host.mux()
    sid = await host.create()
    await ok(client, GOAL_CREATE, {"sessionId": sid, "objective": "Refactor", "maxGoalRounds": 5})
    _, round_message = await mux.next(event("user/message", sid))
    assert (
        round_message.event.data["source"]["kind"] == "goal"
        and round_message.event.data["source"]["round"] == 1
    )
    await mux.next(event("assistant/chunk", sid))
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    _, paused = await mux.next(event("goal/change", sid, operation="pause"))
    assert paused.event.data["goal"]["phase"] == "paused" and paused.event.data["roundsStarted"] == 1
    _, frame = await mux.next(ftype("session/projection", sid))
    assert frame.key == "goal" and frame.value["goal"]["phase"] == "paused"


async def test_the_goal_command(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="working", hang_after=1))
    client = host.client()
    mux = await host.mux()
    sid = await host.create()
    listed = (await ok(client, COMMAND_LIST, {"sessionId": sid})).commands
    goal = next(c for c in listed if c.name == "goal")
    assert goal.input is not None
    assert goal.input.hint == "[<objective>|clear|edit <objective>|pause|resume]"

    async def run(line: str) -> Any:
        started = await ok(client, COMMAND_EXECUTE, {"sessionId": sid, "line": line})
        _, done = await mux.next(event("command/done", sid, commandId=started.command_id))
        return done.event.data

    empty = await run("/goal")
    assert empty["kind"] == "success" and "No goal is currently set" in empty["text"]
    created = await run("/goal pause later")
    assert created["kind"] == "success" and created["text"].startswith("Goal created\nStatus: active\n")
    assert "Objective: pause later" in created["text"] and "Activation: armed" in created["text"]
    again = await run("/goal something else")
    assert again["kind"] == "error"
    edit_alone = await run("/goal edit")
    assert edit_alone["kind"] == "error" and "replacement objective" in edit_alone["text"]
    paused = await run("/goal PAUSE")
    assert paused["kind"] == "success" and paused["text"].startswith("Goal paused\nStatus: paused")
    assert "/goal resume" in paused["text"]
    repeat = await run("/goal pause")
    assert repeat["kind"] == "error" and "goal-" not in repeat["text"]
    edited = await run("/goal edit  Ship the parser ")
    assert "Objective: Ship the parser" in edited["text"] and edited["text"].startswith("Goal updated")
    cleared = await run("/goal clear")
    assert cleared["kind"] == "success"
    assert (await run("/goal clear"))["text"] == "No goal is set: nothing to clear."
    await ok(client, SESSION_CANCEL, {"sessionId": sid})


async def test_list_rows_carry_their_projections_block(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="on it", hang_after=1))
    client = host.client()
    mux = await host.mux()
    blank = await host.create()
    sid = await host.create()
    await ok(client, SESSION_RENAME, {"sessionId": sid, "title": "Parser port"})
    created = await ok(client, GOAL_CREATE, {"sessionId": sid, "objective": "Port it", "maxGoalRounds": 3})
    await mux.next(event("assistant/chunk", sid))
    rows = {r.session_id: r.dump() for r in (await ok(client, SESSION_LIST, {})).items}
    assert "projections" not in rows[blank]  # nothing to say: no block
    block = rows[sid]["projections"]
    assert block["values"]["title"] == "Parser port" == rows[sid]["title"]
    goal = block["values"]["goal"]
    assert goal["goal"]["id"] == created.ref.id and goal["roundsStarted"] == 0  # as of the create
    assert block["asOfSeq"] >= 0
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    await mux.next(event("goal/change", sid, operation="pause"))


async def test_the_goal_frame_after_a_clear_carries_value_null_on_the_wire(
    host: Host, llm: ScriptedLlmServer
) -> None:
    """The `goal` projection's `null` is a value: the frame keeps `"value": null` (issue 40,
    item 9); the wire JSON is read as sent, not through a model that defaults the key."""
    llm.enqueue(Reply(text="on it", hang_after=1))
    client = host.client()
    sid = await host.create()
    stream = await client.do_fetch("GET", "/api/events.mux", {"accept": "text/event-stream"}, None)
    payloads: list[dict[str, Any]] = []
    cleared_seq: list[int] = []

    async def read() -> None:
        buffer = b""
        async for chunk in stream.body:
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.startswith(b"data: "):
                    payloads.append(json.loads(line[6:])["payload"])
            if cleared_seq and any(
                p["type"] == "session/projection" and p["seq"] == cleared_seq[0] for p in payloads
            ):
                return

    reader = asyncio.create_task(read())
    try:
        ref = ref_of(await ok(client, GOAL_CREATE, {"sessionId": sid, "objective": "Port the parser"}))
        assert (await ok(client, GOAL_CLEAR, {"sessionId": sid, "ref": ref})).cleared is True
        tail = await ok(client, SESSION_HISTORY, {"sessionId": sid})
        cleared_seq.append(max(e.event.seq for e in tail.events if e.event.type == "goal/change"))
        await asyncio.wait_for(reader, 30)
    finally:
        reader.cancel()
        await stream.aclose()
    goal_frames = [p for p in payloads if p["type"] == "session/projection" and p["key"] == "goal"]
    last = goal_frames[-1]
    assert last["seq"] == cleared_seq[0] and "value" in last and last["value"] is None, last
    assert goal_frames[0]["value"]["goal"]["phase"] == "active"
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
