"""Session list and search at scale, against a small store measured in the same run.

    python bench/history_bench.py [--sessions 2000] [--events 1000000] [--repeat 20] [--json FILE]
                                  [--keep DIR]

`--keep DIR` writes the two stores under DIR once (named by their size) and reuses them on the
next run: writing the big store takes minutes, measuring it seconds. Without it they are written
to a temporary directory and removed.

Two stores are written through the engine's store (the same SQLite schema, FTS5 index and
writer thread the app uses): a big one (`--sessions` sessions holding `--events` events in
all, ten per turn, each turn a user question and an answer made of words drawn from a fixed
vocabulary) and a small one (20 sessions, 1/100 of the events). Both are closed (flushed) and
reopened cold, then `session.list` and `session.search` (a common word, a rare word, two
words, a word that matches nothing) go through the whole stack: InProcessApiClient → fetch
handler → engine → SQLite. Prints median milliseconds and big/small ratios; the goals are a
search over 1M events under 100 ms and a list of 2,000 sessions that stays usable. No assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contract.events import SessionEvent
from host.api import open_host
from host.engine.store import SessionHeader
from host.fetch.inprocess import InProcessApiClient

EVENTS_PER_TURN = 10
WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu function class module import "
    "return value error test build deploy server client stream socket buffer cache index query table"
).split()
QUERIES = {
    "common word": "function",
    "rare word": "zanzibar",
    "two words": "socket buffer",
    "no match": "qwxyzzy",
}
RARE_EVERY = 5000
"""One user question in this many mentions the rare word."""


def turn_events(base: int, turn: int, rng: random.Random, rare: bool) -> list[SessionEvent]:
    def ev(offset: int, etype: str, data: dict[str, Any], **extra: Any) -> SessionEvent:
        # model_construct: these events are valid by construction, and validating a million of
        # them would cost the writer thread CPU time on a 2-core machine
        fields = {"surface_op": None, "source_event_seqs": None, **extra}
        return SessionEvent.model_construct(
            type=etype, seq=base + offset, time=1_700_000_000_000 + base, data=data, **fields
        )

    question = " ".join(rng.choices(WORDS, k=8)) + (" zanzibar" if rare else "")
    answer_text = " ".join(rng.choices(WORDS, k=30))
    chunk = {"turn": turn, "step": 0, "chunk": {"type": "text-delta", "index": 0, "text": answer_text[:40]}}
    user = {
        "id": f"u{turn}",
        "role": "user",
        "content": [{"type": "text", "text": question}],
        "source": {"kind": "user", "rpcId": "r"},
    }
    answer = {
        "id": f"a{turn}",
        "role": "assistant",
        "content": [{"type": "text", "text": answer_text}],
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


async def write_store(data_dir: Path, sessions: int, events: int) -> float:
    """Writes the sessions through the engine's store; returns the seconds it took."""
    started = time.perf_counter()
    runtime = await open_host(data_dir, dev_validate=False)
    store = runtime.engine.parts.store
    rng = random.Random(17)
    turns = max(1, events // EVENTS_PER_TURN // sessions)
    counter = 0
    for s in range(sessions):
        sid = f"s{s:05d}"
        store.register(SessionHeader(id=sid, created_at=1_700_000_000_000 + s, cwd="/tmp"))
        batch: list[SessionEvent] = []
        for turn in range(turns):
            counter += 1
            batch += turn_events(turn * EVENTS_PER_TURN, turn, rng, counter % RARE_EVERY == 0)
            if len(batch) >= 5000:
                store.append(sid, batch)
                batch = []
        if batch:
            store.append(sid, batch)
        if s % 20 == 19:  # keep the writer's queue (and memory) bounded, and each flush short
            await store.flush()  # enough for the store's 30 s bound on a loaded machine
    await runtime.close()
    return time.perf_counter() - started


async def timed(
    client: InProcessApiClient, method: str, payload: dict[str, Any], repeat: int
) -> tuple[float, float, Any]:
    """(median wall ms, median CPU ms of this process: the store's thread included, other
    people's load mostly not), the last value."""
    samples, cpu = [], []
    value: Any = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        answer = await client.call(method, payload)
        samples.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert answer.ok, answer.result
        value = answer.result.value
    return statistics.median(samples) * 1000, statistics.median(cpu) * 1000, value


async def measure_store(data_dir: Path, repeat: int) -> dict[str, Any]:
    runtime = await open_host(data_dir, dev_validate=False)  # cold: a fresh host on the closed file
    client = InProcessApiClient(runtime.app)
    try:
        out: dict[str, Any] = {}
        ms, cpu_ms, value = await timed(client, "session.list", {}, repeat)
        out["list"] = {"ms": ms, "cpu_ms": cpu_ms, "items": len(value.items)}
        for label, query in QUERIES.items():
            ms, cpu_ms, value = await timed(client, "session.search", {"query": query}, repeat)
            out[f"search {label}"] = {"ms": ms, "cpu_ms": cpu_ms, "items": len(value.items)}
        return out
    finally:
        await runtime.close()


DONE = "bench-store-complete"


def finished(data_dir: Path) -> bool:
    """Whether a complete store is there; an unfinished one (interrupted) is removed."""
    if (data_dir / DONE).exists():
        return True
    shutil.rmtree(data_dir, ignore_errors=True)
    return False


async def ready_store(data_dir: Path, sessions: int, events: int) -> float | None:
    """Write the store unless a finished one is already there; the seconds writing took."""
    if finished(data_dir):
        return None
    seconds = await write_store(data_dir, sessions, events)
    (data_dir / DONE).write_text(f"{seconds:.1f}\n", encoding="utf-8")
    return seconds


async def run(sessions: int, events: int, repeat: int, keep: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="history-bench-") as tmp:
        root = keep if keep is not None else Path(tmp)
        small_sessions, small_events = 20, max(1000, events // 100)
        big = root / f"big-{sessions}-{events}"
        small = root / f"small-{small_sessions}-{small_events}"
        write_s = await ready_store(big, sessions, events)
        await ready_store(small, small_sessions, small_events)
        small_figures = await measure_store(small, repeat)
        big_figures = await measure_store(big, repeat)
    rows = {
        key: {
            "small_ms": small_figures[key]["ms"],
            "big_ms": big_figures[key]["ms"],
            "big_cpu_ms": big_figures[key]["cpu_ms"],
            "items": big_figures[key]["items"],
        }
        for key in big_figures
    }
    for row in rows.values():
        row["ratio"] = row["big_ms"] / row["small_ms"] if row["small_ms"] > 0 else None
    return {
        "big": {"sessions": sessions, "events": events},
        "small": {"sessions": small_sessions, "events": small_events},
        "write_s": write_s,
        "rows": rows,
        "search_max_ms": max(r["big_ms"] for k, r in rows.items() if k.startswith("search")),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--keep", type=Path, help="write the stores here once and reuse them")
    args = parser.parse_args()
    figures = asyncio.run(run(args.sessions, args.events, args.repeat, args.keep))
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    big, small = figures["big"], figures["small"]
    write_s = figures["write_s"]
    written = "big store reused" if write_s is None else f"big store written in {write_s:.0f} s"
    print(f"history at scale, median of {args.repeat} calls (load {load}); {written}")
    head_big = f"{big['sessions']:,} s. / {big['events']:,} ev."
    head_small = f"{small['sessions']} s. / {small['events']:,} ev."
    print(f"{'call':24}{head_small:>22}{head_big:>26}{'ratio':>8}{'items':>7}{'big CPU':>11}")
    for key, row in figures["rows"].items():
        ratio = f"{row['ratio']:8.2f}" if row["ratio"] is not None else f"{'n/a':>8}"
        cpu = f"{row['big_cpu_ms']:9.2f}ms"
        print(f"{key:24}{row['small_ms']:20.2f}ms{row['big_ms']:24.2f}ms{ratio}{row['items']:7d}{cpu}")
    print(f"slowest search over the big store: {figures['search_max_ms']:.1f} ms (goal < 100 ms)")
    print(f"list of {big['sessions']:,} sessions: {figures['rows']['list']['big_ms']:.1f} ms (goal < 100 ms)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
