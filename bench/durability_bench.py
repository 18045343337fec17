"""Chunk latency with and without "durable before visible", against a baseline in the same run.

    python bench/durability_bench.py [--chunks 1500] [--rate 500] [--rounds 2]

A scripted OpenAI-compatible provider (tests/support/scripted_llm.py) streams `--chunks` text
deltas at `--rate` per second, each carrying its wall-clock send time. Latency of a chunk = when
an SSE reader has parsed it minus when the provider sent it. Three ways, alternated `--rounds` times:
- raw: the reader consumes the provider's own stream (the floor: loopback + parsing);
- ungated: a real host (uvicorn on loopback, a real SQLite file, a child process) that shows
  each frame as soon as its event is appended — how the host worked before;
- gated: the same host as shipped: a frame is shown only once its event is committed.
Prints p50/p95/p99/max per way, the ratios to raw, and the p99 the gate adds (goal ≤ 30 ms):
the difference between the two hosts, pooled and per round, and — steadier on a shared, noisy
machine, where two runs differ by more than the gate — how long each chunk's frame was held
for its commit inside the gated host (publish → shown), timed in that host.
No assertions: timings vary by machine and load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from contract.methods import SESSION_CREATE, SESSION_PROMPT

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from host.fetch import HttpApiClient  # noqa: E402
from tests.support.scripted_llm import Reply, ScriptedLlmServer  # noqa: E402

CHILD = """
import asyncio, json, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from desktop.paths import webui_dir
from host.api import open_host
from host.engine.llm.overrides import RuntimeOverrides
from host.server import build_site
from host.server.binding import bind_socket
from host.server.run import LoopbackServer

def time_holds(bus, out):
    # How long each chunk's frame waited for its commit (publish -> released), written at turn/end.
    held, publish = [], bus.publish

    def timed(channel, frame, rpc_id=None, *, after=None, then=None):
        kind = getattr(getattr(frame, "event", None), "type", "")
        start, inner = time.perf_counter(), then

        def shown():
            if kind == "assistant/chunk":
                held.append((time.perf_counter() - start) * 1000)
            elif kind == "turn/end":
                out.write_text(json.dumps(held))
            if inner is not None:
                inner()

        return publish(channel, frame, rpc_id, after=after, then=shown if kind else then)

    bus.publish = timed

async def main():
    overrides = RuntimeOverrides(provider="openai-compatible", base_url={base_url!r}, model="m")
    runtime = await open_host(Path({data!r}), overrides, dev_validate=False)
    runtime.engine.parts.bus.gate = {gate!r}
    time_holds(runtime.engine.parts.bus, Path({data!r}) / "held.json")
    site = build_site(runtime.app, webui_dir(), token={token!r}, peers=runtime.peers)
    server = LoopbackServer(site, bind_socket("127.0.0.1", 0))
    print(server.port, flush=True)
    try:
        await server.serve()
    finally:
        await runtime.close()

asyncio.run(main())
"""
TOKEN = "bench-token-0123456789abcdef"


STAMP = re.compile(r"<(\d+)>")


def stamp_latencies_ms(text: str, now_ns: int) -> list[float]:
    """The latency of each stamp in `text` (the host merges stamps that arrive in a burst into
    one chunk, docs/decisions.md "Coalescing deltas": each is as late as the chunk carrying it)."""
    return [(now_ns - int(stamp)) / 1e6 for stamp in STAMP.findall(text)]


async def sse_data(response: httpx.Response) -> Any:
    """Yield the parsed JSON of each `data:` line (a minimal reader, the same for every way)."""
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            payload = line[6:]
            if payload == "[DONE]":
                return
            yield json.loads(payload)


async def measure_raw(llm: ScriptedLlmServer, chunks: int, rate: float) -> list[float]:
    llm.enqueue(Reply(stamps=chunks, delay=1 / rate))
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
    lat: list[float] = []
    async with httpx.AsyncClient(timeout=60) as client:
        async with client.stream("POST", f"{llm.base_url}/chat/completions", json=body) as response:
            async for data in sse_data(response):
                for choice in data.get("choices", []):
                    content = (choice.get("delta") or {}).get("content") or ""
                    lat += stamp_latencies_ms(content, time.time_ns())
    return lat


async def measure_host(
    llm: ScriptedLlmServer, chunks: int, rate: float, gate: bool
) -> tuple[list[float], list[float]]:
    """(latency per chunk, ms; how long each chunk's frame was held for its commit, ms)."""
    with tempfile.TemporaryDirectory() as tmp:
        script = CHILD.format(root=str(ROOT), base_url=llm.base_url, data=tmp, gate=gate, token=TOKEN)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE
        )
        try:
            assert proc.stdout is not None
            port = int(await proc.stdout.readline())
            latencies = await _drive(f"http://127.0.0.1:{port}", llm, chunks, rate)
            return latencies, json.loads((Path(tmp) / "held.json").read_text())
        finally:
            proc.terminate()
            await asyncio.wait_for(proc.wait(), 20)


async def _drive(base: str, llm: ScriptedLlmServer, chunks: int, rate: float) -> list[float]:
    api = HttpApiClient(base, TOKEN)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    lat: list[float] = []
    try:
        created = await api.call(SESSION_CREATE, {"cwd": os.getcwd()})
        sid = created.result.value.session_id
        llm.enqueue(Reply(stamps=chunks, delay=1 / rate))
        async with httpx.AsyncClient(timeout=None) as client:
            async with client.stream("GET", f"{base}/api/events.mux", headers=headers) as response:
                prompt = {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": "go"}]}
                answer = await api.call(SESSION_PROMPT, prompt)
                assert answer.ok, answer
                async for data in sse_data(response):
                    frame = data.get("payload") or {}
                    event = frame.get("event") or {}
                    if event.get("type") == "assistant/chunk":
                        chunk = event["data"]["chunk"]
                        lat += stamp_latencies_ms(chunk.get("text") or "", time.time_ns())
                    elif event.get("type") == "turn/end":
                        break
    finally:
        await api.aclose()
    return lat


def quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def q(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]

    return {"n": len(ordered), "p50": q(0.5), "p95": q(0.95), "p99": q(0.99), "max": ordered[-1]}


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, list[float]] = {"raw": [], "ungated": [], "gated": []}
    per_round: list[float] = []
    held: list[float] = []
    with ScriptedLlmServer() as llm:
        for i in range(args.rounds):
            results["raw"] += await measure_raw(llm, args.chunks, args.rate)
            # Alternate which host runs first: load that drifts during a round hits both alike.
            order = (False, True) if i % 2 == 0 else (True, False)
            got = {gate: await measure_host(llm, args.chunks, args.rate, gate=gate) for gate in order}
            results["ungated"] += got[False][0]
            results["gated"] += got[True][0]
            held += got[True][1]
            per_round.append(quantiles(got[True][0])["p99"] - quantiles(got[False][0])["p99"])
    figures = {way: quantiles(values) for way, values in results.items()}
    print(f"chunk latency, ms ({args.chunks} chunks at {args.rate:g}/s, {args.rounds} rounds)")
    print(f"{'way':9} {'n':>6} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8} {'p99/raw':>8}")
    raw99 = max(figures["raw"]["p99"], 0.001)
    for way, f in figures.items():
        print(
            f"{way:9} {f['n']:6d} {f['p50']:8.2f} {f['p95']:8.2f} {f['p99']:8.2f} {f['max']:8.2f}"
            f" {f['p99'] / raw99:8.1f}"
        )
    added = {q: figures["gated"][q] - figures["ungated"][q] for q in ("p50", "p99")}
    goal = "met" if added["p99"] <= 30 else "NOT met"
    print(f"added by the durability gate: p50 {added['p50']:+.2f} ms, p99 {added['p99']:+.2f} ms", end="")
    print(f" (goal ≤ 30: {goal})")
    h = quantiles(held)
    goal = "met" if h["p99"] <= 30 else "NOT met"
    print(
        f"held for the commit (gated, per chunk): p50 {h['p50']:.2f}, p95 {h['p95']:.2f},"
        f" p99 {h['p99']:.2f}, max {h['max']:.2f} ms (the gate's own delay; goal p99 ≤ 30: {goal})"
    )
    rounds = ", ".join(f"{a:+.1f}" for a in per_round)
    print(f"p99 added per round: {rounds} (median {statistics.median(per_round):+.2f} ms)")
    print(f"gated/ungated p99 ratio: {figures['gated']['p99'] / max(figures['ungated']['p99'], 0.001):.2f}")
    means = {way: statistics.fmean(values) for way, values in results.items()}
    print("mean: " + ", ".join(f"{way} {m:.2f} ms" for way, m in means.items()))
    return {"figures": figures, "added": added, "per_round": per_round, "held": h, "means": means}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=1500)
    parser.add_argument("--rate", type=float, default=500.0, help="chunks per second")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    result = asyncio.run(measure(args))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
