"""Crash repair: the pure rule, in-memory repair of cold history, and a real kill -9."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import textwrap
from pathlib import Path

from contract.events import SessionEvent
from host.engine.sessions.repair import NOT_STARTED, OUTCOME_UNKNOWN, Brackets, repair_events
from host.engine.store import DB_FILE, SqliteStore
from tests.engine.conftest import assistant_data, ev, header, user_msg

REPO = Path(__file__).resolve().parents[2]


def open_turn_with_calls() -> list[SessionEvent]:
    """turn 3 from seq 10: two tool calls, only the first logged (started), step still open."""
    return [
        ev(10, "turn/start", {"turn": 3, "trigger": "user"}),
        ev(11, "user/message", user_msg("run things")),
        ev(12, "step/start", {"turn": 3, "step": 0}),
        ev(13, "assistant/message", assistant_data("ok", 3, 0, [("c1", "bash"), ("c2", "read_file")])),
        ev(14, "tool/call", {"turn": 3, "step": 0, "callId": "c1", "name": "bash", "arguments": "{}"}),
    ]


def test_repair_closes_calls_step_and_turn_in_order() -> None:
    out = repair_events(open_turn_with_calls())
    assert [(e.type, e.seq, e.time) for e in out] == [
        ("tool/result", 15, 1_014),
        ("tool/result", 16, 1_014),
        ("step/end", 17, 1_014),
        ("turn/end", 18, 1_014),
    ]
    first, second = out[0].data, out[1].data
    assert first["error"] == {"name": "bash", "code": OUTCOME_UNKNOWN}
    assert second["error"] == {"name": "read_file", "code": NOT_STARTED}
    assert first["message"]["source"] == {"kind": "tool", "callId": "c1"}
    assert first["message"]["content"][0]["isError"] is True
    assert out[2].data == {"turn": 3, "step": 0}
    assert out[3].data == {"turn": 3, "reason": {"kind": "interrupted"}}


def test_repair_skips_finished_calls_and_closed_steps() -> None:
    events = open_turn_with_calls()
    result = {
        "turn": 3,
        "step": 0,
        "message": {
            "id": "t1",
            "role": "tool",
            "content": [{"type": "tool-result", "toolCallId": "c1", "content": "done"}],
            "source": {"kind": "tool", "callId": "c1"},
        },
    }
    events.append(ev(15, "tool/result", result))
    events.append(
        ev(16, "tool/call", {"turn": 3, "step": 0, "callId": "c2", "name": "read_file", "arguments": "{}"})
    )
    out = repair_events(events)
    assert [(e.type, e.data.get("error")) for e in out] == [
        ("tool/result", {"name": "read_file", "code": OUTCOME_UNKNOWN}),
        ("step/end", None),
        ("turn/end", None),
    ]
    closed_step = [*open_turn_with_calls()[:3], ev(13, "step/end", {"turn": 3, "step": 0})]
    assert [e.type for e in repair_events(closed_step)] == ["turn/end"]


def test_an_automatic_compaction_open_in_the_turn_is_closed_before_the_turn() -> None:
    """fit() compacts inside a step before the model request: the bracket closes first."""
    start = ev(13, "compact/start", {"compactionId": "cmp-1", "turn": 3})
    events = [*open_turn_with_calls()[:3], start]
    out = repair_events(events, None, Brackets(compaction=start))
    assert [(e.type, e.seq) for e in out] == [("compact/end", 14), ("step/end", 15), ("turn/end", 16)]
    assert out[0].data == {
        "compactionId": "cmp-1",
        "turn": 3,
        "error": "interrupted: the app closed before the summary was saved",
        "interrupted": True,
    }
    ended = ev(14, "compact/end", {"compactionId": "cmp-1", "turn": 3})
    assert [e.type for e in repair_events([*events, ended], None, Brackets(compaction=ended))] == [
        "step/end",
        "turn/end",
    ]


def test_a_command_open_outside_a_turn_is_closed_as_interrupted() -> None:
    run = ev(4, "command/run", {"commandId": "cmd-1", "name": "permission", "source": {"kind": "user"}})
    out = repair_events([run], None, Brackets(command=run))
    assert [(e.type, e.seq, e.data["kind"]) for e in out] == [("command/done", 5, "interrupted")]
    done = ev(5, "command/done", {"commandId": "cmd-1", "kind": "success"})
    assert repair_events([done], None, Brackets(command=done)) == []


def test_no_repair_for_closed_turns_or_mid_stream_without_calls() -> None:
    done = [
        ev(0, "turn/start", {"turn": 0, "trigger": "user"}),
        ev(1, "turn/end", {"turn": 0, "reason": {"kind": "completed"}}),
    ]
    assert repair_events(done) == []
    assert repair_events([]) == []
    chunk = {"turn": 0, "step": 0, "chunk": {"type": "text-delta", "index": 0, "text": "par"}}
    streaming = [
        ev(0, "turn/start", {"turn": 0, "trigger": "user"}),
        ev(1, "step/start", {"turn": 0, "step": 0}),
        ev(2, "assistant/chunk", chunk),
    ]
    assert [e.type for e in repair_events(streaming)] == ["step/end", "turn/end"]


CHILD = textwrap.dedent(
    """
    import asyncio, sys, time
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from host.engine.store import SqliteStore, SessionHeader
    from tests.engine.conftest import ev, user_msg, assistant_data

    async def main():
        store = SqliteStore.in_dir(Path({data!r}))
        await store.open()
        store.register(SessionHeader(id="crash", created_at=1, cwd="/w"))
        done = [
            ev(0, "turn/start", {{"turn": 0, "trigger": "user"}}),
            ev(1, "user/message", user_msg("first")),
            ev(2, "step/start", {{"turn": 0, "step": 0}}),
            ev(3, "assistant/message", assistant_data("answer", 0, 0)),
            ev(4, "step/end", {{"turn": 0, "step": 0}}),
            ev(5, "turn/end", {{"turn": 0, "reason": {{"kind": "completed"}}}}),
            ev(6, "turn/start", {{"turn": 1, "trigger": "user"}}),
            ev(7, "user/message", user_msg("second")),
            ev(8, "step/start", {{"turn": 1, "step": 0}}),
            ev(9, "assistant/message", assistant_data("calling", 1, 0, [("k1", "bash"), ("k2", "grep")])),
            ev(10, "tool/call", {{"turn": 1, "step": 0, "callId": "k1", "name": "bash", "arguments": ""}}),
        ]
        store.append("crash", done)
        await store.flush()
        print("READY", flush=True)
        while True:
            await asyncio.sleep(1)

    asyncio.run(main())
    """
)


async def test_kill_9_mid_turn_then_repair_on_load(tmp_path: Path) -> None:
    data = tmp_path / "data"
    script = CHILD.format(repo=str(REPO), data=str(data))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, cwd=REPO
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    assert line.decode().strip() == "READY"
    os.kill(proc.pid, signal.SIGKILL)
    assert await asyncio.wait_for(proc.wait(), 10) == -signal.SIGKILL

    store = SqliteStore.in_dir(data)
    await store.open()
    got = await store.header("crash")
    assert got is not None and got.last_seq == 10 and got.open_turn_start == 6
    before = await store.events("crash")
    assert [e.seq for e in before] == list(range(11))
    assert before[3].data["message"]["content"][0]["text"] == "answer"
    repaired = repair_events(await store.events("crash", got.open_turn_start))
    assert [(e.type, (e.data.get("error") or {}).get("code")) for e in repaired] == [
        ("tool/result", OUTCOME_UNKNOWN),
        ("tool/result", NOT_STARTED),
        ("step/end", None),
        ("turn/end", None),
    ]
    assert all(e.time == before[-1].time for e in repaired)
    store.append("crash", repaired)
    await store.close()
    conn = sqlite3.connect(data / DB_FILE)
    rows = conn.execute("SELECT seq, type FROM events WHERE session_id = 'crash' ORDER BY seq").fetchall()
    assert [r[0] for r in rows] == list(range(15)) and rows[-1][1] == "turn/end"
    assert conn.execute("SELECT end_seq FROM turns WHERE session_id = 'crash' AND turn = 1").fetchone() == (
        14,
    )
    conn.close()


async def test_repair_events_append_cleanly_after_reload(store: SqliteStore) -> None:
    store.register(header("s"))
    store.append(
        "s",
        [ev(0, "turn/start", {"turn": 0, "trigger": "user"}), ev(1, "step/start", {"turn": 0, "step": 0})],
    )
    got = await store.header("s")
    assert got is not None and got.open_turn_start == 0
    store.append("s", repair_events(await store.events("s", 0)))
    got = await store.header("s")
    assert got is not None and got.open_turn_start is None and got.last_seq == 3
