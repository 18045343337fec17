"""Helpers for the ApiProxy suite: frame collectors, predicates, raw exchanges, images, the CLI.

Everything here talks to a real host through a real client (`InProcessApiClient` or
`HttpApiClient` over uvicorn); the only double anywhere is the scripted LLM server.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import io
import os
import re
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from contract.methods import SESSION_PROMPT, Method, Req, Val
from contract.rpc import RpcErr, RpcOk
from contract.sessions import SessionSummary
from host.fetch import AbstractApiClient, FrameStream
from tests.support.warm_cli import WarmCli

ROOT = Path(__file__).resolve().parents[2]
WAIT = 15.0
"""Generous bound for anything that should happen "soon" (a turn, a frame)."""

Frame = tuple[str, Any]
Pred = Callable[[Any], bool]


# ---- predicates over frames -------------------------------------------------------------------


def ftype(kind: str, session_id: str | None = None) -> Pred:
    """A frame of `kind` (optionally of one session)."""

    def pred(frame: Any) -> bool:
        if getattr(frame, "type", None) != kind:
            return False
        return session_id is None or getattr(frame, "session_id", None) == session_id

    return pred


def event(etype: str, session_id: str | None = None, **data: Any) -> Pred:
    """A `session/event` frame carrying an event of `etype` whose data contains `data`."""

    def pred(frame: Any) -> bool:
        if getattr(frame, "type", None) != "session/event" or frame.event.type != etype:
            return False
        if session_id is not None and frame.session_id != session_id:
            return False
        return all(frame.event.data.get(k) == v for k, v in data.items())

    return pred


# ---- a stream read in the background ----------------------------------------------------------


class Frames:
    """`async with Frames(client.stream("events.mux")) as mux`: frames collected as they come.

    `await mux.next(pred)` returns the first matching (rpcId, frame) after the cursor and moves
    the cursor past it; `mux.items` holds everything received so far.
    """

    def __init__(self, stream: FrameStream) -> None:
        self.stream = stream
        self.items: list[Frame] = []
        self.stream_id: str | None = None
        """The mux stream's name (its `stream/opened` frame, kept out of `items`: host.focus)."""
        self.cursor = 0
        self.ended = False
        self.error: BaseException | None = None
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Frames:
        await self.stream.open()
        self._task = asyncio.create_task(self._pump())
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.stream.aclose()

    async def _pump(self) -> None:
        try:
            async for item in self.stream:
                if getattr(item[1], "type", None) == "stream/opened" and self.stream_id is None:
                    self.stream_id = item[1].stream_id
                    self._changed.set()
                    continue
                self.items.append(item)
                self._changed.set()
        except Exception as exc:  # a transport failure is a finding: keep it for the test
            self.error = exc
        finally:
            self.ended = True
            self._changed.set()

    async def named(self, within: float = WAIT) -> str:
        """The stream's name, once its `stream/opened` frame has come."""

        async def wait() -> str:
            while self.stream_id is None:
                if self.ended:
                    raise AssertionError(f"the stream ended unnamed: {self.error!r}")
                self._changed.clear()
                await self._changed.wait()
            return self.stream_id

        return await asyncio.wait_for(wait(), within)

    @property
    def frames(self) -> list[Any]:
        return [f for _, f in self.items]

    async def next(self, pred: Pred, within: float = WAIT) -> Frame:
        """The first frame matching `pred` at or after the cursor (the cursor moves past it)."""
        return await self._find(pred, within, move=True)

    async def seen(self, pred: Pred, within: float = WAIT) -> Frame:
        """The first frame matching `pred` anywhere in the stream (the cursor stays)."""
        return await self._find(pred, within, move=False)

    async def _find(self, pred: Pred, within: float, move: bool) -> Frame:
        async def find() -> Frame:
            while True:
                for i in range(self.cursor if move else 0, len(self.items)):
                    if pred(self.items[i][1]):
                        if move:
                            self.cursor = i + 1
                        return self.items[i]
                if self.ended:
                    seen = [getattr(f, "type", f) for f in self.frames[self.cursor :]]
                    raise AssertionError(f"stream ended ({self.error!r}); after the cursor: {seen}")
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(find(), within)
        except TimeoutError:
            seen = [_describe(f) for f in self.frames[self.cursor :]]
            raise AssertionError(f"no matching frame within {within} s; after the cursor: {seen}") from None

    def since(self, start: int) -> list[Any]:
        return [f for _, f in self.items[start:]]


def _describe(frame: Any) -> str:
    if getattr(frame, "type", None) == "session/event":
        return f"session/event:{frame.event.type}"
    return str(getattr(frame, "type", frame))


def events_of(frames: Sequence[Any], session_id: str | None = None) -> list[Any]:
    return [
        f.event
        for f in frames
        if getattr(f, "type", None) == "session/event" and (session_id is None or f.session_id == session_id)
    ]


# ---- calls ------------------------------------------------------------------------------------


async def ok(
    client: AbstractApiClient, method: Method[Req, Val], payload: Req | Mapping[str, Any] | None = None
) -> Val:
    """Call `method` (its handle); assert it succeeded and return the value."""
    response = await client.call(method, payload or {})
    assert isinstance(response.result, RpcOk), f"{method.key} failed: {response.result}"
    return response.result.value


@dataclass
class WireError:
    """An RpcError as it travelled: `details` is the wire JSON object."""

    code: str
    message: str
    details: dict[str, Any]


async def err(
    client: AbstractApiClient, method: Method[Req, Val], payload: Req | Mapping[str, Any] | None, code: str
) -> WireError:
    """Call `method` (its handle); assert it failed with `code` and return the error as wire JSON."""
    response = await client.call(method, payload)
    assert isinstance(response.result, RpcErr), f"{method.key} unexpectedly succeeded: {response.result}"
    error = response.result.error
    assert error.code == code, f"{method.key}: expected {code}, got {error.code}: {error.message}"
    wire = error.model_dump(mode="json", by_alias=True)
    return WireError(wire["code"], wire["message"], wire["details"])


def cwd_of(summary: SessionSummary) -> Path:
    """A local session's folder, as `session.list` shows it (a remote one shows none)."""
    assert summary.cwd is not None, summary
    return Path(summary.cwd)


def text(t: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": t}]


async def prompt(client: AbstractApiClient, sid: str, words: str, mode: str = "queue", **extra: Any) -> None:
    payload = {"sessionId": sid, "mode": mode, "content": text(words), **extra}
    assert (await ok(client, SESSION_PROMPT, payload)).accepted is True


async def run_turn(client: AbstractApiClient, mux: Frames, sid: str, words: str) -> list[Any]:
    """Prompt and wait for that turn's `turn/end`; the session events seen on the way."""
    start = len(mux.items)
    await prompt(client, sid, words)
    await mux.next(event("turn/end", sid))
    return events_of(mux.since(start), sid)


@dataclass
class Raw:
    status: int
    headers: dict[str, str]
    body: bytes


async def raw(
    client: AbstractApiClient,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> Raw:
    """One exchange through the client's own transport (the HTTP client adds its token)."""
    response = await client.do_fetch(method, path, headers or {}, body)
    try:
        content = await response.read()
    finally:
        await response.aclose()
    return Raw(response.status, dict(response.headers), content)


# ---- images ----------------------------------------------------------------------------------


def png(width: int = 3, height: int = 2, rgb: tuple[int, int, int] = (200, 30, 60)) -> bytes:
    """A real (decodable) RGB PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * width
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def image_input(data: bytes, media_type: str = "image/png", name: str | None = None) -> dict[str, Any]:
    out = {"type": "image", "mediaType": media_type, "data": b64(data)}
    if name is not None:
        out["name"] = name
    return out


# ---- processes -------------------------------------------------------------------------------


def process_gone(pid: int) -> bool:
    """True when `pid` no longer runs (absent, or a zombie awaiting its parent)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True


async def eventually(check: Callable[[], bool], within: float = WAIT, step: float = 0.02) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if check():
            return True
        await asyncio.sleep(step)
    return check()


# ---- the real command line -------------------------------------------------------------------


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HARNESSDESK_API_KEY", "DISPLAY")}
    env["PYTHONUNBUFFERED"] = "1"
    return {**env, **(extra or {})}


def harnessdesk() -> list[str]:
    """The installed `harnessdesk` console script (else `python -m desktop`)."""
    script = Path(sys.executable).parent / "harnessdesk"
    return [str(script)] if script.exists() else [sys.executable, "-m", "desktop"]


_warm: WarmCli | None = None


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`harnessdesk ARGS` as a fresh process forked from a warm interpreter (tests/support/
    warm_cli.py): what the binary runs, without its start-up cost on every call."""
    global _warm
    if _warm is None:
        _warm = WarmCli(cli_env())
        atexit.register(_warm.close)
    return _warm.run(list(args), cwd or ROOT, cli_env(), timeout)


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run_main(*args: str) -> Ran:
    """`desktop.cli.main(args)` in this process: the binary's code without its start-up cost.

    It runs on a thread of its own (the commands call `asyncio.run`, which cannot nest in a
    test's running loop); the caller blocks until it is done.
    """
    from desktop.cli import main

    out, err = io.StringIO(), io.StringIO()
    codes: list[int] = []

    def target() -> None:
        try:
            codes.append(main(list(args)))
        except SystemExit as exc:  # argparse errors exit from inside the parser
            codes.append(exc.code if isinstance(exc.code, int) else 1)

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        thread = threading.Thread(target=target, name="harnessdesk-main")
        thread.start()
        thread.join(60)
    assert codes, f"main{args} did not finish (or raised): {err.getvalue()}"
    return Ran(codes[0], out.getvalue(), err.getvalue())


LISTENING = re.compile(r"^HarnessDesk listening on (http://127\.0\.0\.1:(\d+))/\?token=(\S+)$")


@dataclass
class Served:
    """A `harnessdesk serve` subprocess; stdout/stderr are drained into lists by threads."""

    proc: subprocess.Popen[str]
    first_line: str
    base_url: str
    port: int
    token: str
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)
    data_dir: Path = field(default_factory=Path)

    def stop(self, timeout: float = 15) -> int:
        """SIGTERM, wait, and join the readers; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(5)
        for t in self.threads:
            t.join(5)
        return code

    @property
    def later_output(self) -> str:
        """Everything the process wrote except its first stdout line."""
        return "".join(self.out) + "".join(self.err)


def start_serve(data_dir: Path, *extra: str, cwd: Path | None = None) -> Served:
    """`harnessdesk serve --data-dir D …`; returns once the first stdout line is read."""
    proc = subprocess.Popen(
        [*harnessdesk(), "serve", "--data-dir", str(data_dir), *extra],
        cwd=cwd or ROOT,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline().rstrip("\n")
    match = LISTENING.match(first)
    if match is None:
        proc.kill()
        _, rest = proc.communicate(timeout=10)
        raise AssertionError(f"unexpected first line {first!r}; stderr: {rest}")
    served = Served(proc, first, match.group(1), int(match.group(2)), match.group(3), data_dir=data_dir)

    def drain(stream: Any, sink: list[str]) -> None:
        for line in stream:
            sink.append(line)

    for stream, sink in ((proc.stdout, served.out), (proc.stderr, served.err)):
        t = threading.Thread(target=drain, args=(stream, sink), daemon=True)
        t.start()
        served.threads.append(t)
    return served


def page_events(value: Any) -> list[Any]:
    """The events of a `session.history` / `subagent.history` value (its entries are
    `{event, view?}`)."""
    return [entry.event for entry in value.events]
