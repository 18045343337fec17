"""Relay: a burst of N deltas from a provider on loopback, raw and through the product.

    python bench/relay_bench.py [--n 5000 20000] [--runs 21 9] [--loaded 20000] [--loaded-runs 9]
                                [--burners 2] [--no-window] [--json FILE]

The provider is the scripted OpenAI-compatible server (tests/support/scripted_llm.py) in a
process of its own, streaming N deltas of 4 characters as fast as loopback allows. Per run:
- raw: this process reads the provider's stream directly (`POST /v1/chat/completions`);
- sse: `harnessdesk serve` (a subprocess) runs the turn against that provider; this process
  reads `events.mux` over loopback SSE from the prompt until the session's `turn/end`;
- bridge / window-sse (unless --no-window): the desktop app (real host, `--serve`, a bench
  page) under Xvfb; its window's page reads the turn through the fetch bridge, and a second,
  plain WebKitGTK window reads the same host's loopback SSE with `fetch` (same engine, same host).
Every reader parses each frame (one JSON parse per frame, as the web client does) and joins the
streamed text. Kinds are interleaved per run so machine load hits them alike; medians are reported. Each
round's raw figure is the mean of the raw read that opens it and the one that opens the next
(one more closes the last round), and its plain window's figure the mean of that window's reads
just before and just after the bridge's: a loaded machine's load moves within a round.
Ratios: raw/sse and raw/bridge (time of the raw read over the product's: 1.0 = wire speed),
bridge/window-sse (1.0 = the bridge is as fast as SSE in the same engine). A reader is complete
when it was not cut off (`stream/error`) and the text it joined equals what the provider sent,
every character in order; a burst reaches the product's readers as fewer `assistant/chunk` events
than deltas (merged under back-pressure, docs/decisions.md "Coalescing deltas"), so the number of
events each reader got is printed beside it, and so is the time to the first text. Then the
`--loaded` sizes run again, `--loaded-runs` rounds, with `--burners` busy-loop processes the
bench starts and stops itself (bench/load.py): the issue 48 figure. Each ratio's runs are the
rounds' pairs (the two kinds ran back to back); goals are decided on their median. No assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from contract.methods import SESSION_CREATE, SESSION_PROMPT, AnyMethod

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Burners, load_now  # noqa: E402

PAGE = ROOT / "bench" / "relay_page"
LISTENING = "HarnessDesk listening on "
CHUNK = 4
MODEL = "scripted-small"
RAW_AFTER = "raw-after"
"""The raw read just after each round (bench `rounds`)."""
WINDOW_SSE_AFTER = "window-sse-after"
"""The plain window's read just after the bridge's, in each round (bench `rounds`)."""
AFTER = {"raw": RAW_AFTER, "window-sse": WINDOW_SSE_AFTER}
"""A baseline kind → its read just after the product's in the same round."""


# ---- the provider (a child process) -----------------------------------------------------------


def provider_child() -> int:
    """Child mode: serve scripted replies; each stdin line `N` queues one reply of N deltas."""
    from tests.support.scripted_llm import Reply, ScriptedLlmServer

    with ScriptedLlmServer() as server:
        print(server.base_url, flush=True)
        for line in sys.stdin:
            n = int(line)
            server.enqueue(Reply(text="abcd" * n, chunk_size=CHUNK))
            print("queued", flush=True)
    return 0


class Provider:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--provider-child"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()

    def queue(self, n: int) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{n}\n")
        self.proc.stdin.flush()
        self.proc.stdout.readline()

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(10)


# ---- readers in this process ------------------------------------------------------------------


async def sse_frames(response: httpx.Response) -> Any:
    """The parsed `data:` JSON of each SSE event, as it arrives."""
    buffer = b""
    async for data in response.aiter_raw():
        buffer += data
        *blocks, buffer = buffer.split(b"\n\n")
        for block in blocks:
            for line in block.split(b"\n"):
                if line.startswith(b"data: "):
                    yield line[6:]


def expected(n: int) -> str:
    """The text the provider streams for a burst of `n` deltas."""
    return "abcd" * n


def checked(result: dict[str, Any], n: int) -> dict[str, Any]:
    """A reader's result with its joined text replaced by whether it is exactly what was sent."""
    text = result.pop("text")
    return {**result, "textOk": text == expected(n), "chars": len(text)}


async def raw_turn(base_url: str, provider: Provider, n: int) -> dict[str, Any]:
    provider.queue(n)
    body = {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": "stream"}]}
    deltas, text, first = 0, [], None
    async with httpx.AsyncClient(timeout=None, trust_env=False) as http:
        started = time.perf_counter()
        async with http.stream("POST", f"{base_url}/chat/completions", json=body) as response:
            async for data in sse_frames(response):
                if data == b"[DONE]":
                    break
                chunk = json.loads(data)
                content = chunk["choices"][0]["delta"].get("content") if chunk["choices"] else None
                if content:
                    first = first if first is not None else time.perf_counter() - started
                    deltas += 1
                    text.append(content)
        secs = time.perf_counter() - started
    result = {"events": deltas, "text": "".join(text), "first": first, "secs": secs, "cutOff": False}
    return checked(result, n)


class Serve:
    """`harnessdesk serve` against the provider; a mux reader per turn."""

    def __init__(self, provider: Provider, data_dir: Path) -> None:
        self.provider = provider
        env = {**os.environ, "HARNESSDESK_API_KEY": "bench", "PYTHONUNBUFFERED": "1"}
        cmd = [sys.executable, "-m", "desktop", "serve", "--data-dir", str(data_dir), "--port", "0"]
        cmd += ["--provider", "openai-compatible", "--base-url", provider.base_url, "--model", MODEL]
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        if not line.startswith(LISTENING):
            raise RuntimeError(f"serve printed {line!r}")
        url = line[len(LISTENING) :].strip()
        self.base, self.token = url.split("/?token=")

    async def rpc(self, http: httpx.AsyncClient, method: AnyMethod, payload: dict[str, Any]) -> Any:
        body = {
            "type": "client-request",
            "rpcId": os.urandom(8).hex(),
            "method": method.key,
            "payload": payload,
        }
        answer = (await http.post(f"{self.base}/api/{method.key}", json=body)).json()
        if not answer["result"]["ok"]:
            raise RuntimeError(f"{method.key}: {answer}")
        return answer["result"]["value"]

    async def turn(self, n: int) -> dict[str, Any]:
        self.provider.queue(n)
        headers = {"authorization": f"Bearer {self.token}"}
        async with httpx.AsyncClient(timeout=None, trust_env=False, headers=headers) as http:
            mux_headers = {"accept": "text/event-stream"}
            async with http.stream("GET", f"{self.base}/api/events.mux", headers=mux_headers) as mux:
                sid = (await self.rpc(http, SESSION_CREATE, {}))["sessionId"]
                started = time.perf_counter()
                content = [{"type": "text", "text": "stream"}]
                await self.rpc(http, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
                chunks, text, first, cut_off = 0, [], None, False
                async for data in sse_frames(mux):
                    frame = json.loads(data)["payload"]
                    if frame["type"] == "stream/error":
                        cut_off = True
                        break
                    if frame["type"] != "session/event" or frame["sessionId"] != sid:
                        continue
                    kind = frame["event"]["type"]
                    if kind == "assistant/chunk":
                        chunks += 1
                        chunk = frame["event"]["data"]["chunk"]
                        if chunk["type"] == "text-delta":
                            first = first if first is not None else time.perf_counter() - started
                            text.append(chunk["text"])
                    elif kind == "turn/end":
                        break
                secs = time.perf_counter() - started
        result = {"events": chunks, "text": "".join(text), "first": first, "secs": secs, "cutOff": cut_off}
        return checked(result, n)

    def close(self) -> None:
        stop(self.proc)


def stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# ---- the desktop window -----------------------------------------------------------------------


def plain_window_child(url: str) -> int:
    """Child mode: a plain pywebview GTK window on `url` (no bridge): the SSE reader's page."""
    from tests.desktop import driver

    driver.plain_window("relay-baseline", url)
    return 0


class Window:
    """The desktop app (real host, bench page, `--serve`) plus a plain window on its site."""

    def __init__(self, provider: Provider, data_dir: Path, display: str) -> None:
        from tests.desktop import driver

        self.provider = provider
        sock, plain_sock = data_dir.parent / "bridge.sock", data_dir.parent / "plain.sock"
        env = {**os.environ, "HARNESSDESK_API_KEY": "bench"}
        cmd = [sys.executable, "-m", "tests.desktop.launch", "--webui", str(PAGE), "--real-host", "--serve"]
        cmd += ["--data-dir", str(data_dir), "--provider", "openai-compatible"]
        cmd += ["--base-url", provider.base_url, "--model", MODEL]
        self.app = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env={**env, **driver.window_env(display, sock)},
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.plain: subprocess.Popen[Any] | None = None
        assert self.app.stdout is not None
        line = self.app.stdout.readline().decode()
        if not line.startswith(LISTENING):
            stop(self.app)
            raise RuntimeError(f"the window app printed {line!r}")
        url = line[len(LISTENING) :].strip()
        ready = "new Promise(r => { const t = () => window.relayBench ? r(true) : setTimeout(t, 20); t(); })"
        bridge_ready = f"{driver.BRIDGE_READY}.then(() => {ready})"
        self.bridge_page = driver.connect_ready(sock, bridge_ready, timeout=90)
        self.plain = subprocess.Popen(
            [sys.executable, __file__, "--plain-window", url],
            cwd=ROOT,
            env={**env, **driver.window_env(display, plain_sock)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.sse_page = driver.connect_ready(plain_sock, ready, url_prefix="http://127.0.0.1", timeout=90)

    def turn(self, n: int, via_bridge: bool) -> dict[str, Any]:
        self.provider.queue(n)
        page = self.bridge_page if via_bridge else self.sse_page
        result = dict(page.evaluate(f"window.relayBench.runTurn({str(via_bridge).lower()})", timeout=600))
        return checked(result, n)

    def close(self) -> None:
        for page in (self.bridge_page, self.sse_page):
            page.close()
        if self.plain is not None:
            stop(self.plain)
        stop(self.app)


# ---- the run ----------------------------------------------------------------------------------


def rounds(
    provider: Provider, serve: Serve, win: Window | None, n: int, runs: int
) -> dict[str, list[dict[str, Any]]]:
    """`runs` rounds of every kind at `n` deltas, interleaved so load hits them alike."""
    kinds: dict[str, list[dict[str, Any]]] = {"raw": [], "sse": []}
    if win is not None:
        kinds |= {"bridge": [], "window-sse": [], WINDOW_SSE_AFTER: []}
    for _ in range(runs):
        kinds["raw"].append(asyncio.run(raw_turn(provider.base_url, provider, n)))
        kinds["sse"].append(asyncio.run(serve.turn(n)))
        if win is not None:
            # the plain window's read just before and just after the bridge's: their mean met
            # the load the bridge met (read only after it, the pair's ratio swung 0.72-1.31 at
            # one load; docs/decisions/baseline-on-both-sides.md)
            kinds["window-sse"].append(win.turn(n, False))
            kinds["bridge"].append(win.turn(n, True))
            kinds[WINDOW_SSE_AFTER].append(win.turn(n, False))
    # the raw read just after each round (the next round's, and one more after the last): a
    # round's raw figure is the mean of the raw reads before and after it (summary)
    closing = asyncio.run(raw_turn(provider.base_url, provider, n))
    kinds[RAW_AFTER] = [*kinds["raw"][1:], closing]
    return kinds


def measure(
    sizes: list[int], runs: list[int], window: bool, loaded: list[int], loaded_runs: int, burners: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the quiet rounds per size, the rounds per size with `burners` CPU burners running)."""
    from tests.desktop import x11

    results: dict[str, Any] = {str(n): {} for n in sizes}
    under_load: dict[str, Any] = {}
    provider = Provider()
    xvfb = None
    with tempfile.TemporaryDirectory(prefix="relay-bench-") as tmp:
        serve = Serve(provider, Path(tmp) / "serve")
        win: Window | None = None
        try:
            if window:
                xvfb, display = x11.start_xvfb()
                win = Window(provider, Path(tmp) / "window", display)
            # warm-up: first turns pay for imports, the model list, SQLite pages
            asyncio.run(serve.turn(200))
            if win is not None:
                win.turn(200, True)
                win.turn(200, False)
            for n, count in zip(sizes, runs, strict=True):
                results[str(n)] = rounds(provider, serve, win, n, count)
            if loaded:
                with Burners(burners):
                    load_before = load_now()
                    for n in loaded:
                        under_load[str(n)] = rounds(provider, serve, win, n, loaded_runs)
                    under_load["load"] = {"burners": burners, "before": load_before, "after": load_now()}
        finally:
            serve.close()
            if win is not None:
                win.close()
            if xvfb is not None:
                xvfb.terminate()
                xvfb.wait(10)
            provider.close()
    return results, under_load


def _median_ms(seconds: list[float | None]) -> float | None:
    """Median in ms of the readers that got any text (None when none did)."""
    got = [s * 1000 for s in seconds if s is not None]
    return statistics.median(got) if got else None


def summary(results: dict[str, Any]) -> dict[str, Any]:
    """Medians per kind and the ratios the goals are stated in."""
    out: dict[str, Any] = {}
    for n, kinds in results.items():
        if n == "load":
            continue
        med = {kind: statistics.median(r["secs"] for r in rows) for kind, rows in kinds.items()}
        complete = {kind: all(not r["cutOff"] and r["textOk"] for r in rows) for kind, rows in kinds.items()}
        events = {kind: statistics.median(r["events"] for r in rows) for kind, rows in kinds.items()}
        first = {kind: _median_ms([r["first"] for r in rows]) for kind, rows in kinds.items()}
        row: dict[str, Any] = {"median_s": med, "complete": complete, "events": events, "first_ms": first}
        row["raw/sse"] = med["raw"] / med["sse"]

        def paired(top: str, bottom: str, kinds: dict[str, Any] = kinds) -> list[float]:
            """Round by round: the two kinds ran back to back, so they met the same load; a
            baseline read (raw, the plain window's) is the mean of the one just before the
            product's and the one just after it (a burst takes seconds and a loaded machine's
            load moves within a round: one raw read beside one product read swung their ratio
            0.46-0.87 at one load; docs/decisions/baseline-on-both-sides.md)."""
            tops = kinds[top]
            if top in AFTER:
                after = kinds[AFTER[top]]
                tops = [{"secs": (a["secs"] + b["secs"]) / 2} for a, b in zip(tops, after, strict=True)]
            return [round(a["secs"] / b["secs"], 4) for a, b in zip(tops, kinds[bottom], strict=True)]

        row["ratios"] = {"raw/sse": paired("raw", "sse")}
        if "bridge" in med:
            row["raw/bridge"] = med["raw"] / med["bridge"]
            row["bridge/window-sse"] = med["window-sse"] / med["bridge"]
            row["bridge/sse"] = med["sse"] / med["bridge"]
            row["ratios"] |= {
                "raw/bridge": paired("raw", "bridge"),
                "bridge/window-sse": paired("window-sse", "bridge"),
            }
        out[n] = row
    return out


def report(results: dict[str, Any], figures: dict[str, Any], runs: list[int], title: str) -> None:
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    counts = "/".join(str(r) for r in runs)
    print(f"relay{title}: median of {counts} runs, seconds from request to the last delta (load {load})")
    kinds = list(next(iter(results.values())).keys())
    print(f"{'N':>7} " + "".join(f"{k:>12}" for k in kinds) + "   complete")
    for n in results:
        row = figures[n]
        cells = "".join(f"{row['median_s'][k]:12.3f}" for k in kinds)
        bad = [k for k, ok in row["complete"].items() if not ok]
        print(f"{int(n):>7} {cells}   {'all' if not bad else 'CUT OFF / WRONG TEXT: ' + ', '.join(bad)}")
    print("\nchunk events each reader got (median; raw: the provider's deltas)")
    for n in results:
        print(f"{int(n):>7} " + "".join(f"{figures[n]['events'][k]:12.0f}" for k in kinds))
    print("\nms from the request to the first text at the reader (median)")
    for n in results:
        cells = (figures[n]["first_ms"][k] for k in kinds)
        print(f"{int(n):>7} " + "".join(f"{ms:12.1f}" if ms is not None else f"{'-':>12}" for ms in cells))
    print("\nratios, the median of the rounds' pairs (min-max)")
    for n, row in figures.items():
        parts = [
            f"{k} {statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" for k, v in row["ratios"].items()
        ]
        print(f"{int(n):>7}  " + "   ".join(parts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[5000, 20000], help="deltas per burst")
    parser.add_argument(
        "--runs",
        type=int,
        nargs="+",
        default=[21, 9],
        help="rounds per size of --n (one number: the same for every size)",
    )
    parser.add_argument(
        "--loaded", type=int, nargs="*", default=[20000], help="deltas per burst with the CPU burners running"
    )
    parser.add_argument("--loaded-runs", type=int, default=9)
    parser.add_argument("--burners", type=int, default=2, help="busy-loop processes for the loaded rounds")
    parser.add_argument("--no-window", action="store_true", help="skip the desktop window (Xvfb)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--provider-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--plain-window", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.provider_child:
        return provider_child()
    if args.plain_window:
        return plain_window_child(args.plain_window)
    runs = args.runs * len(args.n) if len(args.runs) == 1 else args.runs
    if len(runs) != len(args.n):
        parser.error("--runs takes one number, or one per size of --n")
    started = time.monotonic()
    results, under_load = measure(
        args.n, runs, not args.no_window, args.loaded, args.loaded_runs, args.burners
    )
    figures = summary(results)
    report(results, figures, runs, "")
    out: dict[str, Any] = {"runs": results, "summary": figures}
    if under_load:
        loaded = summary(under_load)
        load = under_load["load"]
        print(f"\n-- with {load['burners']} CPU burners (load {load['before']} -> {load['after']}) --")
        report(
            {k: v for k, v in under_load.items() if k != "load"}, loaded, [args.loaded_runs], " under load"
        )
        out |= {"loaded": loaded, "loaded_runs": under_load}
    print(f"({time.monotonic() - started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
