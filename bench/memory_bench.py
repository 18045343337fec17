"""Host memory per turn: what a long session and many sessions cost the host in RSS, where the
growth comes in steps, and whether closed sessions give it back (issue 48, goal 4).

    python bench/memory_bench.py [--turns 2000] [--warmup 100] [--sessions 50] [--session-turns 40]
                                 [--warm-sessions 10] [--trace SNAPSHOT] [--json FILE]

A real `harnessdesk serve` (a child process, a real SQLite file) on the scripted
OpenAI-compatible provider on loopback (tests/support/scripted_llm.py, its default short reply).
One session runs `--turns` short turns, one after another (prompt → its `turn/end` on the mux);
the host's RSS is read from /proc/<pid>/status every 10 turns. KB/turn is the least-squares slope
of RSS from turn `--warmup` to the last (goal ≤ 10, and flat). Then `--sessions` more sessions of
`--session-turns` turns each, kept open, RSS read after each: the same slope across them. The
jumps of at least 512 KB between two samples are listed as steps, with the turn they came at and
whether the host's first backup (a minute after start, a one-time cost) fell in that interval.
Last, the sessions are closed (deleted) and RSS is read again: "comes back" compares it with the
RSS before them (goal: within 2 MB, what the allocator may keep). No assertions.

"Before them" is after `--warm-sessions` sessions of the same size were run and closed: what the
host's first sessions fill once (validators built on first use, bounded caches) is not memory
closed sessions keep (docs/decisions/closed-session-memory.md). The RSS before the warm-up is
printed and kept in the figures too. The bench never forces a collection in the host.

RSS alone cannot tell what the host still holds from what glibc's malloc keeps of freed memory
(free chunks in its arenas, a thread's arena among them, are not given back to the system). So the
host runs under this script (`--as-host`, the same `python -m desktop serve` plus a SIGUSR1
handler) and the bench reads its allocator's own figures (mallinfo2) beside each RSS reading of
the close: "in use" is what the host's live allocations take, "free but kept" is what malloc holds
for reuse. The goal row stays on RSS; these say which of the two kept it.

For finding causes, not for the row: `MEMORY_BENCH_GARBAGE=1` makes each allocator probe also say
what a full collection would free (objects, by type) and Python's blocks after it; `--trace FILE`
tracemallocs the host (10 frames) from just before the measured sessions to after their close and
prints the live blocks left, grouped by traceback (slow: use fewer sessions).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import itertools
import json
import os
import re
import runpy
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from contract.methods import SESSION_CREATE, SESSION_DELETE, SESSION_PROMPT

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from host.fetch import HttpApiClient  # noqa: E402
from tests.api.support import Frames, ok  # noqa: E402
from tests.support.scripted_llm import ScriptedLlmServer  # noqa: E402

LISTENING = re.compile(r"HarnessDesk listening on (http://127\.0\.0\.1:\d+)/\?token=(\S+)")
SAMPLE_EVERY = 10
STEP_KB = 512
"""A jump between two samples at least this big is reported as a step."""
BACK_MB = 2.0


PROBE_FLAG = "--as-host"
PROBE_ENV = "MEMORY_BENCH_PROBE"
"""The file the host under `--as-host` writes its allocator figures to on SIGUSR1."""
TRACE_ENV = "MEMORY_BENCH_TRACE"
"""With `--trace`: the file the host writes a tracemalloc snapshot to on its second SIGUSR2 (the
first starts tracing)."""
TRACE_FRAMES = 10
GARBAGE_ENV = "MEMORY_BENCH_GARBAGE"


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split())
    ]


def allocator_kb() -> dict[str, int]:
    """glibc's mallinfo2 of this process (all arenas), in KB: `in_use` the live allocations
    (mmap'd blocks included), `free_kept` the freed memory malloc keeps in its arenas."""
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    return {
        "in_use": (info.uordblks + info.hblkhd) // 1024,
        "free_kept": info.fordblks // 1024,
        "from_system": (info.arena + info.hblkhd) // 1024,
        **pymalloc_kb(),
    }


def pymalloc_kb() -> dict[str, int]:
    """Python's own small-object allocator (its 1 MiB arenas are mmap'd, outside malloc's
    figures): `py_blocks` the live objects' blocks, `py_arenas` the arenas it holds. Read from
    sys._debugmallocstats, which writes to fd 2 only."""
    read, write = os.pipe()
    saved = os.dup(2)
    try:
        os.dup2(write, 2)
        os.close(write)
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    with os.fdopen(read, encoding="utf-8", errors="replace") as pipe:
        text = pipe.read()  # the writer's ends are closed: read to its end
    figures = {}
    for key, label in (("py_blocks", "bytes in allocated blocks"), ("py_arenas", "arenas allocated current")):
        match = re.search(rf"# {label}\s*=\s*([\d,]+)", text)
        if match:
            value = int(match.group(1).replace(",", ""))
            figures[key] = value // 1024 if key == "py_blocks" else value * 1024  # arenas: 1 MiB each
    return figures


def rss_parts_kb(pid: int) -> dict[str, int]:
    """RSS by kind of mapping (from /proc/<pid>/smaps): malloc's main heap, anonymous maps
    (thread arenas, Python's arenas, stacks), the SQLite files, other files (code)."""
    parts = {"heap": 0, "anonymous": 0, "sqlite_files": 0, "other_files": 0}
    kind = "anonymous"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and not head[0].endswith(":"):
            name = head[5] if len(head) > 5 else ""
            if name == "[heap]":
                kind = "heap"
            elif name.startswith("/"):
                sqlite = ".sqlite" in name or name.endswith(("-wal", "-shm"))
                kind = "sqlite_files" if sqlite else "other_files"
            else:
                kind = "anonymous"
        elif head and head[0] == "Rss:":
            parts[kind] += int(head[1])
    return parts


def as_host(argv: list[str]) -> None:
    """`python -m desktop <argv>` in this process, answering SIGUSR1 with `allocator_kb()`
    written (atomically) to $MEMORY_BENCH_PROBE."""
    target = Path(os.environ[PROBE_ENV])

    def probe(_signum: int, _frame: object) -> None:
        import gc
        from collections import Counter

        figures: dict[str, Any] = allocator_kb()
        if os.environ.get(GARBAGE_ENV):
            # what a full collection would free now: cyclic garbage still waiting for it
            gc.set_debug(gc.DEBUG_SAVEALL)
            found = gc.collect()
            kinds = Counter(type(o).__qualname__ for o in gc.garbage)
            gc.garbage.clear()
            gc.set_debug(0)
            gc.collect()
            after = allocator_kb()
            figures["garbage_objects"] = found
            figures["py_blocks_after_gc"] = after.get("py_blocks", 0)
            figures["garbage_kinds"] = kinds.most_common(15)
            figures["gc_counts"] = list(gc.get_count())
        part = target.with_suffix(".part")
        part.write_text(json.dumps(figures), encoding="utf-8")
        os.replace(part, target)

    signal.signal(signal.SIGUSR1, probe)
    trace = os.environ.get(TRACE_ENV)
    if trace:

        def snapshot(_signum: int, _frame: object) -> None:
            import gc
            import tracemalloc

            if not tracemalloc.is_tracing():
                gc.collect()
                tracemalloc.start(TRACE_FRAMES)
                Path(trace).with_suffix(".started").write_text("1", encoding="utf-8")
                return
            gc.collect()
            part = Path(trace).with_suffix(".part")
            tracemalloc.take_snapshot().dump(str(part))
            tracemalloc.stop()
            os.replace(part, trace)

        signal.signal(signal.SIGUSR2, snapshot)
    sys.argv = ["desktop", *argv]
    runpy.run_module("desktop", run_name="__main__", alter_sys=True)


def read_probe(pid: int, target: Path) -> dict[str, Any]:
    """The host's allocator figures, asked for now (bounded: 30 s)."""
    parts = rss_parts_kb(pid)  # before the probe's own allocations
    signal_and_wait(pid, signal.SIGUSR1, target, 30, "the allocator probe")
    return {**parts, **json.loads(target.read_text(encoding="utf-8"))}


def ask_trace(pid: int, answer: Path) -> None:
    """SIGUSR2 to the host (`--trace`): start tracing, or dump the snapshot; wait for `answer`."""
    signal_and_wait(pid, signal.SIGUSR2, answer, 300, "the trace request")


def signal_and_wait(pid: int, sig: signal.Signals, answer: Path, bound_s: float, what: str) -> None:
    """Send `sig` to the host and wait (at most `bound_s`) for it to write `answer`."""
    answer.unlink(missing_ok=True)
    os.kill(pid, sig)
    deadline = time.monotonic() + bound_s
    while not answer.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the host did not answer {what}")
        time.sleep(0.05)


def trace_report(snapshot: Path, top: int = 25) -> list[str]:
    """The live blocks allocated while the measured sessions ran and still held after they
    closed, grouped by their (10-frame) traceback, largest first."""
    import tracemalloc

    snap = tracemalloc.Snapshot.load(str(snapshot)).filter_traces(
        (
            tracemalloc.Filter(False, tracemalloc.__file__),
            tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
        )
    )
    stats = snap.statistics("traceback")
    total = sum(s.size for s in stats)
    blocks = sum(s.count for s in stats)
    lines = [f"traced and still live after the close: {total / 1024:.0f} KB in {blocks} blocks"]
    for stat in stats[:top]:
        lines.append(f"  {stat.size / 1024:8.1f} KB {stat.count:6d} blocks")
        lines.extend(f"      {frame.filename}:{frame.lineno}" for frame in reversed(stat.traceback))
    return lines


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def backed_up(data: Path) -> bool:
    """The host's start-up integrity check and first backup (a minute after start) are done:
    a one-time ~3 MB (a worker thread's malloc arena, SQLite's copy), not a cost per turn; the
    bench notes the turn it happened at, so its step is told from the others."""
    return any(p.suffix == ".sqlite3" for p in (data / "backups").glob("*"))


def slope(points: list[tuple[int, int]]) -> float:
    """Least-squares slope of (turn, KB) points: KB per turn."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    num = sum((x - mx) * (y - my) for x, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return num / den if den else 0.0


def start_host(
    data: Path, work: Path, base_url: str, probe: Path, trace: Path | None = None
) -> tuple[subprocess.Popen[str], str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("HARNESSDESK_API_KEY", "HARNESSDESK_DEV_VALIDATE")
    }
    if trace is not None:
        env[TRACE_ENV] = str(trace)
    if os.environ.get(GARBAGE_ENV):
        env[GARBAGE_ENV] = "1"
    env["PYTHONPATH"] = str(ROOT)
    env[PROBE_ENV] = str(probe)
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), PROBE_FLAG,
         "serve", "--data-dir", str(data), "--port", "0",
         "--provider", "openai-compatible", "--base-url", base_url, "--model", "m"],
        cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    match = LISTENING.search(proc.stdout.readline())
    if match is None:
        proc.kill()
        raise RuntimeError("harnessdesk serve did not start")
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # a full pipe never blocks it
    return proc, match.group(1), match.group(2)


async def one_turn(client: HttpApiClient, mux: Frames, sid: str, n: int) -> None:
    content = [{"type": "text", "text": f"turn {n}: say something short"}]
    await ok(client, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    await mux.next(
        lambda f: (
            getattr(f, "type", "") == "session/event" and f.session_id == sid and f.event.type == "turn/end"
        ),
        within=60,
    )


def steps(
    samples: list[tuple[int, int]], backup_turn: int | None, at_least_kb: int = STEP_KB
) -> list[dict[str, Any]]:
    """The jumps of RSS between consecutive samples of at least `at_least_kb`: where the growth
    comes in steps rather than a slope (and whether the first backup was made in that interval)."""
    out = []
    for (t0, kb0), (t1, kb1) in itertools.pairwise(samples):
        if kb1 - kb0 >= at_least_kb:
            backup = backup_turn is not None and t0 < backup_turn <= t1
            out.append({"turn": t1, "mb": round((kb1 - kb0) / 1024, 2), "first_backup": backup})
    return out


def phase(samples: list[tuple[int, int]], start: int, backup_turn: int | None) -> dict[str, Any]:
    """KB/turn (least squares) from turn `start` on, the RSS at the ends and the steps."""
    kept = [p for p in samples if p[0] >= start]
    jumps = steps(kept, backup_turn)
    return {
        "from_turn": kept[0][0],
        "to_turn": kept[-1][0],
        "kb_per_turn": round(slope(kept), 2),
        "rss_start_mb": round(kept[0][1] / 1024, 1),
        "rss_end_mb": round(kept[-1][1] / 1024, 1),
        "steps": jumps,
        "in_steps_mb": round(sum(j["mb"] for j in jumps), 1),
        "samples": [[t, round(kb / 1024, 2)] for t, kb in samples],
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as tmp, ScriptedLlmServer() as llm:
        data, work = Path(tmp) / "data", Path(tmp) / "work"
        work.mkdir()
        probe = Path(tmp) / "allocator.json"
        proc, url, token = start_host(data, work, llm.base_url, probe, args.trace)
        backup_turn: int | None = None
        started = time.monotonic()
        try:
            async with HttpApiClient(url, token) as client:
                async with Frames(client.stream("events.mux")) as mux:

                    async def turn(sid: str, n: int) -> None:
                        await one_turn(client, mux, sid, n)
                        mux.items.clear()  # the bench's own reader keeps nothing either
                        mux.cursor = 0

                    sid = (await ok(client, SESSION_CREATE, {"cwd": str(work)})).session_id
                    one: list[tuple[int, int]] = [(0, rss_kb(proc.pid))]
                    for n in range(1, args.turns + 1):
                        await turn(sid, n)
                        if backup_turn is None and backed_up(data):
                            backup_turn = n
                        if n % SAMPLE_EVERY == 0:
                            one.append((n, rss_kb(proc.pid)))
                        if n % 500 == 0:
                            print(f"turn {n}: RSS {one[-1][1] / 1024:.1f} MB", flush=True)
                    # warm-up: sessions opened, run and closed before the measured ones, so what
                    # the first sessions of a host's life fill once is not counted as kept
                    before_warmup = rss_kb(proc.pid)
                    for _ in range(args.warm_sessions):
                        other = (await ok(client, SESSION_CREATE, {"cwd": str(work)})).session_id
                        for k in range(args.session_turns):
                            await turn(other, k)
                        await ok(client, SESSION_DELETE, {"sessionId": other})
                    await asyncio.sleep(1.0)
                    # 50 sessions of 40 turns, kept open; turns counted on from the session above
                    many: list[tuple[int, int]] = [(0, rss_kb(proc.pid))]
                    heap_before = read_probe(proc.pid, probe)
                    if args.trace:
                        ask_trace(proc.pid, args.trace.with_suffix(".started"))
                    others = []
                    for i in range(args.sessions):
                        other = (await ok(client, SESSION_CREATE, {"cwd": str(work)})).session_id
                        others.append(other)
                        for k in range(args.session_turns):
                            await turn(other, k)
                            if backup_turn is None and backed_up(data):
                                backup_turn = args.turns + i * args.session_turns + k + 1
                        many.append(((i + 1) * args.session_turns, rss_kb(proc.pid)))
                        if (i + 1) % 10 == 0:
                            print(f"session {i + 1}: RSS {many[-1][1] / 1024:.1f} MB", flush=True)
                    before_close = many[-1][1]
                    heap_open = read_probe(proc.pid, probe)
                    for other in others:
                        await ok(client, SESSION_DELETE, {"sessionId": other})
                    await asyncio.sleep(1.0)  # let the closed sessions' last writes settle
                    after_close = rss_kb(proc.pid)
                    heap_closed = read_probe(proc.pid, probe)
                    if args.trace:
                        ask_trace(proc.pid, args.trace)
        finally:
            proc.terminate()
            proc.wait(30)
    seconds = time.monotonic() - started
    total = args.turns + args.sessions * args.session_turns
    many_backup = None if backup_turn is None or backup_turn <= args.turns else backup_turn - args.turns
    figures = {
        "turns": args.turns,
        "from_turn": args.warmup,
        "first_backup_turn": backup_turn,
        "one_session": phase(one, args.warmup, backup_turn),
        "many_sessions": {
            "sessions": args.sessions,
            "turns_each": args.session_turns,
            **phase(many, 0, many_backup),
        },
        "turns_per_s": round(total / seconds, 1),
        "rss_before_close_mb": round(before_close / 1024, 1),
        "rss_after_close_mb": round(after_close / 1024, 1),
        "comes_back": (after_close - many[0][1]) / 1024 <= BACK_MB,
        "kept_after_close_mb": round((after_close - many[0][1]) / 1024, 1),
        "warm_sessions": args.warm_sessions,
        "rss_before_warmup_mb": round(before_warmup / 1024, 1),
        "allocator_mb": {
            label: {k: round(v / 1024, 2) for k, v in got.items() if isinstance(v, int)}
            for label, got in (("before", heap_before), ("open", heap_open), ("closed", heap_closed))
        },
        "kept_after_close_by_kind_mb": {
            key: round((heap_closed.get(key, 0) - heap_before.get(key, 0)) / 1024, 2)
            for key, value in heap_before.items()
            if isinstance(value, int)
        },
        "probes": {"before": heap_before, "open": heap_open, "closed": heap_closed},
    }
    for label, key in (("one session", "one_session"), (f"{args.sessions} sessions", "many_sessions")):
        got = figures[key]
        print(
            f"{label}: turns {got['from_turn']} to {got['to_turn']}:"
            f" {got['rss_start_mb']} → {got['rss_end_mb']} MB,"
            f" {got['kb_per_turn']:.2f} KB/turn (goal ≤ 10); {len(got['steps'])} steps of ≥ {STEP_KB} KB"
            f" ({got['in_steps_mb']} MB in all)"
        )
        for jump in got["steps"]:
            mark = " (the first backup was made in this interval)" if jump["first_backup"] else ""
            print(f"    step at turn {jump['turn']}: +{jump['mb']} MB{mark}")
    print(f"first backup at turn {backup_turn} (counted over both phases)")
    print(
        f"{args.sessions} sessions closed: {before_close / 1024:.1f} → {after_close / 1024:.1f} MB"
        f" against {many[0][1] / 1024:.1f} MB before them"
        f" ({'comes back' if figures['comes_back'] else 'kept'}; goal within {BACK_MB:g} MB)"
    )
    for label, got in figures["allocator_mb"].items():
        print(
            f"    {label}: malloc in use {got['in_use']:.1f} MB, free but kept {got['free_kept']:.1f} MB;"
            f" Python's blocks {got.get('py_blocks', 0):.1f} MB, arenas {got.get('py_arenas', 0):.0f} MB;"
            f" RSS heap {got['heap']:.1f}, anonymous {got['anonymous']:.1f},"
            f" SQLite files {got['sqlite_files']:.1f}, code {got['other_files']:.1f} MB"
        )
    kept = ", ".join(f"{k} {v:+.2f}" for k, v in figures["kept_after_close_by_kind_mb"].items())
    print(f"    kept after the close against before them (MB): {kept}")
    print(f"    before the {args.warm_sessions} warm-up sessions: {before_warmup / 1024:.1f} MB")
    if args.trace:
        print("\n".join(trace_report(args.trace)))
    return figures


def main() -> None:
    if sys.argv[1:2] == [PROBE_FLAG]:
        as_host(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2000, help="turns of the one long session")
    parser.add_argument("--warmup", type=int, default=100, help="the slope is measured from this turn on")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--session-turns", type=int, default=40)
    parser.add_argument(
        "--warm-sessions", type=int, default=10, help="sessions run and closed before the measured ones"
    )
    parser.add_argument(
        "--trace", type=Path, help="tracemalloc the host over the measured sessions; snapshot to this file"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    figures = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
