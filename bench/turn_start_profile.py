"""Where a turn start's CPU goes: the real host (`open_host`, in this process, driven through its
fetch app as the window's client drives it) on the scripted provider in a child process;
`--many` sessions prompted one after the other, as bench/many_bench.py prompts them, each
answering one short text. Counted, not timed: the process's CPU seconds per round (every thread:
the event loop, the store's writer, the worker threads), per thread, and a cProfile of the event
loop's thread over `--rounds` rounds (its call counts per turn, and its own-time shares).

    .venv/bin/python bench/turn_start_profile.py [--many 20] [--rounds 3] [--top 40] [--profile]
                                                 [--streamed]

Not a goal's bench (no `_bench.py`): a tool for finding the work, run by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from contract.methods import SESSION_CREATE, SESSION_PROMPT, SETTINGS_UPDATE  # noqa: E402
from host.api import open_host  # noqa: E402
from host.engine.llm.overrides import RuntimeOverrides  # noqa: E402
from host.fetch import InProcessApiClient  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from many_bench import Provider  # noqa: E402  (its provider child: its CPU is not this process's)

MODEL = "scripted-small"
ANSWER = {"text": "short answer", "chunk_size": 64}
"""One text delta per answer: the round is the turns' start and end, little streaming."""
STREAMED = {"text": "short answer " * 20, "chunk_size": 4, "delay": 0.005}
"""`--streamed`: bench/many_bench.py's first-token answer (65 deltas, 5 ms apart)."""


def thread_cpu() -> dict[str, float]:
    """CPU seconds (user + system) per live thread of this process, by Python thread name."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = names.get(int(task.name), "other")
        name = name.split("_")[0] if name.startswith("asyncio") else name
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


async def main_async(args: argparse.Namespace) -> None:
    provider = Provider()
    try:
        with tempfile.TemporaryDirectory(prefix="turn-start-") as tmp:
            work = Path(tmp) / "work"
            work.mkdir()
            base = provider.base_url
            overrides = RuntimeOverrides(provider="openai-compatible", base_url=base, model=MODEL)
            os.environ["HARNESSDESK_API_KEY"] = "bench"
            runtime = await open_host(Path(tmp) / "data", overrides, dev_validate=False)
            client = InProcessApiClient(runtime.app)
            ended: dict[str, int] = {}
            changed = asyncio.Event()

            def on_end(agent: Any, first: Any, reason: Any, answer: Any) -> None:
                ended[agent.session_id] = ended.get(agent.session_id, 0) + 1
                changed.set()

            runtime.engine.parts.pool.on_turn_ended(on_end)

            async def call(method: Any, payload: dict[str, Any]) -> Any:
                response = await client.call(method, payload)
                assert response.result.ok, response.result
                return response.result.value

            await call(SETTINGS_UPDATE, {"ns": "sessions", "patch": {"maxRunningTurns": args.many + 1}})
            sids = [(await call(SESSION_CREATE, {"cwd": str(work)})).session_id for _ in range(args.many)]

            async def round_of(batch: list[str]) -> None:
                provider.queue([STREAMED if args.streamed else ANSWER] * len(batch))
                before = {sid: ended.get(sid, 0) for sid in batch}
                content = [{"type": "text", "text": "hi"}]
                for sid in batch:
                    await call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
                while not all(ended.get(s, 0) > before[s] for s in batch):
                    changed.clear()
                    await asyncio.wait_for(changed.wait(), 60)
                await runtime.engine.parts.store.flush()
                await asyncio.sleep(0.3)  # the turns' trailing work (titles, checkpoints) is theirs

            await round_of(sids[:1])
            await round_of(sids)  # every session attached, its first turn taken
            await round_of(sids)
            profile = cProfile.Profile() if args.profile else None
            cpu0, threads0, wall0 = time.process_time(), thread_cpu(), time.perf_counter()
            if profile is not None:
                profile.enable()
            for _ in range(args.rounds):
                await round_of(sids)
            if profile is not None:
                profile.disable()
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            threads1 = thread_cpu()
            turns = args.rounds * args.many
            on = "on" if profile else "off"
            print(f"{turns} turns ({args.rounds} rounds of {args.many}); profiler {on}")
            print(f"process CPU {cpu:.3f} s: {1000 * cpu / turns:.2f} ms per turn; wall {wall:.2f} s")
            for name, seconds in sorted(threads1.items(), key=lambda kv: -kv[1]):
                spent = seconds - threads0.get(name, 0.0)
                if spent > 0:
                    print(f"  thread {name:28} {1000 * spent / turns:7.2f} ms per turn")
            if profile is not None:
                out = io.StringIO()
                stats = pstats.Stats(profile, stream=out)
                stats.sort_stats("tottime").print_stats(args.top)
                stats.sort_stats("cumulative").print_stats(args.top)
                print(out.getvalue().replace(str(ROOT) + "/", ""))
                if args.dump:
                    stats.dump_stats(args.dump)
            await client.aclose()
            await runtime.close()
    finally:
        provider.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--many", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--profile", action="store_true", help="cProfile the event loop's thread")
    parser.add_argument("--streamed", action="store_true", help="many_bench's first-token answers")
    parser.add_argument("--dump", type=Path, help="write the cProfile stats here")
    args = parser.parse_args()
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
