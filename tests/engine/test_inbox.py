"""The durable inbox: splices rebuild both lists, queued input survives kill -9 and runs after
a restart, forks and imports start with nothing pending."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from pathlib import Path
from typing import Any

from contract.content import Message, MessageSource, TextBlock
from contract.sessions import TextInput
from host.engine.sessions.inbox import InboxLists, replay
from host.engine.store import ExportEvent, ExportHeader
from tests.engine.conftest import ev, frames_until, is_event
from tests.support.engine import agent_of, queued, wait_quiet
from tests.support.scripted_llm import Reply

REPO = Path(__file__).resolve().parents[2]
Factory = Any


def msg(mid: str, kind: str = "user") -> Message:
    return Message(id=mid, role="user", content=[TextBlock(text=mid)], source=MessageSource(kind=kind))


def test_replaying_the_splices_rebuilds_both_lists_and_a_fork_seed_starts_empty() -> None:
    live = InboxLists()
    news = [
        live.append("next-turn", msg("a")),
        live.append("next-turn", msg("b")),
        live.append("next-step", msg("s")),
        live.append("next-step", msg("c", kind="plugin")),
        live.splice("next-turn", 0, 1),  # a claim
        live.splice(
            "next-turn", 0, 1, [msg("b").model_copy(update={"content": [TextBlock(text="B")]})]
        ),  # edit
        live.splice("next-step", 0, 1, canceled=True),
    ]
    log = [new.stamp(seq, 1) for seq, new in enumerate(news)]
    rebuilt = replay(log)
    assert [m.id for m in rebuilt.next_turn] == ["b"] and rebuilt.next_turn[0].content[0].text == "B"  # type: ignore[union-attr]
    assert [(i.id, i.placement) for i in rebuilt.items()] == [("b", "queued"), ("c", "context")]
    assert rebuilt.items() == live.items()
    assert log[4].data == {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []}
    assert log[6].data["outcome"] == "canceled"
    assert not replay([*log, ev(7, "session/end-seed")])
    # a damaged splice is clamped, never a crash
    odd = replay(
        [ev(0, "agent/inbox/spliced", {"target": "next-turn", "start": 9, "removedCount": 5, "inserted": []})]
    )
    assert not odd


CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from contract.sessions import TextInput
    from host.engine.llm.overrides import RuntimeOverrides
    from host.engine.engine import Engine

    async def main():
        overrides = RuntimeOverrides(provider="openai-compatible", base_url={base_url!r}, model="m")
        engine = await Engine.open(Path({data!r}), overrides=overrides, tools={{}})
        mux = engine.host.subscribe_mux()
        sid = await engine.sessions.create_session({cwd!r})
        await engine.agents.prompt(sid, "queue", [TextInput(text="first")], "r1")
        while True:
            item = (await mux.get())[1]
            if item.type == "session/event" and item.event.type == "assistant/chunk":
                break
        await engine.agents.prompt(sid, "queue", [TextInput(text="two")], "r2")
        await engine.agents.prompt(sid, "queue", [TextInput(text="three")], "r3")
        await engine.parts.store.flush()
        print("READY", sid, flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


async def test_kill_9_with_two_queued_items_then_a_restart_runs_both(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    scripted_llm.enqueue(
        Reply(text="interrupted " * 40, hang_after=2), Reply(text="two done"), Reply(text="three done")
    )
    data = tmp_path / "data"
    script = CHILD.format(repo=str(REPO), base_url=scripted_llm.base_url, data=str(data), cwd=str(tmp_path))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, cwd=REPO
    )
    assert proc.stdout is not None
    line = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode().split()
    assert line[0] == "READY"
    sid = line[1]
    os.kill(proc.pid, signal.SIGKILL)
    assert await asyncio.wait_for(proc.wait(), 10) == -signal.SIGKILL

    engine = await engine_factory(data, tools={})  # the restart resumes the session by itself
    agent = agent_of(engine, sid)
    await wait_quiet(agent, within=60)
    log, _, _ = await engine.sessions.history(sid, max_messages=100)
    starts = [e.data for e in log if e.type == "turn/start"]
    ends = [e.data["reason"]["kind"] for e in log if e.type == "turn/end"]
    users = [e.data["content"][0]["text"] for e in log if e.type == "user/message"]
    assert starts == [
        {"turn": 0, "trigger": "user"},
        {"turn": 1, "trigger": "queue"},
        {"turn": 2, "trigger": "queue"},
    ]
    assert ends == ["interrupted", "completed", "completed"] and users == ["first", "two", "three"]
    assert [m["content"] for m in scripted_llm.requests[-1]["messages"] if m["role"] == "user"] == [
        "first",
        "two",
        "three",
    ]
    assert queued(engine, sid) == []


async def test_a_fork_and_an_import_start_with_nothing_pending(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    scripted_llm.enqueue(Reply(text="one"), Reply(text="slow " * 40, hang_after=2))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session(str(tmp_path))
    await engine.agents.prompt(sid, "queue", [TextInput(text="first")], "r1")
    await frames_until(mux, is_event("turn/end", turn=0))
    await engine.agents.prompt(sid, "queue", [TextInput(text="second")], "r2")
    await frames_until(mux, is_event("assistant/chunk", turn=1))
    waiting = await engine.agents.prompt(sid, "queue", [TextInput(text="waiting")], "r3")
    assert [i.id for i in queued(engine, sid)] == [waiting]
    child = await engine.sessions.fork(sid)
    assert queued(engine, child) == [] and (await engine.agents.attach(child)).input.inbox.items() == []
    # an archive whose inbox still holds input: imported, that input is canceled, never run
    rows: list[Any] = [row async for row in engine.sessions.export_rows(sid)]
    header = rows[0].json.replace(sid, "imported-1")
    events = [ExportEvent(r.json) for r in rows if isinstance(r, ExportEvent)]
    await engine.agents.cancel(sid, clear_queue=True)
    await wait_quiet(agent_of(engine, sid))
    imported = await engine.sessions.import_rows([ExportHeader(header), *events], str(tmp_path))
    log, _, _ = await engine.sessions.history(imported, max_messages=1000)
    dropped = [e for e in log if e.type == "agent/inbox/spliced" and e.data.get("outcome") == "canceled"]
    splices = [e.seq for e in log if e.type == "agent/inbox/spliced"]
    assert dropped and dropped[-1].seq == max(splices) == len(events)  # appended after the archive
    assert (await engine.agents.attach(imported)).input.inbox.items() == []
