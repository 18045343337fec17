"""The engine's event vocabulary and ids are each stated once.

- every session event type of the contract has exactly one constructor in host/engine/sessions/events/
  (one module per family of events), and no other engine module builds an event or mints an id
  by hand;
- the constructors produce the contract's wire JSON (camelCase, unset optionals left out), key
  for key and in order.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from contract.content import MessageSource, TextBlock, TextDeltaChunk, Usage
from contract.events import EVENT_DATA, TodoItem, ToolError
from host.engine.sessions import events

ENGINE = Path(__file__).resolve().parents[2] / "host" / "engine"


def calls_in(path: Path, name: str) -> list[ast.Call]:
    """Calls of `name(...)` or `x.name(...)` in a module's syntax tree."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if called == name:
                found.append(node)
    return found


def test_one_constructor_per_event_type() -> None:
    built = [
        str(call.args[0].value)
        for path in sorted((ENGINE / "sessions" / "events").glob("*.py"))
        for call in calls_in(path, "NewEvent")
        if call.args and isinstance(call.args[0], ast.Constant)
    ]
    assert sorted(built) == sorted(EVENT_DATA)  # each type once, none missing, none unknown


def test_no_engine_module_builds_events_or_ids_by_hand() -> None:
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        rel = path.relative_to(ENGINE).as_posix()
        builds = calls_in(path, "NewEvent") or calls_in(path, "SessionEvent")
        if not rel.startswith("sessions/events/") and builds:
            offenders.append(f"{rel} builds an event")
        if rel != "store/ids.py" and calls_in(path, "uuid4"):
            offenders.append(f"{rel} mints an id")
    # the store turns rows read back from disk into events; that is reading, not building
    assert [o for o in offenders if not o.startswith("store/")] == []


def wire(new: events.NewEvent) -> str:
    return json.dumps(new.stamp(1, 2).data)


def test_constructors_produce_the_wire_shape() -> None:
    assert wire(events.turn_start(3, "queue")) == '{"turn": 3, "trigger": "queue"}'
    assert wire(events.turn_end(3, events.failed("boom", 502))) == (
        '{"turn": 3, "reason": {"kind": "error", "error": {"message": "boom", "status": 502}}}'
    )
    assert wire(events.turn_end(3, events.aborted("disposed"))) == (
        '{"turn": 3, "reason": {"kind": "aborted", "by": "disposed"}}'
    )
    assert wire(events.request_header("local", "m", None, [])) == (
        '{"provider": "local", "model": "m", "tools": []}'
    )
    assert wire(events.request_header("deepseek", "d", "high", ["bash"])) == (
        '{"provider": "deepseek", "model": "d", "reasoningEffort": "high", "tools": ["bash"]}'
    )
    assert (
        wire(events.request_retry(2, 500, "HTTP 429"))
        == '{"attempt": 2, "delayMs": 500, "reason": "HTTP 429"}'
    )
    assert wire(events.tool_call(1, 0, "c1", "bash", "{}")) == (
        '{"turn": 1, "step": 0, "callId": "c1", "name": "bash", "arguments": "{}"}'
    )
    assert wire(events.approval_asked("ap-1", "bash", "c1", "why")) == (
        '{"id": "ap-1", "toolName": "bash", "callId": "c1", "reason": "why"}'
    )
    assert (
        wire(events.approval_decided("ap-1", "allowed-always"))
        == '{"id": "ap-1", "outcome": "allowed-always"}'
    )
    assert wire(events.session_title("Plans", "user")) == '{"title": "Plans", "source": {"kind": "user"}}'
    assert wire(events.todo_write([TodoItem(content="a", status="pending")])) == (
        '{"todos": [{"content": "a", "status": "pending"}]}'
    )
    assert wire(events.end_seed()) == "{}"
    chunk = events.assistant_chunk(1, 0, TextDeltaChunk(index=0, text="hi"))
    assert wire(chunk) == '{"turn": 1, "step": 0, "chunk": {"type": "text-delta", "index": 0, "text": "hi"}}'


def test_message_events_carry_a_fresh_id_and_the_source_keys() -> None:
    ok = events.tool_result(1, 0, "c1", "done").stamp(5, 6).data
    bad = events.tool_result(1, 0, "c1", "no", ToolError(name="bash", code="REJECTED")).stamp(7, 8).data
    assert ok["message"]["id"].startswith("msg-") and ok["message"]["id"] != bad["message"]["id"]
    ok["message"]["id"] = bad["message"]["id"] = "m"
    assert ok == {
        "turn": 1,
        "step": 0,
        "message": {
            "id": "m",
            "role": "tool",
            "content": [{"type": "tool-result", "toolCallId": "c1", "content": "done"}],
            "source": {"kind": "tool", "callId": "c1"},
        },
    }
    assert list(bad) == ["turn", "step", "message", "error"] and bad["error"] == {
        "name": "bash",
        "code": "REJECTED",
    }
    assert bad["message"]["content"][0]["isError"] is True
    source = MessageSource(kind="user", rpc_id="r1", client_time_zone="Europe/Paris")
    user = events.new_message("user", [TextBlock(text="hi")], source)
    assert json.dumps(events.user_message(user).stamp(1, 1).data["source"]) == (
        '{"kind": "user", "rpcId": "r1", "clientTimeZone": "Europe/Paris"}'
    )
    model = MessageSource(kind="model", provider="local", model="m")
    reply = events.new_message("assistant", [TextBlock(text="yo")], model)
    data = events.assistant_message(1, 0, reply, [3, 4], usage=Usage(input_tokens=2)).stamp(5, 5)
    assert data.source_event_seqs == [3, 4] and list(data.data) == ["turn", "step", "message", "usage"]
    assert data.data["message"]["source"] == {"kind": "model", "provider": "local", "model": "m"}
