"""A tiny Chrome DevTools Protocol client for driving the window's page from tests.

QtWebEngine exposes CDP when `QTWEBENGINE_REMOTE_DEBUGGING=<port>` is set, but Playwright's
`connect_over_cdp` fails on it ("Browser context management is not supported"), so we speak
the protocol directly: one page target, `Runtime.evaluate` with `awaitPromise`. The WebSocket
framing is the minimum RFC 6455 needs (masked client frames, no extensions), stdlib only.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time
import urllib.request
from typing import Any
from urllib.parse import urlsplit


class CdpError(Exception):
    pass


def page_targets(port: int) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
        return [t for t in json.load(r) if t.get("type") == "page"]


class Page:
    """One CDP session on a page target."""

    def __init__(self, ws_url: str, timeout: float = 30.0) -> None:
        parts = urlsplit(ws_url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise CdpError("websocket handshake failed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise CdpError(f"websocket handshake refused: {head[:200]!r}")
        self._buffer = head.split(b"\r\n\r\n", 1)[1]
        self._next_id = 0

    def close(self) -> None:
        self.sock.close()

    def _send(self, text: str) -> None:
        payload = text.encode()
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x81])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise CdpError("websocket closed")
            self._buffer += chunk
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def _message(self) -> str:
        data = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise CdpError("websocket closed by the page")
            if opcode in (0x9, 0xA):
                continue  # ping/pong: the server does not require answers from us here
            data += payload
            if b0 & 0x80:
                return data.decode()

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        call_id = self._next_id
        self._send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self._message())
            if reply.get("id") == call_id:
                if "error" in reply:
                    raise CdpError(str(reply["error"]))
                return dict(reply.get("result", {}))

    def evaluate(self, expression: str, timeout: float = 30.0) -> Any:
        """The value of a JS expression (promises awaited), or CdpError with the JS exception."""
        self.sock.settimeout(timeout)
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CdpError(f"JS exception: {text}")
        return result.get("result", {}).get("value")


def connect(port: int, url_prefix: str = "harnessdesk://", timeout: float = 30.0) -> Page:
    """Wait for the window's page to appear on the DevTools port and attach to it."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            for target in page_targets(port):
                if target.get("url", "").startswith(url_prefix):
                    return Page(target["webSocketDebuggerUrl"])
        except (OSError, CdpError, ValueError) as exc:
            last = exc
        time.sleep(0.2)
    raise CdpError(f"no page {url_prefix}* on DevTools port {port} ({last})")


BRIDGE_READY = (
    "new Promise(r => { const t = () => window.pywebview?.api?.bridge_fetch ? r(true) : setTimeout(t, 20); "
    "t(); })"
)


def connect_ready(
    port: int, ready: str = BRIDGE_READY, url_prefix: str = "harnessdesk://", timeout: float = 45.0
) -> Page:
    """`connect`, then wait for `ready` to resolve; retried while the page is still loading
    (an early attach can see "Execution context was destroyed")."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            page = connect(port, url_prefix, timeout=2)
            page.evaluate(ready, timeout=max(1.0, deadline - time.monotonic()))
            return page
        except (CdpError, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
