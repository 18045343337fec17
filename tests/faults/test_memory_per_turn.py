"""What a turn leaves alive in the host (docs/decisions.md "Crash windows", memory): counted
objects, never time or RSS (bench/memory_bench.py measures RSS). After many short turns of one
session, the frames sent to a subscriber are not kept beyond the stream encoding cache's bound,
and the conversation's surface is the only thing that grows with the turns."""

from __future__ import annotations

import gc
from collections import Counter
from pathlib import Path

from contract.frames import SessionEventFrame
from contract.methods import SESSION_PROMPT
from host.fetch.streams import WIRE_CACHE_SIZE
from tests.api.conftest import open_test_host
from tests.api.support import Frames, ok
from tests.support.scripted_llm import ScriptedLlmServer

TURNS = 60


async def one_turn(client: object, mux: Frames, sid: str, n: int) -> None:
    content = [{"type": "text", "text": f"turn {n}"}]
    await ok(client, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})  # type: ignore[arg-type]
    await mux.next(
        lambda f: (
            getattr(f, "type", "") == "session/event" and f.session_id == sid and f.event.type == "turn/end"
        )
    )
    mux.items.clear()  # the test's own reader keeps nothing
    mux.cursor = 0


def alive() -> Counter[str]:
    gc.collect()
    return Counter(type(o).__qualname__ for o in gc.get_objects())


async def test_many_turns_keep_no_frames_beyond_the_cache(
    tmp_path: Path, scripted_llm: ScriptedLlmServer
) -> None:
    host = await open_test_host("http", tmp_path, scripted_llm.base_url)
    try:
        client = host.client()
        mux = await host.mux(client)
        sid = await host.create()
        for n in range(10):  # warm-up
            await one_turn(client, mux, sid, n)
        before = alive()
        for n in range(TURNS):
            await one_turn(client, mux, sid, n)
        after = alive()
        # this session's frames (earlier tests in the process may have left frames of their own)
        frames = sum(1 for o in gc.get_objects() if isinstance(o, SessionEventFrame) and o.session_id == sid)
        # ~14 event frames a turn went out: only the cache's recent ones may stay alive
        assert frames <= WIRE_CACHE_SIZE, frames
        grown = after["SessionEventFrame"] - before["SessionEventFrame"]
        assert grown <= WIRE_CACHE_SIZE // 2, grown
        # the surface: a user and an assistant message per turn, and nothing else per message
        assert 2 * TURNS <= after["Message"] - before["Message"] <= 2 * TURNS + 4
    finally:
        await host.close()
    scripted_llm.reset()  # its recorded requests are the test's, not the host's
