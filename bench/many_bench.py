"""Many sessions at once: what a person does in the window while ten sessions stream, against the
same done with none streaming, in one run; and the first token of twenty sessions started at once
against one session's (issue 48, goal 3).

    .venv/bin/python bench/many_bench.py [--cycles 5] [--streams 10] [--sessions 1000] [--turns 1000]
                                         [--many 20] [--first-cycles 8] [--json FILE]
                                         [--app CHECKOUT] [--loopback]

The real app (`tests.desktop.launch --webui webui --real-host --serve`: the window and its host in
one process, as a person runs it, plus the loopback server the bench drives the other sessions
through) under Xvfb, on a scripted OpenAI-compatible provider in a child process (so serving the
streams costs this process nothing). Its data directory holds `--sessions` small sessions and one
long session of `--turns` turns (bench/open_bench.py's turns), written before it starts. Its
limit of sessions working at once (Settings → Sessions) is raised so every session the bench
prompts runs at once. With `HARNESSDESK_WINDOW_HOST=child` in the environment the window's host
runs in a child process instead (docs/decisions/window-host-process.md): run the bench once each
way, alternated, to compare.

Busy against idle: `--cycles` cycles, each an idle phase then a busy one (`--streams` sessions
streaming paced replies, ~50 deltas a second each, started before the phase and cancelled after
it). In each phase, from the window's page (its own client, through the bridge): `session.list`
and `session.search` timed in the page (`CALLS` figures each, a figure the mean of `REPS` calls
in a row: the page's clock counts whole milliseconds); the long session opened from a small
one until its first screen is painted (bench/transcript_probe.py's "painted"); then ten letters
typed into its composer as real X key events, each timed to its painted frame
(bench/typing_probe.py). Each cycle gives every operation a ratio, busy median over idle median;
goal ≤ 1.5x, judged on the cycles' ratios.

Before each idle phase the bench waits `SETTLE` seconds after the streams were cancelled: their
turn ends, checkpoints and the page's catching up belong to the busy phase, not to "idle".

First token: `--first-cycles` cycles of one session prompted alone `LONE` times, then `--many`
sessions prompted at once; the time from each prompt to its first text delta on this process's
`events.mux` reader (one clock). The cycle's ratio is the many sessions' median first token over
the lone session's median; goal ≤ 2x. (The baseline was one lone prompt per cycle: on a loaded
machine a single sample swung the ratio by 10x either way.) The reader parses only the frames it
needs (a session's first text delta, turn ends), so the bench's own JSON work does not grow with
the number of sessions streaming. It takes a session's streamed chunks only until that session's
first text (`host.focus`), as a window takes only the shown session's: while a busy phase is
timed, the only client the host streams to is the window, showing the long session, as a
person's (it used to take every streaming session's chunks over loopback SSE, a second client's
work that no person's setup has). No assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from contract.methods import (
    HOST_FOCUS,
    SESSION_CANCEL,
    SESSION_CREATE,
    SESSION_LIST,
    SESSION_PROMPT,
    SESSION_SEARCH,
    SETTINGS_UPDATE,
    AnyMethod,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import transcript_probe  # noqa: E402
from bench import typing_probe as probe  # noqa: E402
from bench.history_bench import turn_events as small_turn  # noqa: E402
from bench.open_bench import SID as LONG_SID  # noqa: E402
from bench.open_bench import write_session as write_long  # noqa: E402
from contract.events import SessionEvent  # noqa: E402
from host.api import open_host  # noqa: E402
from host.engine.store import SessionHeader  # noqa: E402
from tests.desktop import driver, x11  # noqa: E402

LISTENING = "HarnessDesk listening on "
MODEL = "scripted-small"
STREAM_DELTAS = 6000
STREAM_DELAY = 0.02
"""A streaming session's reply: 6,000 deltas 20 ms apart (~50 a second; two minutes: it is
cancelled when its phase ends)."""
KEYS = 10
CALLS = 5
"""Timed `session.list` / `session.search` figures per phase (the phase's figure is their median)."""
REPS = {"session.list": 4, "session.search": 20}
"""Calls made one after the other for one figure, which is their mean: the window's
`performance.now()` counts whole milliseconds, so a 5 ms search timed alone could only read 5,
6 or 7 ms, and busy over idle moved in steps of 0.2."""
SETTLE = 3.0
"""Seconds between cancelling the streams and the next idle phase."""
LONE = 3
"""Lone prompts per first-token cycle (the cycle's baseline is their median)."""
OPS = ("list", "search", "open", "type")

TIMED_CALL = """(async (method, payload, reps) => {
  const client = window.harnessdesk.client;
  const t0 = performance.now();
  for (let i = 0; i < reps; i += 1) {
    const r = await client.call(method, payload);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
  }
  return (performance.now() - t0) / reps;
})"""

OPEN = """(async (sid) => {
  const app = window.harnessdesk.app;
  const log = document.querySelector('[data-testid=conversation]');
  const t0 = performance.now();
  app.open(sid);
  await new Promise((resolve) => {
    const check = () => {
      const s = app.manager.active;
      if (s?.sessionId === sid && s.loaded && !s.loading && log.querySelector('.rows > .row')) resolve();
      else requestAnimationFrame(check);
    };
    check();
  });
  await PAINTED;
  return performance.now() - t0;
})""".replace("PAINTED", transcript_probe.PAINTED)


# ---- the provider: a child process ------------------------------------------------------------


def provider_child() -> int:
    """Child mode: each stdin line is a JSON list of Reply keyword sets to queue."""
    from tests.support.scripted_llm import Reply, ScriptedLlmServer

    with ScriptedLlmServer() as server:
        print(server.base_url, flush=True)
        for line in sys.stdin:
            server.enqueue(*[Reply(**kw) for kw in json.loads(line)])
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

    def queue(self, replies: list[dict[str, Any]]) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(replies) + "\n")
        self.proc.stdin.flush()
        self.proc.stdout.readline()

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:  # a loaded machine may take longer to end the child: its figures are already taken
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# ---- the host's loopback API and its event stream --------------------------------------------


class Api:
    """RPCs over loopback HTTP and a mux reader thread noting each session's first text delta
    and turn ends (this process's clock)."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.http = httpx.Client(timeout=60, trust_env=False, headers={"authorization": f"Bearer {token}"})
        self.first_text: dict[str, float] = {}
        self.ends: dict[str, int] = {}
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.stream_id: str | None = None
        """This reader's `events.mux` stream (`stream/opened`), for `host.focus`."""
        self.named = threading.Event()
        self.stopped = False
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(30) or not self.named.wait(30):
            raise RuntimeError("events.mux did not open")

    def call(self, method: AnyMethod, payload: dict[str, Any]) -> Any:
        body = {
            "type": "client-request",
            "rpcId": os.urandom(8).hex(),
            "method": method.key,
            "payload": payload,
        }
        answer = self.http.post(f"{self.base}/api/{method.key}", json=body).json()
        if not answer["result"]["ok"]:
            raise RuntimeError(f"{method.key}: {answer}")
        return answer["result"]["value"]

    def _read(self) -> None:
        try:
            self._read_frames()
        except httpx.HTTPError:
            if not self.stopped:  # the app closing ends the stream: not an error then
                raise

    def _read_frames(self) -> None:
        with httpx.Client(timeout=None, trust_env=False, headers=self.http.headers) as http:
            with http.stream(
                "GET", f"{self.base}/api/events.mux", headers={"accept": "text/event-stream"}
            ) as r:
                self.ready.set()
                buffer = b""
                for data in r.iter_raw():
                    now = time.perf_counter()
                    buffer += data
                    *blocks, buffer = buffer.split(b"\n\n")
                    for block in blocks:
                        for line in block.split(b"\n"):
                            if line.startswith(b"data: ") and self._wanted(line):
                                self._frame(json.loads(line[6:])["payload"], now)
                    if self.stopped:
                        return

    def _wanted(self, line: bytes) -> bool:
        """Whether a frame may be a turn's end or a session's first text delta (the rest is not
        parsed: the bench's own work must not grow with the sessions streaming)."""
        if b'"turn/end"' in line or b'"stream/opened"' in line:
            return True
        if b'"text-delta"' not in line:
            return False
        start = line.find(b'"sessionId":"')
        if start < 0:
            return True
        start += len(b'"sessionId":"')
        sid = line[start : line.find(b'"', start)].decode()
        with self.lock:
            return sid not in self.first_text

    def _frame(self, frame: dict[str, Any], now: float) -> None:
        if frame.get("type") == "stream/opened":
            self.stream_id = frame["streamId"]
            self.named.set()
            return
        if frame.get("type") != "session/event":
            return
        sid, event = frame["sessionId"], frame["event"]
        with self.lock:
            if event["type"] == "assistant/chunk" and event["data"]["chunk"].get("type") == "text-delta":
                self.first_text.setdefault(sid, now)
            elif event["type"] == "turn/end":
                self.ends[sid] = self.ends.get(sid, 0) + 1

    def focus(self, sids: list[str]) -> None:
        """Take the streamed chunks of `sids` only (`host.focus`), as a window takes those of the
        session it shows: this reader needs a session's chunks only until its first text."""
        self.call(HOST_FOCUS, {"streamId": self.stream_id, "sessionIds": sids})

    def wait(self, check: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if check():
                    return
            time.sleep(0.02)
        raise RuntimeError(f"timed out waiting for {what}")

    def close(self) -> None:
        self.stopped = True
        self.http.close()


# ---- seeding -----------------------------------------------------------------------------------


async def seed(data_dir: Path, sessions: int, turns: int) -> None:
    """`sessions` small sessions (three turns each), then the long one (bench/open_bench.py)."""
    await write_long(data_dir, turns)
    runtime = await open_host(data_dir, dev_validate=False)
    store = runtime.engine.parts.store
    rng = random.Random(3)
    for s in range(sessions):
        sid = f"small-{s:05d}"
        store.register(
            SessionHeader(id=sid, created_at=1_700_000_000_000 + s, cwd="/tmp", title=f"small {s}")
        )
        batch: list[SessionEvent] = []
        for turn in range(3):
            batch += small_turn(turn * 10, turn, rng, rare=False)
        store.append(sid, batch)
        if s % 100 == 99:
            await store.flush()
    await runtime.close()


# ---- the run -----------------------------------------------------------------------------------


class Window:
    """The app: window + host + loopback server on `data_dir`."""

    def __init__(self, data_dir: Path, provider: Provider, display: str, sock: Path, app: Path) -> None:
        cmd = [sys.executable, "-m", "tests.desktop.launch", "--webui", str(app / "webui"), "--real-host"]
        cmd += ["--serve", "--data-dir", str(data_dir), "--provider", "openai-compatible"]
        cmd += ["--base-url", provider.base_url, "--model", MODEL]
        env = {**os.environ, "HARNESSDESK_API_KEY": "bench", **driver.window_env(display, sock)}
        self.proc = subprocess.Popen(cmd, cwd=app, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        if not line.startswith(LISTENING):
            self.close()
            raise RuntimeError(f"the app printed {line!r}")
        self.base, self.token = line[len(LISTENING) :].strip().split("/?token=")
        connected = "document.documentElement.dataset.connection === 'connected'"
        ready = f"new Promise(r => {{ const t = () => {connected} ? r(true) : setTimeout(t, 20); t(); }})"
        self.page = driver.connect_ready(sock, ready, timeout=120)

    def evaluate(self, expression: str) -> Any:
        return self.page.evaluate(expression, timeout=120)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def phase(
    win: Window, keys: probe.XKeys, window_id: int, display: str, small: str, index: int
) -> dict[str, Any]:
    """One phase's figures: list, search and open in ms (medians), typing (median key, ms)."""
    lists = [
        win.evaluate(f"{TIMED_CALL}('session.list', {{}}, {REPS['session.list']})") for _ in range(CALLS)
    ]
    searches = [
        win.evaluate(f"{TIMED_CALL}('session.search', {{query: 'function'}}, {REPS['session.search']})")
        for _ in range(CALLS)
    ]
    win.evaluate(f"{OPEN}({json.dumps(small)})")
    opened = win.evaluate(f"{OPEN}({json.dumps(LONG_SID)})")
    offset = probe.calibrate(win.evaluate, reads=5)["offset_ms"]
    if not win.evaluate(probe.HOOK):
        raise RuntimeError("the composer did not take the focus")
    x11.xdotool(display, "windowfocus", "--sync", str(window_id))
    text = probe.round_text(index, KEYS)
    sent = probe.type_keys(keys, text, 0.08)
    got = probe.latencies(sent, probe.wait_painted(win.evaluate, KEYS, timeout=60), offset)
    win.evaluate("document.querySelector('[data-testid=composer-input]').value = ''")
    return {
        "list": statistics.median(lists),
        "search": statistics.median(searches),
        "open": opened,
        "type": probe.median(got["total"]),
        "type_p99": probe.figures(got["total"])["p99"],
        "missing_keys": got["missing"],
    }


def loopback_phase(api: Api) -> dict[str, Any]:
    """`--loopback`: the same list and search calls over the host's loopback HTTP, timed here;
    the host's share of the page's figures (no page, no bridge, no window)."""

    def timed(method: AnyMethod, payload: dict[str, Any]) -> float:
        t0 = time.perf_counter()
        api.call(method, payload)
        return (time.perf_counter() - t0) * 1000

    lists = [timed(SESSION_LIST, {}) for _ in range(CALLS)]
    searches = [timed(SESSION_SEARCH, {"query": "function"}) for _ in range(CALLS)]
    return {"list": statistics.median(lists), "search": statistics.median(searches), "missing_keys": 0}


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) the app's process has used so far (Linux `/proc`)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def report_cycle(c: int, idle: dict[str, Any], busy: dict[str, Any]) -> None:
    ops = [k for k in OPS if k in idle]
    cpu = f"; app CPU {idle['cpu']:.2f}/{busy['cpu']:.2f} s per s"
    print(f"cycle {c + 1}: " + ", ".join(f"{k} {idle[k]:.1f}/{busy[k]:.1f}" for k in ops) + cpu, flush=True)


def start_streams(api: Api, provider: Provider, sids: list[str]) -> None:
    replies = [{"text": "abc " * STREAM_DELTAS, "chunk_size": 4, "delay": STREAM_DELAY}] * len(sids)
    provider.queue(replies)
    with api.lock:
        for sid in sids:
            api.first_text.pop(sid, None)
    api.focus(sids)
    for sid in sids:
        api.call(
            SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": "go"}]}
        )
    api.wait(lambda: all(s in api.first_text for s in sids), 120, "the streams to start")
    # while the phase is timed no client takes the streams' chunks but the one a person would:
    # the window, which shows the long session (this reader still gets every turn's end)
    api.focus([])


def stop_streams(api: Api, sids: list[str]) -> None:
    with api.lock:
        ends = {sid: api.ends.get(sid, 0) for sid in sids}
    for sid in sids:
        api.call(SESSION_CANCEL, {"sessionId": sid})
    api.wait(lambda: all(api.ends.get(s, 0) > ends[s] for s in sids), 120, "the streams to stop")


def first_tokens(api: Api, provider: Provider, sids: list[str]) -> list[float]:
    """Prompt every session in `sids` at once; ms from its prompt to its first text delta here."""
    provider.queue([{"text": "short answer " * 20, "chunk_size": 4, "delay": 0.005}] * len(sids))
    with api.lock:
        ends = {sid: api.ends.get(sid, 0) for sid in sids}
        for sid in sids:
            api.first_text.pop(sid, None)
    api.focus(sids)
    sent: dict[str, float] = {}
    for sid in sids:
        sent[sid] = time.perf_counter()
        api.call(
            SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": "hi"}]}
        )
    api.wait(lambda: all(api.ends.get(s, 0) > ends[s] for s in sids), 180, "the turns to end")
    with api.lock:
        return [(api.first_text[sid] - sent[sid]) * 1000 for sid in sids]


def run(args: argparse.Namespace) -> dict[str, Any]:
    provider = Provider()
    xvfb, display = x11.start_xvfb()
    win: Window | None = None
    api: Api | None = None
    keys: probe.XKeys | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="many-bench-") as tmp:
            data_dir = Path(tmp) / "data"
            asyncio.run(seed(data_dir, args.sessions, args.turns))
            win = Window(data_dir, provider, display, Path(tmp) / "window.sock", args.app)
            print(f"app pid {win.proc.pid} from {args.app}", flush=True)
            api = Api(win.base, win.token)
            keys = probe.XKeys(display)
            window_id = 0
            deadline = time.monotonic() + 60
            while not window_id and time.monotonic() < deadline:
                found = x11.find_windows(display, "^HarnessDesk$", win.proc.pid)
                window_id = found[0] if found else 0
                time.sleep(0.1 if not window_id else 0)
            cwd = {"cwd": str(Path(tmp))}
            # every session this bench starts runs at once (Settings → Sessions; the default 4
            # would queue the rest, and their first text would wait for a free slot)
            at_once = {"maxRunningTurns": min(64, max(args.streams, args.many) + 1)}
            api.call(SETTINGS_UPDATE, {"ns": "sessions", "patch": at_once})
            streams = [api.call(SESSION_CREATE, cwd)["sessionId"] for _ in range(args.streams)]
            many = [api.call(SESSION_CREATE, cwd)["sessionId"] for _ in range(args.many)]
            small = "small-00000"

            def measure(index: int) -> dict[str, Any]:
                """One phase, with the CPU the app used per second of it: the work behind the
                waits, which does not depend on the machine's load the way a wait does."""
                wall, cpu = time.perf_counter(), cpu_seconds(win.proc.pid)
                if args.loopback:
                    figures = loopback_phase(api)
                else:
                    figures = phase(win, keys, window_id, display, small, index)
                figures["cpu"] = (cpu_seconds(win.proc.pid) - cpu) / (time.perf_counter() - wall)
                return figures

            measure(0)  # warm-up
            cycles: list[dict[str, Any]] = []
            invalid = None
            streaming = False
            try:
                for c in range(args.cycles):
                    idle = measure(2 * c + 1)
                    streaming = True
                    start_streams(api, provider, streams)
                    busy = measure(2 * c + 2)
                    stop_streams(api, streams)
                    streaming = False
                    time.sleep(SETTLE)
                    cycles.append({"idle": idle, "busy": busy})
                    report_cycle(c, idle, busy)
            except (driver.DriverError, RuntimeError) as exc:  # the window stopped answering: a finding
                invalid = f"cycle {len(cycles) + 1} did not finish: {exc}"
                print(invalid, flush=True)
                try:  # streams left running would load the first-token part
                    if streaming:
                        stop_streams(api, streams)
                except RuntimeError as stop_exc:
                    print(f"stopping the streams: {stop_exc}", flush=True)
                time.sleep(SETTLE)
            # the first-token part runs even when a busy cycle failed: it drives the host over
            # loopback, not the window, and is a figure of its own
            first: list[dict[str, Any]] = []
            first_invalid = None
            try:
                if args.first_cycles:
                    first_tokens(api, provider, many[:1])  # warm-up
                    first_tokens(api, provider, many)  # every session attached once
                for _ in range(args.first_cycles):
                    lone = [first_tokens(api, provider, many[:1])[0] for _ in range(LONE)]
                    cpu = cpu_seconds(win.proc.pid)
                    together = first_tokens(api, provider, many)
                    cpu = cpu_seconds(win.proc.pid) - cpu  # one fixed amount of work: steady under load
                    one = statistics.median(lone)
                    first.append({"one_ms": one, "lone_ms": lone, "many_ms": together, "cpu_s": cpu})
            except RuntimeError as exc:
                first_invalid = f"first-token cycle {len(first) + 1} did not finish: {exc}"
                print(first_invalid, flush=True)
    finally:
        if keys is not None:
            keys.close()
        if api is not None:
            api.close()
        if win is not None:
            win.close()
        xvfb.terminate()
        xvfb.wait(10)
        provider.close()
    busy_figures = {
        op: {
            "idle_ms": statistics.median(c["idle"][op] for c in cycles) if cycles else None,
            "busy_ms": statistics.median(c["busy"][op] for c in cycles) if cycles else None,
            "ratios": [round(c["busy"][op] / c["idle"][op], 4) for c in cycles if c["idle"][op] > 0],
        }
        for op in OPS
        if not cycles or op in cycles[0]["idle"]
    }
    return {
        "invalid": invalid,
        "first_invalid": first_invalid,
        "loopback": args.loopback,
        "streams": args.streams,
        "sessions": args.sessions,
        "long_turns": args.turns,
        "cycles": cycles,
        "busy": busy_figures,
        "missing_keys": sum(c[p]["missing_keys"] for c in cycles for p in ("idle", "busy")),
        "first_token": {
            "many": args.many,
            "cycles": first,
            "one_ms": statistics.median(f["one_ms"] for f in first),
            "many_median_ms": statistics.median(statistics.median(f["many_ms"]) for f in first),
            "many_max_ms": max(max(f["many_ms"]) for f in first),
            "ratios": [round(statistics.median(f["many_ms"]) / f["one_ms"], 4) for f in first],
            "cpu_s": statistics.median(f["cpu_s"] for f in first),
        }
        if first
        else None,
    }


def report(figures: dict[str, Any]) -> None:
    if figures["invalid"]:
        print(f"not measured: {figures['invalid']}")
    print(
        f"\n{figures['streams']} sessions streaming against none, {len(figures['cycles'])} cycles"
        f" ({figures['sessions']:,} sessions listed, a {figures['long_turns']:,}-turn session opened)"
    )
    print(f"{'':10}{'idle ms':>10}{'busy ms':>10}{'busy/idle':>11}   per cycle")
    for op, row in figures["busy"].items():
        if not row["ratios"]:  # --cycles 0: only the first-token rounds ran
            continue
        per = ", ".join(f"{r:.2f}" for r in row["ratios"])
        print(
            f"{op:10}{row['idle_ms']:10.1f}{row['busy_ms']:10.1f}"
            f"{statistics.median(row['ratios']):11.2f}   {per}"
        )
    if figures["loopback"]:
        print("list, search: the call over the host's loopback HTTP, timed by this bench (the host's share)")
    else:
        print(
            "list, search: the call timed in the window's page; open: to its first screen painted;"
            " type: the median key, send to painted (goal busy/idle ≤ 1.5 each)"
        )
    if figures["cycles"]:
        idle_cpu = statistics.median(c["idle"]["cpu"] for c in figures["cycles"])
        busy_cpu = statistics.median(c["busy"]["cpu"] for c in figures["cycles"])
        print(f"app CPU seconds per second of a phase (medians): idle {idle_cpu:.2f}, busy {busy_cpu:.2f}")
    if figures["missing_keys"]:
        print(f"keys never painted: {figures['missing_keys']}")
    first = figures["first_token"]
    if first is None:
        print(f"first token not measured: {figures['first_invalid']}")
        return
    print(
        f"first token: one session {first['one_ms']:.1f} ms; {first['many']} at once: median"
        f" {first['many_median_ms']:.1f} ms, last {first['many_max_ms']:.1f} ms; ratio per cycle"
        f" {', '.join(f'{r:.2f}' for r in first['ratios'])} (goal ≤ 2); app CPU per {first['many']}-session"
        f" round {first['cpu_s']:.2f} s (median)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument("--sessions", type=int, default=1000, help="small sessions in the list")
    parser.add_argument("--turns", type=int, default=1000, help="turns of the long session")
    parser.add_argument("--many", type=int, default=20, help="sessions prompted at once")
    parser.add_argument("--first-cycles", type=int, default=8)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--loopback",
        action="store_true",
        help="time list and search over loopback HTTP instead of in the page (the host's share)",
    )
    parser.add_argument(
        "--app",
        type=Path,
        default=ROOT,
        help="the checkout whose app is measured (an older commit's worktree, say)",
    )
    parser.add_argument("--provider-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.provider_child:
        return provider_child()
    started = time.monotonic()
    figures = run(args)
    report(figures)
    print(f"({time.monotonic() - started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
