"""History paging cost: a 100,000-event session against a 100-event one, through the whole stack.

The sessions are written in the same run, then `session.history` pages (the tail and a page
from the middle) are fetched through InProcessApiClient → fetch handler → engine → SQLite. The
small session is the baseline: a ratio near 1 means paging is O(page), not O(session). A third
100,000-event session holds several compactions (docs/architecture.md, "Compaction"): its tail,
its middle and a page that carries a compaction (the summary and its replacement, each listing
the thousands of seqs it shadows) are timed against the same baseline.

    .venv/bin/python bench/paging_bench.py [--turns 10000] [--repeat 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from contract.methods import SESSION_HISTORY

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contract.events import SessionEvent
from host.api import open_host
from host.engine.store import SessionHeader
from host.fetch.inprocess import InProcessApiClient

PAGE_MESSAGES = 10
"""Small enough that the 100-event baseline also returns a full page, not its whole log."""
COMPACTIONS = 4


def turn_events(base: int, turn: int) -> list[SessionEvent]:
    """One completed turn of ten events: a question, a two-chunk answer and the bookkeeping."""

    def ev(offset: int, etype: str, data: dict[str, Any], **extra: Any) -> SessionEvent:
        return SessionEvent(type=etype, seq=base + offset, time=1_700_000_000_000 + base, data=data, **extra)

    chunk = {"turn": turn, "step": 0, "chunk": {"type": "text-delta", "index": 0, "text": "a"}}
    user = {
        "id": f"u{turn}",
        "role": "user",
        "content": [{"type": "text", "text": "q"}],
        "source": {"kind": "user", "rpcId": "r"},
    }
    answer = {
        "id": f"a{turn}",
        "role": "assistant",
        "content": [{"type": "text", "text": "aa"}],
        "source": {"kind": "model"},
    }
    return [
        ev(0, "turn/start", {"turn": turn, "trigger": "user"}),
        ev(1, "step/start", {"turn": turn, "step": 0}),
        ev(2, "user/message", user),
        ev(3, "assistant/chunk", chunk),
        ev(4, "assistant/chunk", chunk),
        ev(
            5,
            "assistant/message",
            {"turn": turn, "step": 0, "message": answer},
            source_event_seqs=[base + 3, base + 4],
        ),
        ev(6, "step/end", {"turn": turn, "step": 0}),
        ev(7, "todo/write", {"todos": []}),
        ev(8, "request/header", {"provider": "local", "model": "m"}),
        ev(9, "turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
    ]


def compaction_events(base: int, index: int, shadowed: list[int], turn: int) -> list[SessionEvent]:
    """One successful automatic compaction bracket (four events) replacing `shadowed`."""

    def ev(offset: int, etype: str, data: dict[str, Any], **extra: Any) -> SessionEvent:
        return SessionEvent(type=etype, seq=base + offset, time=1_700_000_000_000 + base, data=data, **extra)

    cid = f"cmp-{index}"
    summary = [{"type": "text", "text": f"- summary {index} of {len(shadowed)} messages"}]
    replacing = {
        "id": f"s{index}",
        "role": "user",
        "content": summary,
        "source": {"kind": "plugin", "plugin": "compact", "compactionId": cid},
    }
    return [
        ev(0, "compact/start", {"compactionId": cid, "turn": turn}),
        ev(
            1,
            "compact/summary",
            {
                "compactionId": cid,
                "summary": summary,
                "shadowedRange": {"start": shadowed[0], "end": shadowed[-1]},
                "shadowedSeqs": shadowed,
                "shadowedTokenCount": 2 * len(shadowed),
                "provider": "local",
                "model": "m",
                "rawOutput": summary,
                "llmStreamCall": True,
            },
        ),
        ev(
            2,
            "user/message",
            replacing,
            surface_op={"op": "replace", "start": 0, "end": len(shadowed) - 1},
            source_event_seqs=shadowed,
        ),
        ev(3, "compact/end", {"compactionId": cid, "turn": turn}),
    ]


async def write_compacted_session(store: Any, sid: str, turns: int, compactions: int) -> list[int]:
    """Like `write_session`, with a compaction of the whole surface every turns/(compactions+1)
    turns; returns the seqs of the compact/summary events."""
    store.register(SessionHeader(id=sid, created_at=int(time.time() * 1000), cwd="/tmp"))
    every = turns // (compactions + 1)
    batch: list[SessionEvent] = []
    surface: list[int] = []
    summaries: list[int] = []
    seq = 0
    for turn in range(turns):
        if turn and turn % every == 0 and len(summaries) < compactions:
            bracket = compaction_events(seq, len(summaries), surface, turn)
            batch += bracket
            summaries.append(bracket[1].seq)
            surface = [bracket[2].seq]
            seq += len(bracket)
        events = turn_events(seq, turn)
        batch += events
        surface += [seq + 2, seq + 5]
        seq += len(events)
        if len(batch) >= 5000:
            store.append(sid, batch)
            batch = []
    if batch:
        store.append(sid, batch)
    return summaries


async def write_session(store: Any, sid: str, turns: int) -> None:
    store.register(SessionHeader(id=sid, created_at=int(time.time() * 1000), cwd="/tmp"))
    batch: list[SessionEvent] = []
    for turn in range(turns):
        batch += turn_events(turn * 10, turn)
        if len(batch) >= 5000:
            store.append(sid, batch)
            batch = []
    if batch:
        store.append(sid, batch)


async def timed_pages(
    client: InProcessApiClient, pages: list[tuple[str, int | None]], repeat: int
) -> list[list[float]]:
    """Seconds per call of each (session, beforeSeq) page, the pages called in turn `repeat`
    times, so the baseline and the big session meet the same moments of a shared machine."""
    samples: list[list[float]] = [[] for _ in pages]
    for _ in range(repeat):
        for index, (sid, before) in enumerate(pages):
            payload: dict[str, Any] = {"sessionId": sid, "maxMessages": PAGE_MESSAGES}
            if before is not None:
                payload["beforeSeq"] = before
            t0 = time.perf_counter()
            answer = await client.call(SESSION_HISTORY, payload)
            samples[index].append(time.perf_counter() - t0)
            assert answer.ok and answer.result.value.events
    return samples


BLOCKS = 5
"""The calls of each page are cut into this many consecutive blocks: a ratio per block gives the
goal its runs (the median of the blocks, with their spread)."""


def block_ratios(small: list[float], big: list[float]) -> list[float]:
    """big/small of each block's medians."""
    size = max(1, len(small) // BLOCKS)
    return [
        statistics.median(big[b * size : (b + 1) * size])
        / statistics.median(small[b * size : (b + 1) * size])
        for b in range(BLOCKS)
    ]


async def main(turns: int, repeat: int, json_file: Path | None = None) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        runtime = await open_host(Path(data_dir), dev_validate=False)
        await write_session(runtime.engine.parts.store, "small", 10)
        await write_session(runtime.engine.parts.store, "big", turns)
        summaries = await write_compacted_session(runtime.engine.parts.store, "compacted", turns, COMPACTIONS)
        await runtime.close()  # flush them to disk, then page from a fresh (cold) host
        runtime = await open_host(Path(data_dir), dev_validate=False)
        client = InProcessApiClient(runtime.app)
        rows = []
        blocks: list[list[float]] = []
        cases = (
            ("tail page", "big", None, None),
            ("middle page", "big", turns * 5, 60),
            ("compacted, tail", "compacted", None, None),
            ("compacted, middle", "compacted", turns * 5, 60),
            ("compacted, summary", "compacted", summaries[1] + 30, 60),
        )
        for label, big_sid, big_before, small_before in cases:
            small, big = await timed_pages(client, [("small", small_before), (big_sid, big_before)], repeat)
            rows.append((label, statistics.median(small), statistics.median(big)))
            blocks.append(block_ratios(small, big))
        await runtime.close()
    print(f"session.history, {PAGE_MESSAGES} messages (50 events) per page, median of {repeat} calls")
    listed = turns * 2 // (COMPACTIONS + 1)
    print(f"(compacted: {COMPACTIONS} compactions, each summary listing {listed:,} seqs)")
    print(f"{'page':<20} {'100 events':>12} {f'{turns * 10:,} events':>16} {'ratio':>7}")
    for label, small_s, big_s in rows:
        print(f"{label:<20} {small_s * 1000:>10.2f}ms {big_s * 1000:>14.2f}ms {big_s / small_s:>7.2f}")
    if json_file is not None:
        pages = {label: {"small_ms": a * 1000, "big_ms": b * 1000, "ratio": b / a} for label, a, b in rows}
        figures = {
            "big_events": turns * 10,
            "compactions": COMPACTIONS,
            "pages": pages,
            "max_ratio": max(p["ratio"] for p in pages.values()),
            # the goal's runs: per block of calls, the worst page's big/small ratio
            "block_max_ratios": [round(max(case[b] for case in blocks), 4) for b in range(BLOCKS)],
        }
        json_file.write_text(json.dumps(figures, indent=1), encoding="utf-8")  # noqa: ASYNC240 - once, at the end


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000, help="turns in the big session (10 events each)")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.repeat, args.json))
