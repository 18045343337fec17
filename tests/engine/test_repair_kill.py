"""kill -9 of a host driving a real agent turn (scripted model, real tools), then repair on load."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from pathlib import Path
from typing import Any

from contract.sessions import TextInput
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.scripted_llm import Reply

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from contract.sessions import TextInput
    from host.engine.llm.overrides import RuntimeOverrides
    from host.engine.engine import Engine
    from tests.support.engine import agent_of, wait_quiet

    async def main():
        overrides = RuntimeOverrides(provider="openai-compatible", base_url={base_url!r}, model="m")
        engine = await Engine.open(Path({data!r}), overrides=overrides)
        mux = engine.host.subscribe_mux()
        sid = await engine.sessions.create_session({cwd!r})
        await engine.agents.prompt(sid, "queue", [TextInput(text="first")], "r1")
        await wait_quiet(agent_of(engine, sid))
        await engine.agents.prompt(sid, "queue", [TextInput(text="second")], "r2")
        while True:
            item = await mux.get()
            if item[1].type == "approval/requested":
                break
        await engine.parts.store.flush()
        print("READY", sid, agent_of(engine, sid).journal.last_seq, flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


async def test_kill_9_during_a_tool_call_then_repair(
    engine_factory: Any, scripted_llm: Any, tmp_path: Path
) -> None:
    calls = [("k1", "bash", '{"command": "echo never"}'), ("k2", "read_file", '{"path": "x.txt"}')]
    scripted_llm.enqueue(Reply(text="first answer"), Reply(text="working on it", tool_calls=calls))
    data = tmp_path / "data"
    script = CHILD.format(repo=str(REPO), base_url=scripted_llm.base_url, data=str(data), cwd=str(tmp_path))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, cwd=REPO
    )
    assert proc.stdout is not None
    line = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode().split()
    assert line[0] == "READY"
    sid, last_seq = line[1], int(line[2])
    os.kill(proc.pid, signal.SIGKILL)
    assert await asyncio.wait_for(proc.wait(), 10) == -signal.SIGKILL

    engine = await engine_factory(data)
    events, _, _ = await engine.sessions.history(sid, max_messages=100)
    real = [e for e in events if e.seq <= last_seq]
    assert [e.seq for e in real] == list(range(last_seq + 1))  # everything flushed survived
    assert real[-1].type == "approval/asked"
    assert [e.data["reason"]["kind"] for e in real if e.type == "turn/end"] == ["completed"]
    first_answer = next(e for e in real if e.type == "assistant/message")
    assert first_answer.data["message"]["content"][0]["text"] == "first answer"
    repaired = [e for e in events if e.seq > last_seq]
    assert [(e.type, (e.data.get("error") or {}).get("code")) for e in repaired] == [
        ("tool/result", "TOOL_OUTCOME_UNKNOWN"),
        ("tool/result", "TOOL_NOT_STARTED"),
        ("step/end", None),
        ("turn/end", None),
    ]
    assert repaired[-1].data == {"turn": 1, "reason": {"kind": "interrupted"}}
    assert engine.agents.attached() == []
    # a new prompt resumes the session: the repair is written, the next turn continues the log
    scripted_llm.enqueue(Reply(text="recovered"))
    mux = engine.host.subscribe_mux()
    await engine.agents.prompt(sid, "queue", [TextInput(text="third")], "r3")
    frames = await frames_until(mux, is_event("turn/end", turn=2))
    after = events_of(frames)
    assert after[0].seq == last_seq + 1 and after[3].type == "turn/end"
    assert next(e for e in after if e.type == "turn/start").data == {"turn": 2, "trigger": "user"}
    sent = scripted_llm.requests[-1]["messages"]
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "user", "assistant", "tool", "tool", "user"]
