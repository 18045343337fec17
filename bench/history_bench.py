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
handler → engine → SQLite. Each call is timed to the last byte of its answer (the envelope as
the page receives it: not the bench's own parsing — the typed client's validation of 2,000
summaries into models cost more than the host's answer — which is printed beside it as "typed").
Each call is paired with its primitive on the same file, alternated call by call: the list's
SELECT on a plain `sqlite3` connection (all rows fetched), and the store's search function (its
FTS5 MATCH and row filter, host/engine/store/search.py) on that connection. Prints median
milliseconds, big/small ratios and the app/primitive ratios the goals are stated in (the median
of the pairs; for search, the slowest query's; bench/README.md).
No assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contract.methods import SESSION_LIST, SESSION_SEARCH, AnyMethod

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contract.events import SessionEvent
from host.api import open_host
from host.engine.store import SessionHeader
from host.engine.store.search import search as store_search
from host.engine.store.sqlite_store import DB_FILE
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
LIST_SQL = (
    "SELECT id, created_at, COALESCE(last_activity, created_at) AS updated, cwd, parent_session,"
    " agent_preset, title, blank, origin FROM sessions ORDER BY updated DESC, id"
)
"""The list's statement (host/engine/store/schema.py, `read_sessions`): the primitive it is timed
against."""
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


async def last_byte(client: InProcessApiClient, method: AnyMethod, payload: dict[str, Any]) -> bytes:
    """The host's answer to `method`, read to its last byte (the envelope as the page gets it)."""
    envelope = {"type": "client-request", "rpcId": "bench", "method": method.key, "payload": payload}
    headers = {"content-type": "application/json", "accept": "application/json"}
    response = await client.do_fetch("POST", f"/api/{method.key}", headers, json.dumps(envelope).encode())
    try:
        return await response.read()
    finally:
        await response.aclose()


async def timed(
    client: InProcessApiClient,
    method: AnyMethod,
    payload: dict[str, Any],
    repeat: int,
    primitive: Callable[[], object],
) -> tuple[list[float], list[float], list[float], list[float], Any]:
    """The call's wall ms to the answer's last byte, its CPU ms in this process (the store's
    thread included, other people's load mostly not), the same call through the typed client
    (which also validates the whole answer into models: this bench's own work, printed beside)
    and its primitive's wall ms, `repeat` times alternated; the last value."""
    samples, cpu, typed, raw = [], [], [], []
    value: Any = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        body = await last_byte(client, method, payload)
        samples.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        result = json.loads(body)["result"]
        assert result["ok"], result
        t0 = time.perf_counter()
        answer = await client.call(method, payload)
        typed.append((time.perf_counter() - t0) * 1000)
        assert answer.ok, answer.result
        value = answer.result.value
        assert len(value.items) == len(result["value"]["items"])
        t0 = time.perf_counter()
        primitive()
        raw.append((time.perf_counter() - t0) * 1000)
    return samples, cpu, typed, raw, value


async def measure_store(data_dir: Path, repeat: int) -> dict[str, Any]:
    runtime = await open_host(data_dir, dev_validate=False)  # cold: a fresh host on the closed file
    client = InProcessApiClient(runtime.app)
    conn = sqlite3.connect(f"file:{data_dir / DB_FILE}?mode=ro", uri=True)
    try:
        out: dict[str, Any] = {}

        def row(
            samples: list[float], cpu: list[float], typed: list[float], raw: list[float], items: int
        ) -> dict[str, Any]:
            return {
                "ms": statistics.median(samples),
                "cpu_ms": statistics.median(cpu),
                "typed_ms": statistics.median(typed),
                "sqlite_ms": statistics.median(raw),
                "ratios_vs_sqlite": [round(a / b, 3) for a, b in zip(samples, raw, strict=True) if b > 0],
                "items": items,
            }

        samples, cpu, typed, raw, value = await timed(
            client, SESSION_LIST, {}, repeat, lambda: conn.execute(LIST_SQL).fetchall()
        )
        out["list"] = row(samples, cpu, typed, raw, len(value.items))
        for label, query in QUERIES.items():
            samples, cpu, typed, raw, value = await timed(
                client, SESSION_SEARCH, {"query": query}, repeat, lambda q=query: store_search(conn, q)
            )
            out[f"search {label}"] = row(samples, cpu, typed, raw, len(value.items))
        return out
    finally:
        conn.close()
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
            "big_typed_ms": big_figures[key]["typed_ms"],
            "sqlite_ms": big_figures[key]["sqlite_ms"],
            "ratios_vs_sqlite": big_figures[key]["ratios_vs_sqlite"],
            "vs_sqlite": statistics.median(big_figures[key]["ratios_vs_sqlite"]),
            "items": big_figures[key]["items"],
        }
        for key in big_figures
    }
    for row in rows.values():
        row["ratio"] = row["big_ms"] / row["small_ms"] if row["small_ms"] > 0 else None
    searches = {k: r for k, r in rows.items() if k.startswith("search")}
    worst = max(searches, key=lambda k: searches[k]["big_ms"])  # the slowest query, as a person waits
    return {
        "search_worst": {"query": worst, "ratios_vs_sqlite": searches[worst]["ratios_vs_sqlite"]},
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
    print(
        f"{'call':24}{head_small:>22}{head_big:>26}{'ratio':>8}{'items':>7}{'big CPU':>11}"
        f"{'typed':>11}{'sqlite':>10}{'/sqlite':>9}"
    )
    for key, row in figures["rows"].items():
        ratio = f"{row['ratio']:8.2f}" if row["ratio"] is not None else f"{'n/a':>8}"
        cpu = f"{row['big_cpu_ms']:9.2f}ms"
        print(
            f"{key:24}{row['small_ms']:20.2f}ms{row['big_ms']:24.2f}ms{ratio}{row['items']:7d}{cpu}"
            f"{row['big_typed_ms']:9.2f}ms{row['sqlite_ms']:8.2f}ms{row['vs_sqlite']:9.2f}"
        )
    print("each call is timed to its answer's last byte (the host's work, as the page receives it);")
    print("typed = the same call through the typed client, which also validates the answer into models;")
    print("sqlite = the primitive on a plain connection, alternated with each call over the big store;")
    print("/sqlite = the median of the pairs' ratios (goals: list ≤ 10x, the slowest search ≤ 3x)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
