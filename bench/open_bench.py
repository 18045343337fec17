"""Opening a long session over the API: the first page and the whole of a 1,000-turn session.

    python bench/open_bench.py [--turns 1000] [--repeat 15] [--page 50] [--profile] [--json FILE]

A session of `--turns` turns (14 events each: a question, streamed chunks, a tool call and its
result with a diff-like output, a final answer with a code block; ~2.4 MB in all, the shape the
issue measured against opencode) is written through the engine's store, then `harnessdesk serve`
is started on the closed file and `session.history` is called over loopback HTTP (a real uvicorn
server, one keep-alive connection, the body read and parsed as the web client does):
- first page: no `beforeSeq`, `maxMessages` 50, the web client's page (webui/js/state/session.js);
- whole session: `maxMessages` 10,000 (the contract's most), every event in one answer.
The baseline, measured in the same run and the same server, is `host.describe` (the smallest
answer: the fixed cost of one call through the fence, the handler and the socket). Before the
server starts, the host's own work for the whole session is timed in process: the spliced answer
against the validate-and-dump path it replaced, same data, same run (their bytes compared too).
Prints median ms, the ratio to the baseline and the bytes, and where the time went: to the body's
last byte (the server and the socket), this process's parse (the standard library's json: most
of a whole session's figure on a loaded machine, and not the host's work) and the server
process's CPU per call. The goals compare against a peer run alongside: opencode serving the
same session (bench/peer_opencode.py), its calls alternated with ours, both timed to the body's
last byte (the bench's own parse is not the server's work); ours over its, the median of the
pairs, ≤ 1. Without opencode installed the goals' rows say "no baseline".
`--profile` instead profiles the whole-session call in process (cProfile, top 25). No assertions.
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

from contract.methods import HOST_DESCRIBE, SESSION_HISTORY, AnyMethod

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import peer_opencode  # noqa: E402
from contract.events import SessionEvent  # noqa: E402
from host.api import open_host  # noqa: E402
from host.engine.store import SessionHeader  # noqa: E402

LISTENING = "HarnessDesk listening on "
SID = "long-session"
WHOLE = 10_000
FIRST_PAGE = 50
"""maxMessages of the web client's pages (webui/js/state/session.js)."""

DIFF = "".join(
    f"@@ -{i},3 +{i},4 @@\n-    old_line_{i} = compute({i})\n+    new_line_{i} = compute({i} + 1)\n"
    for i in range(3)
)
CODE = "```python\ndef handler(request):\n    value = parse(request.body)\n    return respond(value)\n```"


def turn_texts(turn: int) -> tuple[str, str, str, str]:
    """A turn's question, the path its tool call reads, the tool's result and the answer: the
    same content for HarnessDesk and for the peer (bench/peer_opencode.py)."""
    question = f"Please look at module_{turn % 37}.py and fix the failing test number {turn}."
    answer = f"I changed `module_{turn % 37}.py`: the handler now parses the body first.\n\n{CODE}"
    return question, f"module_{turn % 37}.py", DIFF, answer


def turn_events(base: int, turn: int) -> list[dict[str, Any]]:
    """One completed turn of 14 events, as the agent writes them (wire JSON)."""
    call_id = f"call-{turn}"
    question, _, _, answer = turn_texts(turn)
    chunk = {"type": "text-delta", "index": 0, "text": "I changed the handler "}
    tool_call = {
        "type": "tool-call",
        "id": call_id,
        "name": "read",
        "arguments": json.dumps({"path": f"module_{turn % 37}.py"}),
    }
    events: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("turn/start", {"turn": turn, "trigger": "user"}, {}),
        ("step/start", {"turn": turn, "step": 0}, {}),
        (
            "user/message",
            {
                "id": f"u{turn}",
                "role": "user",
                "content": [{"type": "text", "text": question}],
                "source": {"kind": "user", "rpcId": f"r{turn}"},
            },
            {"surfaceOp": "append"},
        ),
        ("request/header", {"provider": "openai-compatible", "model": "scripted-small"}, {}),
        (
            "assistant/message",
            {
                "turn": turn,
                "step": 0,
                "message": {
                    "id": f"a{turn}",
                    "role": "assistant",
                    "content": [tool_call],
                    "source": {"kind": "model"},
                },
                "usage": {"inputTokens": 1200 + turn, "outputTokens": 40},
            },
            {"surfaceOp": "append"},
        ),
        (
            "tool/call",
            {"turn": turn, "step": 0, "callId": call_id, "name": "read", "arguments": tool_call["arguments"]},
            {},
        ),
        (
            "tool/result",
            {
                "turn": turn,
                "step": 0,
                "message": {
                    "id": f"t{turn}",
                    "role": "tool",
                    "content": [{"type": "tool-result", "toolCallId": call_id, "content": DIFF}],
                    "source": {"kind": "tool", "callId": call_id},
                },
            },
            {"surfaceOp": "append"},
        ),
        ("step/end", {"turn": turn, "step": 0}, {}),
        ("step/start", {"turn": turn, "step": 1}, {}),
        ("assistant/chunk", {"turn": turn, "step": 1, "chunk": chunk}, {}),
        ("assistant/chunk", {"turn": turn, "step": 1, "chunk": {**chunk, "text": "to parse the body."}}, {}),
        (
            "assistant/message",
            {
                "turn": turn,
                "step": 1,
                "message": {
                    "id": f"b{turn}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": answer}],
                    "source": {"kind": "model"},
                },
            },
            {"surfaceOp": "append", "sourceEventSeqs": [base + 9, base + 10]},
        ),
        ("step/end", {"turn": turn, "step": 1}, {}),
        ("turn/end", {"turn": turn, "reason": {"kind": "completed"}}, {}),
    ]
    return [
        {"type": kind, "seq": base + i, "time": 1_700_000_000_000 + (base + i) * 10, "data": data, **extra}
        for i, (kind, data, extra) in enumerate(events)
    ]


async def write_session(data_dir: Path, turns: int) -> int:
    """The session through the engine's store (validated as the agent's events are); its events."""
    runtime = await open_host(data_dir, dev_validate=False)
    store = runtime.engine.parts.store
    store.register(SessionHeader(id=SID, created_at=1_700_000_000_000, cwd="/tmp", title="long session"))
    batch: list[SessionEvent] = []
    count = 0
    for turn in range(turns):
        for raw in turn_events(count, turn):
            batch.append(SessionEvent.model_validate(raw, by_alias=True))
            count += 1
        if len(batch) >= 2000:
            store.append(SID, batch)
            batch = []
    if batch:
        store.append(SID, batch)
    await runtime.close()
    return count


class Serve:
    """`harnessdesk serve` on the data dir (no provider needed: history only)."""

    def __init__(self, data_dir: Path) -> None:
        env = {**os.environ, "HARNESSDESK_API_KEY": "bench", "PYTHONUNBUFFERED": "1"}
        cmd = [sys.executable, "-m", "desktop", "serve", "--data-dir", str(data_dir), "--port", "0"]
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        if not line.startswith(LISTENING):
            raise RuntimeError(f"serve printed {line!r}")
        self.base, self.token = line[len(LISTENING) :].strip().split("/?token=")

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


async def call(
    http: httpx.AsyncClient, base: str, method: AnyMethod, payload: dict[str, Any]
) -> tuple[float, float, int, Any]:
    """(seconds, of which parsing, body bytes, value) of one call, the body parsed as the web
    client parses it. The rest (the seconds to the body's last byte) is the server and the
    socket: this process's parse (the standard library's `json`) is not the host's work."""
    body = {"type": "client-request", "rpcId": os.urandom(8).hex(), "method": method.key, "payload": payload}
    started = time.perf_counter()
    response = await http.post(f"{base}/api/{method.key}", json=body)
    raw = response.content
    if response.status_code != 200:
        raise RuntimeError(f"{method.key}: HTTP {response.status_code} {raw[:200]!r}")
    read = time.perf_counter()
    answer = json.loads(raw)
    seconds = time.perf_counter() - started
    if not answer["result"]["ok"]:
        raise RuntimeError(f"{method.key}: {answer}")
    return seconds, started + seconds - read, len(raw), answer["result"]["value"]


def cpu_seconds(pid: int) -> float | None:
    """The CPU seconds (user + system) process `pid` has used (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def peer_call(http: httpx.AsyncClient, url: str) -> tuple[float, float, int, int]:
    """(seconds to the last byte, seconds parsing, bytes, messages) of one call to the peer."""
    started = time.perf_counter()
    response = await http.get(url)
    raw = response.content
    read = time.perf_counter()
    if response.status_code != 200:
        raise RuntimeError(f"opencode: HTTP {response.status_code} {raw[:200]!r}")
    messages = json.loads(raw)
    return read - started, time.perf_counter() - read, len(raw), len(messages)


async def measure_peer(
    peer: Any, samples: dict[str, list[float]], http: httpx.AsyncClient, first_page: int
) -> dict[str, Any]:
    """One round of the peer's two calls, `samples` extended with its seconds to the last byte."""
    out = {}
    for label, limit in (("first page", first_page), ("whole session", None)):
        secs, parsing, size, messages = await peer_call(http, peer.url(limit))
        samples[label].append(secs)
        out[label] = {"bytes": size, "messages": messages, "parse_s": parsing}
    return out


async def measure(serve: Serve, repeat: int, first_page: int, peer: Any = None) -> dict[str, Any]:
    cases: dict[str, tuple[AnyMethod, dict[str, Any]]] = {
        "baseline (host.describe)": (HOST_DESCRIBE, {}),
        "first page": (SESSION_HISTORY, {"sessionId": SID, "maxMessages": first_page}),
        "whole session": (SESSION_HISTORY, {"sessionId": SID, "maxMessages": WHOLE}),
    }
    headers = {"authorization": f"Bearer {serve.token}"}
    samples: dict[str, list[float]] = {k: [] for k in cases}
    parse: dict[str, list[float]] = {k: [] for k in cases}
    cpu: dict[str, float | None] = dict.fromkeys(cases, 0.0)
    sizes: dict[str, tuple[int, int]] = {}
    peer_samples: dict[str, list[float]] = {"first page": [], "whole session": []}
    peer_shape: dict[str, Any] = {}
    async with (
        httpx.AsyncClient(timeout=None, trust_env=False, headers=headers) as http,
        httpx.AsyncClient(timeout=None, trust_env=False) as peer_http,
    ):
        for method, payload in cases.values():  # warm: the first call builds validators
            await call(http, serve.base, method, payload)
        if peer is not None:
            await measure_peer(peer, {"first page": [], "whole session": []}, peer_http, first_page)
        for _ in range(repeat):  # interleaved, so the machine's load hits each case alike
            if peer is not None:  # the peer's two calls, then ours: alternated call by call
                peer_shape = await measure_peer(peer, peer_samples, peer_http, first_page)
            for label, (method, payload) in cases.items():
                before = cpu_seconds(serve.proc.pid)
                seconds, parsing, size, value = await call(http, serve.base, method, payload)
                after = cpu_seconds(serve.proc.pid)
                used = cpu[label]
                known = used is not None and before is not None and after is not None
                cpu[label] = used + after - before if known else None  # type: ignore[operator]
                samples[label].append(seconds)
                parse[label].append(parsing)
                sizes[label] = (size, len(value["events"]) if "events" in value else 0)
    base_ms = statistics.median(samples["baseline (host.describe)"]) * 1000
    rows = {}
    for label, values in samples.items():
        ms = statistics.median(values) * 1000
        to_last_byte = statistics.median(v - p for v, p in zip(values, parse[label], strict=True)) * 1000
        used = cpu[label]
        rows[label] = {
            "last_byte_runs_ms": [
                round((v - p) * 1000, 3) for v, p in zip(values, parse[label], strict=True)
            ],
            "ms": ms,
            "ratio": ms / base_ms,
            "to_last_byte_ms": to_last_byte,
            "parse_ms": statistics.median(parse[label]) * 1000,
            "server_cpu_ms": None if used is None else used / repeat * 1000,
            "bytes": sizes[label][0],
            "events": sizes[label][1],
        }
    if peer is not None:
        out: dict[str, Any] = {}
        for label, values in peer_samples.items():
            ours = rows[label]["last_byte_runs_ms"]
            out[label] = {
                "to_last_byte_ms": statistics.median(values) * 1000,
                "ratios": [round(a / (b * 1000), 4) for a, b in zip(ours, values, strict=True)],
                **peer_shape.get(label, {}),
            }
        rows["peer"] = out
    return rows


async def host_side(data_dir: Path, repeat: int) -> dict[str, float]:
    """The host's own work for the whole session, in process (no socket), median ms: the answer
    spliced from the stored JSON (`Engine.history_value`) against the path it replaced (every
    event validated into a model, wrapped in an entry, dumped, encoded), in the same run."""
    from contract._base import to_wire
    from contract.methods import METHODS
    from contract.sessions import HistoryValue
    from host.fetch.inbound import json_bytes
    from host.fetch.unary import encoded_envelope

    runtime = await open_host(data_dir, dev_validate=False)
    engine = runtime.engine
    method = METHODS["session.history"]

    async def spliced() -> bytes:
        value = await engine.sessions.history_value(SID, None, WHOLE)
        return encoded_envelope(method, "r", value.wire_json(), False).data  # type: ignore[attr-defined]

    async def validated() -> bytes:
        events, more, projections = await engine.sessions.history(SID, None, WHOLE)
        value = HistoryValue(
            events=engine.sessions.history_entries(events), has_more=more, projections=projections
        )
        return json_bytes(
            {"type": "server-response", "rpcId": "r", "result": {"ok": True, "value": to_wire(value)}}
        )

    samples: dict[str, list[float]] = {"spliced": [], "validated": []}
    same = await spliced() == await validated()
    for _ in range(repeat):
        for label, run in (("spliced", spliced), ("validated", validated)):
            started = time.perf_counter()
            await run()
            samples[label].append(time.perf_counter() - started)
    await runtime.close()
    out = {k: statistics.median(v) * 1000 for k, v in samples.items()}
    return {**out, "ratio": out["validated"] / out["spliced"], "same_bytes": same}


async def profile(data_dir: Path, first_page: int) -> None:
    """The whole-session call in process, under cProfile (the server's own path, no socket)."""
    import cProfile
    import pstats

    from host.fetch.inprocess import InProcessApiClient

    runtime = await open_host(data_dir, dev_validate=False)
    client = InProcessApiClient(runtime.app)
    for max_messages in (first_page, WHOLE):
        await client.call(SESSION_HISTORY, {"sessionId": SID, "maxMessages": max_messages})
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(5):
        await client.call(SESSION_HISTORY, {"sessionId": SID, "maxMessages": WHOLE})
    prof.disable()
    await runtime.close()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def start_peer(root: Path, turns: int) -> tuple[Any, dict[str, Any]]:
    """opencode serving the same session (bench/peer_opencode.py), or None and why not."""
    exe = peer_opencode.find()
    if exe is None:
        return None, {"missing": "opencode is not installed (`which opencode` found nothing)"}
    try:
        return peer_opencode.Opencode(exe, root, turns, turn_texts), {"version": peer_opencode.version(exe)}
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        return None, {"missing": f"opencode did not start: {exc}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--page", type=int, default=FIRST_PAGE, help="maxMessages of the first page")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="open-bench-") as tmp:
        data_dir = Path(tmp) / "data"
        events = asyncio.run(write_session(data_dir, args.turns))
        if args.profile:
            asyncio.run(profile(data_dir, args.page))
            return 0
        inside = asyncio.run(host_side(data_dir, max(3, args.repeat // 3)))
        peer, peer_info = start_peer(Path(tmp) / "peer", args.turns)
        serve = Serve(data_dir)
        try:
            rows = asyncio.run(measure(serve, args.repeat, args.page, peer))
        finally:
            serve.close()
            if peer is not None:
                peer.close()
        if "peer" in rows:
            peer_info["rows"] = rows.pop("peer")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"session.history over loopback HTTP, {args.turns:,} turns / {events:,} events,"
        f" median of {args.repeat} (load {load})"
    )
    print(
        f"{'call':24}{'ms':>10}{'x baseline':>12}{'last byte':>11}{'parse':>9}{'host CPU':>10}"
        f"{'events':>9}{'bytes':>12}"
    )
    for label, row in rows.items():
        host_cpu = "n/a" if row["server_cpu_ms"] is None else f"{row['server_cpu_ms']:.1f}"
        print(
            f"{label:24}{row['ms']:10.2f}{row['ratio']:12.1f}{row['to_last_byte_ms']:11.2f}"
            f"{row['parse_ms']:9.2f}{host_cpu:>10}{row['events']:9d}{row['bytes']:12,d}"
        )
    print(
        "ms = to the answer parsed; last byte = to the body's last byte; parse = this process's json.loads;"
        " host CPU = the server process's CPU ms per call (/proc, 10 ms ticks summed over the calls)"
    )
    if "rows" in peer_info:
        print(
            f"opencode {peer_info['version']}, the same session, calls alternated with ours"
            " (to the last byte):"
        )
        for label, row in peer_info["rows"].items():
            print(
                f"  {label:22}{row['to_last_byte_ms']:10.2f} ms, {row['messages']} messages,"
                f" {row['bytes']:,} bytes;"
                f" ours / opencode's (median of pairs): {statistics.median(row['ratios']):.2f}"
                " (goal ≤ 1)"
            )
    else:
        print(f"no peer: {peer_info['missing']} (the goals' rows say 'no baseline')")
    print(
        f"host side, whole session in process: spliced {inside['spliced']:.1f} ms, validate-and-dump"
        f" {inside['validated']:.1f} ms ({inside['ratio']:.1f}x; same bytes: {inside['same_bytes']})"
    )
    if args.json:
        figures = {
            "turns": args.turns,
            "events": events,
            "first_page_messages": args.page,
            "rows": rows,
            "host_side": inside,
            "peer": peer_info,
        }
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
