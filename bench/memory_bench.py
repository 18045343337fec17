"""Host memory per turn: what a long session costs the host in RSS, and whether closed sessions
give it back (docs/decisions.md "Crash windows", memory).

    python bench/memory_bench.py [--turns 1000] [--warmup 100] [--sessions 50] [--json FILE]

A real `harnessdesk serve` (a child process, a real SQLite file) on the scripted
OpenAI-compatible provider on loopback (tests/support/scripted_llm.py, its default short reply).
One session runs `--warmup` turns, more while the host's start-up integrity check and first
backup (a minute after start) are not done, then `--turns` measured short turns, one after
another (prompt → its `turn/end` on the mux); the host's RSS is read from /proc/<pid>/status
every 50 turns. KB/turn is the least-squares slope of RSS over the measured turns (goal ≤ 10).
Then `--sessions` sessions are opened (one turn each) and closed (deleted), and RSS is read
again: "comes back" compares it with the RSS before them (goal: within 2 MB, what the allocator
may keep). No assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from host.fetch import HttpApiClient  # noqa: E402
from tests.api.support import Frames, ok  # noqa: E402
from tests.support.scripted_llm import ScriptedLlmServer  # noqa: E402

LISTENING = re.compile(r"HarnessDesk listening on (http://127\.0\.0\.1:\d+)/\?token=(\S+)")
SAMPLE_EVERY = 50
BACK_MB = 2.0


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def backed_up(data: Path) -> bool:
    """The host's start-up integrity check and first backup (a minute after start) are done:
    a one-time ~3 MB (a worker thread's malloc arena, SQLite's copy), not a cost per turn."""
    return any(p.suffix == ".sqlite3" for p in (data / "backups").glob("*"))


def slope(points: list[tuple[int, int]]) -> float:
    """Least-squares slope of (turn, KB) points: KB per turn."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    num = sum((x - mx) * (y - my) for x, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return num / den if den else 0.0


def start_host(data: Path, work: Path, base_url: str) -> tuple[subprocess.Popen[str], str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("HARNESSDESK_API_KEY", "HARNESSDESK_DEV_VALIDATE")
    }
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", "serve", "--data-dir", str(data), "--port", "0",
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
    await ok(client, "session.prompt", {"sessionId": sid, "mode": "queue", "content": content})
    await mux.next(
        lambda f: (
            getattr(f, "type", "") == "session/event" and f.session_id == sid and f.event.type == "turn/end"
        ),
        within=60,
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as tmp, ScriptedLlmServer() as llm:
        data, work = Path(tmp) / "data", Path(tmp) / "work"
        work.mkdir()
        proc, url, token = start_host(data, work, llm.base_url)
        try:
            async with HttpApiClient(url, token) as client:
                async with Frames(client.stream("events.mux")) as mux:
                    sid = (await ok(client, "session.create", {"cwd": str(work)})).session_id
                    samples: list[tuple[int, int]] = [(0, rss_kb(proc.pid))]
                    started = time.monotonic()
                    warmup, n = args.warmup, 0
                    while n < warmup + args.turns:
                        n += 1
                        await one_turn(client, mux, sid, n)
                        mux.items.clear()  # the bench's own reader keeps nothing either
                        mux.cursor = 0
                        if n == warmup and not backed_up(data):
                            warmup += SAMPLE_EVERY  # the start-up check and backup are warm-up too
                        if n % SAMPLE_EVERY == 0:
                            samples.append((n, rss_kb(proc.pid)))
                            print(f"turn {n}: RSS {samples[-1][1] / 1024:.1f} MB", flush=True)
                    seconds = time.monotonic() - started
                    after_turns = rss_kb(proc.pid)
                    for n in range(args.sessions):
                        other = (await ok(client, "session.create", {"cwd": str(work)})).session_id
                        await one_turn(client, mux, other, n)
                        mux.items.clear()
                        mux.cursor = 0
                        await ok(client, "session.delete", {"sessionId": other})
                    await asyncio.sleep(1.0)  # let the closed sessions' last writes settle
                    after_sessions = rss_kb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(30)
    warm = [p for p in samples if p[0] >= warmup]
    per_turn = slope(warm)
    figures = {
        "turns": args.turns,
        "warmup": warmup,
        "kb_per_turn": round(per_turn, 2),
        "rss_mb": {str(t): round(kb / 1024, 1) for t, kb in samples},
        "turns_per_s": round(n / seconds, 1),
        "sessions": args.sessions,
        "rss_after_turns_mb": round(after_turns / 1024, 1),
        "rss_after_sessions_mb": round(after_sessions / 1024, 1),
        "sessions_kept_mb": round((after_sessions - after_turns) / 1024, 1),
        "comes_back": (after_sessions - after_turns) / 1024 <= BACK_MB,
    }
    print(f"RSS over {args.turns} turns after {warmup} warm-up: {per_turn:.2f} KB/turn (goal ≤ 10)")
    print(
        f"{args.sessions} sessions opened and closed:"
        f" {after_turns / 1024:.1f} → {after_sessions / 1024:.1f} MB"
        f" ({'comes back' if figures['comes_back'] else 'kept'}; goal within {BACK_MB:g} MB)"
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    figures = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
