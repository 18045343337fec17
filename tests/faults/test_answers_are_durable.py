"""An answer never gets ahead of the disk: an accepted prompt, a rename, a fork, an "Allow
always" rule and the queue a late client is shown are committed before the client hears of
them (durable before visible). The writer thread is held inside a read to make "queued but not
yet committed" last as long as the test needs — no timing is assumed."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from contract.frames import SessionProjection
from contract.permissions import PERMISSIONS_KEY
from contract.sessions import TextInput
from host.engine.agent.agent import Agent
from host.engine.engine import Engine
from tests.engine.conftest import frames_until, is_event
from tests.support.scripted_llm import Reply

WAIT = 30.0


def rows(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """What a separate connection sees: exactly what is committed."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def spliced_texts(db: Path, session_id: str) -> list[str]:
    found = rows(
        db, "SELECT json FROM events WHERE session_id = ? AND type = 'agent/inbox/spliced'", session_id
    )
    return [json.dumps(json.loads(r[0])["data"]) for r in found]


@asynccontextmanager
async def writer_held(engine: Engine) -> AsyncIterator[asyncio.Future[Any]]:
    """Keep the store's writer thread busy until the block ends; yields the held read."""
    entered, release = threading.Event(), threading.Event()

    def hold(_conn: sqlite3.Connection) -> None:
        entered.set()
        release.wait(WAIT)

    held = asyncio.ensure_future(engine.parts.store.call(hold))
    assert await asyncio.to_thread(entered.wait, WAIT)
    try:
        yield held
    finally:
        release.set()
        await asyncio.wait_for(held, WAIT)


@dataclass
class Attached:
    engine: Engine
    mux: Any
    sid: str
    agent: Agent
    db: Path


@pytest.fixture
async def attached(engine_factory: Any, scripted_llm: Any) -> Attached:
    """A session after one turn: its agent is loaded, so a prompt needs no read first."""
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    scripted_llm.enqueue(Reply(text="answer 0"))
    await engine.agents.prompt(sid, "queue", [TextInput(text="warm up")], "w0")
    await frames_until(mux, is_event("turn/end", turn=0), WAIT)
    agent = engine.parts.pool.get(sid)
    assert agent is not None
    return Attached(engine, mux, sid, agent, engine.parts.store.path)


async def test_an_accepted_prompt_is_on_disk_when_the_answer_comes(
    attached: Attached, scripted_llm: Any
) -> None:
    engine, sid, db = attached.engine, attached.sid, attached.db
    scripted_llm.enqueue(Reply(text="later"))
    async with writer_held(engine):
        answer = asyncio.ensure_future(engine.agents.prompt(sid, "queue", [TextInput(text="keep me")], "r1"))
        await asyncio.sleep(0.2)  # room for a premature answer (its absence is what is checked)
        assert not answer.done()  # the answer waits for the commit, not the other way round
        assert not any("keep me" in t for t in spliced_texts(db, sid))
    item = await asyncio.wait_for(answer, WAIT)
    assert any("keep me" in t and item in t for t in spliced_texts(db, sid))  # committed first


async def test_a_rename_and_a_fork_are_committed_before_they_are_answered(attached: Attached) -> None:
    engine, sid, db = attached.engine, attached.sid, attached.db
    host = engine.host.subscribe_host()
    title, seq = await engine.sessions.rename(sid, "Kept title")
    assert attached.agent.journal.visible_seq >= seq  # its frame is out, so its commit is done
    stored = rows(db, "SELECT type FROM events WHERE session_id = ? AND seq = ?", sid, seq)
    assert title == "Kept title" and stored == [("session/title",)]

    child = await engine.sessions.fork(sid)
    added = await frames_until(host, lambda f: f.type == "host/session-added" and f.session_id == child, WAIT)
    assert added[-1].parent_session_id == sid
    seeded = rows(db, "SELECT type FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 2", child)
    assert ("session/end-seed",) in seeded  # the seed was on disk when the child was announced
    assert rows(db, "SELECT preset FROM session_policies WHERE session_id = ?", child)


async def test_an_allow_always_rule_is_shown_only_once_it_is_on_disk(attached: Attached) -> None:
    engine, mux, sid, db, agent = attached.engine, attached.mux, attached.sid, attached.db, attached.agent
    while mux.get_nowait() is not None:
        pass

    def rule_frames() -> list[SessionProjection]:
        out = []
        while (item := mux.get_nowait()) is not None:
            frame = item[1]
            if isinstance(frame, SessionProjection) and frame.key == PERMISSIONS_KEY:
                out.append(frame)
        return out

    async with writer_held(engine):
        engine.parts.permissions.grant(agent.policy, "bash", "words:npm test")
        assert rule_frames() == []  # queued, not committed: not shown
        assert rows(db, "SELECT tool FROM grants WHERE session_id = ?", sid) == []
    await engine.parts.store.flush()
    shown = rule_frames()
    assert shown and [r["scope"] for r in shown[-1].value["rules"]] == ["words:npm test"]
    granted = rows(db, "SELECT tool, scope FROM grants WHERE session_id = ?", sid)
    assert granted == [("bash", "words:npm test")]

    async with writer_held(engine):
        revoking = asyncio.ensure_future(engine.parts.permissions.revoke(sid, "bash", "words:npm test"))
        await asyncio.sleep(0.2)
        assert not revoking.done() and rule_frames() == []
    assert await asyncio.wait_for(revoking, WAIT)
    assert rows(db, "SELECT tool FROM grants WHERE session_id = ?", sid) == []
    assert rule_frames()[-1].value["rules"] == []


def texts(items: list[Any]) -> list[str]:
    return [block.text for item in items for block in item.message.content if block.type == "text"]


def queued_texts(frames: list[Any], sid: str) -> list[list[str]]:
    """The texts of each `session/queue` frame of `sid`, in order."""
    queues = [f for f in frames if getattr(f, "type", None) == "session/queue" and f.session_id == sid]
    return [texts(f.items) for f in queues]


async def test_a_late_client_is_shown_only_the_committed_queue(attached: Attached, scripted_llm: Any) -> None:
    engine, mux, sid, agent = attached.engine, attached.mux, attached.sid, attached.agent
    scripted_llm.enqueue(Reply(text="busy " * 4, hang_after=1))  # a turn that keeps running
    await engine.agents.prompt(sid, "queue", [TextInput(text="keep busy")], "r-busy")
    await frames_until(mux, is_event("assistant/chunk", turn=1), WAIT)
    async with writer_held(engine):
        answer = asyncio.ensure_future(engine.agents.prompt(sid, "queue", [TextInput(text="not yet")], "r2"))
        for _ in range(int(WAIT / 0.01)):  # the prompt is queued in memory, its splice not committed
            if "not yet" in texts(agent.input.queue_items()):
                break
            await asyncio.sleep(0.01)
        late = engine.host.subscribe_mux()
        snapshot = []
        while (item := late.get_nowait()) is not None:
            snapshot.append(item[1])
        assert queued_texts(snapshot, sid) == [[]]  # committed state only: no "not yet"
        assert not answer.done()
    await asyncio.wait_for(answer, WAIT)
    shown = await frames_until(late, lambda f: ["not yet"] in queued_texts([f], sid), WAIT)
    assert queued_texts(shown, sid)[-1] == ["not yet"]  # shown once it is on disk
    assert any("not yet" in t for t in spliced_texts(attached.db, sid))
    late.close()
    assert agent.cancel(clear_queue=True)
