"""Remote host: the first token and a 20,000-delta burst through the SSH forward, against the same
host locally, in one run (docs/decisions.md, "Remote hosts").

    sudo python bench/remote_bench.py [--n 20000] [--runs 5] [--first 9] [--trips 101] [--json FILE]

A real OpenSSH server on loopback with a user of its own (tests/support/sshd.py; root is needed
to make the user), the scripted OpenAI-compatible provider in a process of its own, and one local
host (this process) reached by the in-process client, as the window reaches it. Two sessions on
the same provider: one of this host, one of the remote host (its server installed there, reached
through the Unix-socket forward of the ssh master and relayed by this host). Per run, alternated:
- first token: from `session.prompt` to the first `assistant/chunk` frame of that session on the
  mux, for a short answer;
- burst: from `session.prompt` to that session's `turn/end` on the mux, for N deltas of 4
  characters; the joined text is checked against what the provider sent (every character, in
  order).
What the forward adds to a first token (`first_token_added_runs`, the goal's pairs): a first token
makes two trips through it, the prompt out and its first chunk back, so the figure is a request
and its answer (`session.history` of one message) to the remote session against the same request
to a local one, back to back in this process's one clock, 101 pairs in alternating order. It used
to be the difference of two whole first-token times, which also holds the remote engine's own
loop, a process of its own: pairs from -213 to +687 ms at one load. Both are printed beside it,
the whole times and the first token's own two trips in the machine's wall clock (sent here →
the `user/message` stamp of the session's host, the first chunk's stamp → read here), and so is
each burst chunk's trip (stamped by its host → read here: what the forward adds per token).
Also reported: the burst's throughput ratio remote/local (1.0: the SSH forward costs nothing;
above 1.0 the remote engine, a process of its own, ran beside this one), per pair
(`throughput_ratios`). The goals read the pairs (docs/decisions/baseline-on-both-sides.md). No
assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from contract.methods import (
    REMOTE_ADD,
    REMOTE_CONNECT,
    REMOTE_DISCONNECT,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_PROMPT,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHUNK = 4
MODEL = "scripted-small"
SHORT = "the first token arrives"


def provider_child() -> int:
    """Child mode: serve scripted replies; each stdin line `N` queues one reply of N deltas."""
    from tests.support.scripted_llm import Reply, ScriptedLlmServer

    with ScriptedLlmServer() as server:
        print(server.base_url, flush=True)
        for line in sys.stdin:
            n, tag = line.split()
            text = SHORT if n == "0" else "abcd" * int(n)
            server.enqueue(Reply(text=text, chunk_size=CHUNK, when=tag))  # auto titles get the default
            print("queued", flush=True)  # the parent prompts only once the reply waits here
    return 0


class Provider:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--provider-child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()

    def queue(self, n: int, tag: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{n} {tag}\n")
        self.proc.stdin.flush()
        assert self.proc.stdout is not None
        said = self.proc.stdout.readline().strip()  # bounded by the child: it answers each line
        if said != "queued":
            raise RuntimeError(f"the scripted provider did not queue the reply: {said!r}")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(10)


async def one_turn(client: Any, frames: Any, sid: str, provider: Provider, n: int) -> dict[str, Any]:
    """One prompt in a fresh session `sid`: seconds to the first chunk and to the turn's end, and
    whether the text is whole."""
    tag = f"turn-{sid}"
    provider.queue(n, tag)
    start = len(frames.items)
    began = time.perf_counter()
    sent_ms = time.time() * 1000  # the wall clock: the remote host's stamps are on the same machine
    content = [{"type": "text", "text": tag}]
    answer = await client.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    assert answer.result.ok, answer.result
    accepted = time.perf_counter() - began
    first = None
    prompt_leg: float | None = None
    token_legs: list[float] = []
    text: list[str] = []
    while True:
        await frames.wait_more(start)
        for arrived_ms, frame in frames.items[start:]:
            start += 1
            if getattr(frame, "session_id", None) != sid or frame.type != "session/event":
                continue
            event = frame.event
            if event.type == "user/message" and prompt_leg is None:
                prompt_leg = event.time - sent_ms  # prompt sent here → stamped by the session's host
            if event.type == "assistant/chunk":
                token_legs.append(arrived_ms - event.time)  # stamped there → read here
                if first is None:
                    first = time.perf_counter() - began
                chunk = event.data["chunk"]
                if chunk.get("type") == "text-delta":
                    text.append(chunk["text"])
            elif event.type == "turn/end":
                wanted = SHORT if n == 0 else "abcd" * n
                if "".join(text) != wanted or event.data["reason"] != {"kind": "completed"}:
                    said = "".join(text)
                    print(f"  incomplete: {event.data['reason']} {len(said)} of {len(wanted)}: {said[:60]!r}")
                return {
                    "accepted_s": accepted,
                    "first_s": first,
                    "prompt_leg_ms": prompt_leg,
                    "token_legs_ms": token_legs,
                    "end_s": time.perf_counter() - began,
                    "complete": "".join(text) == wanted and event.data["reason"] == {"kind": "completed"},
                }


class Collected:
    """A stream read in the background; `wait_more(i)` waits until it holds more than i items."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.items: list[Any] = []
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        await self.stream.open()
        self.task = asyncio.create_task(self.pump())

    async def pump(self) -> None:
        async for _, frame in self.stream:
            self.items.append((time.time() * 1000, frame))  # when it was read, in the hosts' clock
            self.changed.set()

    async def wait_more(self, seen: int) -> None:
        while len(self.items) <= seen:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 120)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        await self.stream.aclose()


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from host.api import open_host
    from host.engine.llm.overrides import RuntimeOverrides
    from host.fetch import InProcessApiClient
    from tests.support.sshd import Sshd

    root = Path(tempfile.mkdtemp(prefix="remote-bench-", dir="/var/tmp"))
    provider = Provider()
    try:
        with Sshd.start(root / "sshd") as sshd:
            sshd.trust()
            os.environ["HOME"] = str(sshd.client_home)
            overrides = RuntimeOverrides(
                provider="openai-compatible", base_url=provider.base_url, model=MODEL
            )
            runtime = await open_host(root / "data", overrides)
            client = InProcessApiClient(runtime.app)
            frames = Collected(client.stream("events.mux"))
            await frames.open()
            try:
                added = await client.call(REMOTE_ADD, {"target": sshd.target})
                host_id = added.result.value.host_id
                began = time.perf_counter()
                connected = await client.call(REMOTE_CONNECT, {"hostId": host_id})
                assert connected.result.ok, connected.result
                bootstrap_s = time.perf_counter() - began
                work = root / "work"
                work.mkdir()
                where = {"local": {"cwd": str(work)}, "remote": {"hostId": host_id, "cwd": str(sshd.home)}}

                async def turn(kind: str, n: int) -> dict[str, Any]:
                    made = await client.call(SESSION_CREATE, where[kind])
                    return await one_turn(client, frames, made.result.value.session_id, provider, n)

                for kind in ("local", "remote"):  # warm both paths once
                    await turn(kind, 0)
                first: dict[str, list[float]] = {"local": [], "remote": []}
                accepted: dict[str, list[float]] = {"local": [], "remote": []}
                legs: dict[str, list[float]] = {"local": [], "remote": []}
                for i in range(args.first):
                    for kind in ("local", "remote") if i % 2 == 0 else ("remote", "local"):
                        run = await turn(kind, 0)
                        first[kind].append(run["first_s"] * 1000)
                        accepted[kind].append(run["accepted_s"] * 1000)
                        legs[kind].append(run["prompt_leg_ms"] + run["token_legs_ms"][0])
                # a request through the forward and its answer back, against the same request to
                # this host, pair by pair in this process's one clock: the two trips a first token
                # makes through the forward (the prompt out, its first chunk back)
                probe = {
                    kind: (await client.call(SESSION_CREATE, where[kind])).result.value.session_id
                    for kind in ("local", "remote")
                }
                trip: dict[str, list[float]] = {"local": [], "remote": []}
                for i in range(args.trips + 1):  # the first pair warms both paths, not counted
                    for kind in ("local", "remote") if i % 2 == 0 else ("remote", "local"):
                        began = time.perf_counter()
                        one = {"sessionId": probe[kind], "maxMessages": 1}
                        read = await client.call(SESSION_HISTORY, one)
                        assert read.result.ok, read.result
                        if i:
                            trip[kind].append((time.perf_counter() - began) * 1000)
                burst: dict[str, list[dict[str, Any]]] = {"local": [], "remote": []}
                for i in range(args.runs):
                    for kind in ("local", "remote") if i % 2 == 0 else ("remote", "local"):
                        burst[kind].append(await turn(kind, args.n))
                        print(f"  burst {kind} run {i + 1}: {burst[kind][-1]['end_s']:.3f} s", flush=True)
                await client.call(REMOTE_DISCONNECT, {"hostId": host_id})
            finally:
                await frames.close()
                await client.aclose()
                await runtime.close()
    finally:
        provider.close()
        shutil.rmtree(root, ignore_errors=True)
    end = {k: statistics.median(r["end_s"] for r in v) for k, v in burst.items()}
    first_ms = {k: statistics.median(v) for k, v in first.items()}
    per_token = {k: statistics.median(ms for r in v for ms in r["token_legs_ms"]) for k, v in burst.items()}
    return {
        "n": args.n,
        "runs": args.runs,
        "bootstrap_s": round(bootstrap_s, 2),
        "first_token_ms": {k: round(v, 2) for k, v in first_ms.items()},
        "first_token_ms_difference": round(first_ms["remote"] - first_ms["local"], 2),
        "forward_legs_ms": {k: round(statistics.median(v), 2) for k, v in legs.items()},
        "token_leg_ms_in_burst": {k: round(v, 2) for k, v in per_token.items()},
        "prompt_accepted_ms": {k: round(statistics.median(v), 2) for k, v in accepted.items()},
        "burst_s": {k: round(v, 3) for k, v in end.items()},
        "deltas_per_s": {k: round(args.n / v) for k, v in end.items()},
        "throughput_ratio": round(end["local"] / end["remote"], 3),
        # per run, the pair measured back to back (bench/README.md: goals read the runs): what the
        # forward adds to a request and its answer, the two trips of a first token
        "first_token_added_runs": [
            round(r - loc, 2) for r, loc in zip(trip["remote"], trip["local"], strict=True)
        ],
        "round_trip_ms": {k: round(statistics.median(v), 2) for k, v in trip.items()},
        "first_token_legs_added_runs": [
            round(r - loc, 2) for r, loc in zip(legs["remote"], legs["local"], strict=True)
        ],
        "first_token_whole_difference_runs": [
            round(r - loc, 2) for r, loc in zip(first["remote"], first["local"], strict=True)
        ],
        "throughput_ratios": [
            round(loc["end_s"] / r["end_s"], 3)
            for r, loc in zip(burst["remote"], burst["local"], strict=True)
        ],
        "complete": all(r["complete"] for v in burst.values() for r in v),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20_000, help="deltas in the burst")
    parser.add_argument("--runs", type=int, default=5, help="bursts per kind")
    parser.add_argument("--first", type=int, default=9, help="first-token runs per kind")
    parser.add_argument("--trips", type=int, default=101, help="request round trips per kind")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--provider-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.provider_child:
        return provider_child()
    from tests.support.sshd import sshd_available

    present, why = sshd_available()
    if not present:
        figures: dict[str, Any] = {"skipped": why}
        print(f"remote bench skipped: {why}")
    else:
        os.environ.setdefault("HARNESSDESK_SANDBOX", "none")
        figures = asyncio.run(measure(args))
        first, burst, rate = figures["first_token_ms"], figures["burst_s"], figures["deltas_per_s"]
        legs, trip = figures["forward_legs_ms"], figures["round_trip_ms"]
        added = statistics.median(figures["first_token_added_runs"])
        print(
            f"bootstrap {figures['bootstrap_s']} s · first token local {first['local']} ms,"
            f" remote {first['remote']} ms (difference {figures['first_token_ms_difference']} ms)"
        )
        print(
            f"a request and its answer (session.history): local {trip['local']} ms,"
            f" remote {trip['remote']} ms;"
            f" added by the forward, median of {len(figures['first_token_added_runs'])} pairs: {added:.2f} ms"
        )
        print(
            f"first token's own trips (prompt → stamped by its host, first chunk stamped → read here):"
            f" local {legs['local']} ms, remote {legs['remote']} ms;"
            f" per pair: {figures['first_token_legs_added_runs']}"
        )
        print(f"a burst chunk, stamped by its host → read here (median): {figures['token_leg_ms_in_burst']}")
        print(
            f"burst of {args.n}: local {burst['local']} s ({rate['local']}/s),"
            f" remote {burst['remote']} s ({rate['remote']}/s);"
            f" remote/local {figures['throughput_ratio']}; every character in order: {figures['complete']}"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
