"""A loopback HTTP server serving one file the ways real servers do, and the ways they fail.

The only double the model-download tests use (the network edge): a real HTTP server on
127.0.0.1 serving real bytes (the built-in model's GGUF). Paths pick the behaviour:

- `/ok/<name>`: honest, with `Range` support (206 + Content-Range);
- `/drop/<name>`: the first request sends `drop_after` bytes and closes the connection;
  later ones are honest (a flaky link);
- `/liar/<name>`: claims `Content-Length` one MiB larger than the file and closes after the
  real bytes, every time;
- `/unsized/<name>`: HTTP/1.0 style, no Content-Length: the body ends when the connection does;
- `/cut/<name>`: as `unsized`, but the connection closes after `cut_share` of the file (a link
  that drops with nothing to tell the client the body was longer);
- `/gated/<name>`: sends `drop_after` bytes, then waits for `gate` before sending the rest;
- `/catalogue/...`, `/api/tags`, `/v1/models`: JSON lists (`json_routes`).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.support.ports import serve_in_thread

CHUNK = 256 * 1024


class FileServer:
    def __init__(
        self, path: Path | None = None, *, drop_after: int = 8 * 1024 * 1024, cut_share: float = 0.4
    ) -> None:
        self.path = path
        self.drop_after = drop_after
        self.cut_share = cut_share
        self.gate = threading.Event()
        self.ranges: list[str | None] = []
        """The Range header of every file request, in order (None: none sent)."""
        self.dropped: set[str] = set()
        self.json_routes: dict[str, Any] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # a body written after its headers goes at once

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server._serve(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]

    def __enter__(self) -> FileServer:
        serve_in_thread(self.httpd)
        return self

    def __exit__(self, *exc: object) -> None:
        self.gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, mode: str, name: str = "model.gguf") -> str:
        return f"http://127.0.0.1:{self.port}/{mode}/{name}"

    # ---- serving ----------------------------------------------------------------------------

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        if h.path in self.json_routes:
            body = json.dumps(self.json_routes[h.path]).encode()
            h.send_response(200)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        mode = h.path.strip("/").split("/")[0]
        if self.path is None or mode not in ("ok", "drop", "liar", "unsized", "cut", "gated"):
            h.send_error(404)
            return
        data_size = self.path.stat().st_size
        asked = h.headers.get("range")
        self.ranges.append(asked)
        start = int(asked.split("=")[1].split("-")[0]) if asked else 0
        claimed = data_size + (1 << 20 if mode == "liar" else 0)
        if start >= claimed:
            h.send_response(416)
            h.send_header("content-range", f"bytes */{claimed}")
            h.send_header("content-length", "0")
            h.end_headers()
            return
        h.send_response(206 if asked else 200)
        if mode in ("unsized", "cut"):
            h.send_header("connection", "close")
        else:
            h.send_header("content-length", str(claimed - start))
        if asked:
            h.send_header("content-range", f"bytes {start}-{claimed - 1}/{claimed}")
        h.send_header("accept-ranges", "bytes")
        h.end_headers()
        limit: int | None = None
        if mode == "drop" and h.path not in self.dropped:
            self.dropped.add(h.path)
            limit = self.drop_after
        elif mode == "cut":
            limit = int(data_size * self.cut_share)
        sent = 0
        try:
            with open(self.path, "rb") as f:
                f.seek(start)
                while block := f.read(CHUNK):
                    if mode == "gated" and start + sent >= self.drop_after:
                        self.gate.wait()
                    if limit is not None and sent + len(block) > limit:
                        h.wfile.write(block[: limit - sent])
                        h.wfile.flush()
                        break
                    h.wfile.write(block)
                    sent += len(block)
        except (BrokenPipeError, ConnectionResetError):
            pass
        h.close_connection = True
