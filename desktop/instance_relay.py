"""The API relay: a later process (`harnessdesk acp`, `harnessdesk import`) speaks to the running
instance's host.

Only one process owns a data dir (desktop/instance.py). When the window or `serve` runs, a later
process asks it over the authenticated activation channel (`{"cmd": "api"}`) to carry HTTP
exchanges into its own fetch handler: the same ASGI app the window's bridge drives, so every
byte is the same and no socket is opened (docs/decisions.md, "ACP bridge").

Wire, over the channel's `send_bytes`: a JSON header, a NUL, then raw body bytes.
Client -> host: `{op: fetch, id, method, path, headers}` + body; `{op: cancel, id}`.
Host -> client: `{op: head, id, status, headers}`; `{op: chunk, id}` + bytes; `{op: end, id,
error?}`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import itertools
import json
import logging
import queue
import threading
from collections.abc import AsyncIterator, Mapping
from multiprocessing.connection import Client, Connection
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp

from desktop.instance import INFO_NAME
from host.fetch.asgi_driver import AsgiExchange
from host.fetch.client import UNARY_TIMEOUT, AbstractApiClient
from host.fetch.errors import TransportError
from host.fetch.fetch_response import FetchResponse, header_map

log = logging.getLogger("desktop.instance_relay")

SEND_QUEUE = 256
"""Frames waiting to go to a slow relay client before the host side waits (back-pressure)."""


def pack(header: Mapping[str, Any], body: bytes = b"") -> bytes:
    return json.dumps(header, separators=(",", ":")).encode() + b"\0" + body


def unpack(raw: bytes) -> tuple[dict[str, Any], bytes]:
    head, _, body = raw.partition(b"\0")
    header = json.loads(head)
    if not isinstance(header, dict):
        raise ValueError("relay frame header is not an object")
    return header, body


# ---- the running instance's side -------------------------------------------------------------


class _Sender:
    """One writer thread per relay connection, fed through a bounded queue."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.frames: queue.Queue[bytes | None] = queue.Queue(SEND_QUEUE)
        self.thread = threading.Thread(target=self._run, name="harnessdesk-relay-send", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (frame := self.frames.get()) is not None:
            try:
                self.conn.send_bytes(frame)
            except (OSError, EOFError, ValueError):
                return

    async def send(self, header: Mapping[str, Any], body: bytes = b"") -> None:
        frame = pack(header, body)
        try:
            self.frames.put_nowait(frame)
        except queue.Full:
            await asyncio.to_thread(self.frames.put, frame, True, 30)

    def close(self) -> None:
        with contextlib.suppress(queue.Full):
            self.frames.put(None, timeout=1)


async def _exchange(app: ASGIApp, header: dict[str, Any], body: bytes, sender: _Sender) -> None:
    rid = header["id"]
    exchange = AsgiExchange(
        app, str(header["method"]), str(header["path"]), dict(header.get("headers") or {}), body or None
    )
    try:
        await exchange.start()
        await sender.send({"op": "head", "id": rid, "status": exchange.status, "headers": exchange.headers})
        async for chunk in exchange.body():
            await sender.send({"op": "chunk", "id": rid}, chunk)
        await sender.send({"op": "end", "id": rid})
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        await sender.send({"op": "end", "id": rid, "error": str(exc) or type(exc).__name__})
    finally:
        await exchange.aclose()


def _forget(running: dict[Any, Any], rid: Any, _done: object) -> None:
    running.pop(rid, None)


def serve_relay(conn: Connection, app: ASGIApp, loop: asyncio.AbstractEventLoop) -> None:
    """Carry one relay connection until it closes (runs on the channel's connection thread)."""
    import os

    sender = _Sender(conn)
    running: dict[Any, concurrent.futures.Future[None]] = {}
    try:
        conn.send({"ok": True, "pid": os.getpid()})
        while True:
            header, body = unpack(conn.recv_bytes())
            rid = header.get("id")
            if header.get("op") == "fetch":
                started = asyncio.run_coroutine_threadsafe(_exchange(app, header, body, sender), loop)
                running[rid] = started
                started.add_done_callback(functools.partial(_forget, running, rid))
            elif header.get("op") == "cancel" and (future := running.get(rid)) is not None:
                future.cancel()
    except (EOFError, OSError, ValueError) as exc:
        log.debug("relay connection ended: %s", exc)
    finally:
        for future in list(running.values()):
            future.cancel()
        sender.close()


# ---- the ACP process's side ------------------------------------------------------------------


class RelayApiClient(AbstractApiClient):
    """An API client whose exchanges travel over the activation channel to the running host."""

    def __init__(self, conn: Connection, *, timeout: float = UNARY_TIMEOUT) -> None:
        super().__init__(timeout=timeout)
        self.conn = conn
        self.loop = asyncio.get_running_loop()
        self._ids = itertools.count(1)
        self._inbox: dict[int, asyncio.Queue[tuple[dict[str, Any], bytes] | None]] = {}
        self._send_lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._read, name="harnessdesk-relay-read", daemon=True).start()

    @classmethod
    async def connect(cls, data_dir: Path, bound: float = 10.0) -> RelayApiClient:
        def dial() -> Connection:
            info = json.loads((data_dir / INFO_NAME).read_text())
            conn = Client(info["address"], info["family"], authkey=bytes.fromhex(info["authkey"]))
            conn.send({"cmd": "api"})
            reply = conn.recv() if conn.poll(bound) else {}
            if not isinstance(reply, dict) or not reply.get("ok"):
                conn.close()
                raise TransportError("the running HarnessDesk does not relay API calls (an older version?)")
            return conn

        return cls(await asyncio.wait_for(asyncio.to_thread(dial), bound + 1))

    def _read(self) -> None:
        try:
            while True:
                header, body = unpack(self.conn.recv_bytes())
                self.loop.call_soon_threadsafe(self._deliver, header, body)
        except (EOFError, OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                self.loop.call_soon_threadsafe(self._lost)

    def _deliver(self, header: dict[str, Any], body: bytes) -> None:
        inbox = self._inbox.get(header.get("id", -1))
        if inbox is not None:
            inbox.put_nowait((header, body))

    def _lost(self) -> None:
        self._closed = True
        for inbox in self._inbox.values():
            inbox.put_nowait(None)

    def _send(self, header: Mapping[str, Any], body: bytes = b"") -> None:
        if self._closed:
            raise TransportError("the running HarnessDesk closed the relay")
        with self._send_lock:
            try:
                self.conn.send_bytes(pack(header, body))
            except (OSError, ValueError) as exc:
                raise TransportError(f"relay: {exc}") from exc

    async def do_fetch(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes | None
    ) -> FetchResponse:
        rid = next(self._ids)
        inbox: asyncio.Queue[tuple[dict[str, Any], bytes] | None] = asyncio.Queue()
        self._inbox[rid] = inbox
        self._send(
            {"op": "fetch", "id": rid, "method": method, "path": path, "headers": dict(headers)}, body or b""
        )
        first = await asyncio.wait_for(inbox.get(), self.timeout)
        if first is None or first[0].get("op") != "head":
            self._inbox.pop(rid, None)
            error = first[0].get("error") if first else "the relay closed"
            raise TransportError(f"{method} {path}: {error}")
        head = first[0]

        async def chunks() -> AsyncIterator[bytes]:
            while (item := await inbox.get()) is not None:
                frame, data = item
                if frame.get("op") == "end":
                    if frame.get("error"):
                        raise TransportError(f"{method} {path}: {frame['error']}")
                    return
                yield data
            raise TransportError(f"{method} {path}: the relay closed")

        async def aclose() -> None:
            if self._inbox.pop(rid, None) is not None and not self._closed:
                with contextlib.suppress(TransportError):
                    self._send({"op": "cancel", "id": rid})

        return FetchResponse(
            status=int(head["status"]),
            headers=header_map((str(k), str(v)) for k, v in head.get("headers", [])),
            body=chunks(),
            aclose=aclose,
        )

    async def aclose(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self.conn.close()
