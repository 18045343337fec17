"""A small host for the window tests until host/api lands: a real Starlette app, no mocks.

Routes cover what the bridge must carry: unary JSON, SSE with frames split across ASGI messages
(and inside multi-byte characters), a binary body, a slow call and an endless stream whose
cancellation is written to `<data dir>/host.log` so a test can see the host task was
cancelled. The shutdown hook writes there too. `python -m tests.desktop.launch` runs the real
CLI with this host and a test page.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


def frame(i: int, text: str) -> bytes:
    return f"id: {i}\ndata: {json.dumps({'i': i, 'text': text}, ensure_ascii=False)}\n\n".encode()


def build_app(data_dir: Path) -> Starlette:
    log_file = data_dir / "host.log"

    def note(line: str) -> None:
        with log_file.open("a") as f:
            f.write(line + "\n")

    async def echo(request: Request) -> Response:
        body = await request.body()
        ext = request.scope.get("extensions", {}).get("harnessdesk")
        return JSONResponse(
            {
                "method": request.method,
                "path": request.url.path,
                "query": request.url.query,
                "contentType": request.headers.get("content-type"),
                "body": body.decode("utf-8", "replace"),
                "bodyLength": len(body),
                "window": ext,
            }
        )

    async def split_events(request: Request) -> Response:
        """n frames, each sent as two ASGI messages cut inside the UTF-8 of `é` or `🙂`."""
        n = int(request.query_params.get("n", "20"))

        async def gen() -> AsyncIterator[bytes]:
            for i in range(n):
                data = frame(i, f"héllo 🙂 {i}")
                cut = data.index("🙂".encode()) + 2 if i % 2 else data.index("é".encode()) + 1
                yield data[:cut]
                await asyncio.sleep(0)
                yield data[cut:]

        return StreamingResponse(gen(), media_type="text/event-stream", headers=SSE_HEADERS)

    async def forever(request: Request) -> Response:
        tag = request.query_params.get("tag", "forever")

        async def gen() -> AsyncIterator[bytes]:
            note(f"started {tag}")
            i = 0
            try:
                while True:
                    yield frame(i, "tick")
                    i += 1
                    await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                note(f"cancelled {tag}")
                raise
            finally:
                note(f"closed {tag}")

        return StreamingResponse(gen(), media_type="text/event-stream", headers=SSE_HEADERS)

    async def slow(request: Request) -> Response:
        """30 s of work tied to the connection, as the real handler ties unary calls to it."""
        tag = request.query_params.get("tag", "slow")
        await request.body()
        note(f"started {tag}")

        async def gone() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass

        work, watcher = asyncio.ensure_future(asyncio.sleep(30)), asyncio.ensure_future(gone())
        done, _ = await asyncio.wait({work, watcher}, return_when=asyncio.FIRST_COMPLETED)
        for task in (work, watcher):
            task.cancel()
        if watcher in done:
            note(f"cancelled {tag}")
            return Response(status_code=499)
        return JSONResponse({"done": True})

    async def binary(request: Request) -> Response:
        return Response(bytes(range(256)) * 4, media_type="application/octet-stream")

    async def export(request: Request) -> Response:
        disposition = {"content-disposition": 'attachment; filename="session-test.zip"'}
        if request.method == "HEAD":
            return Response(b"", media_type="application/zip", headers=disposition)
        body = b"PK\x03\x04" + bytes(range(256)) * 64
        return Response(body, media_type="application/zip", headers=disposition)

    async def bench(request: Request) -> Response:
        """n SSE events carrying their send time (ms since the epoch) for latency figures."""
        n = int(request.query_params.get("n", "1000"))
        pause = float(request.query_params.get("pause", "0"))

        async def gen() -> AsyncIterator[bytes]:
            pad = "x" * int(request.query_params.get("pad", "40"))
            for i in range(n):
                payload = json.dumps({"i": i, "t": time.time() * 1000, "pad": pad})
                yield f"data: {payload}\n\n".encode()
                await asyncio.sleep(pause)

        return StreamingResponse(gen(), media_type="text/event-stream", headers=SSE_HEADERS)

    return Starlette(
        routes=[
            Route("/api/echo", echo, methods=["GET", "POST", "PUT"]),
            Route("/api/events.split", split_events),
            Route("/api/events.forever", forever),
            Route("/api/slow", slow, methods=["POST"]),
            Route("/api/binary", binary),
            Route("/api/session.export", export, methods=["GET", "HEAD"]),
            Route("/api/events.bench", bench),
        ]
    )


GATE = "host-gate"
"""While a file of this name is in the data dir, the test host is not built yet: a test can
hold the build and see the window open without it (the host is built on its own thread)."""


async def build_test_host(args: argparse.Namespace) -> tuple[Starlette, object]:
    """The `build_host` seam for tests: (api_app, shutdown), built on the host loop."""
    data_dir = Path(args.data_dir)
    import webview  # the window's own module, loaded by the window already

    # when the build started (docs/decisions/cold-start.md): once the window is shown, or at the
    # page's first request if that comes first (a busy machine), never while GTK starts
    with (data_dir / "host.log").open("a") as f:
        f.write(f"build started, window created: {bool(webview.windows)}\n")
    async with asyncio.timeout(120):
        while (data_dir / GATE).exists():  # noqa: ASYNC110 - another process removes the file
            await asyncio.sleep(0.05)

    async def shutdown() -> None:
        with (data_dir / "host.log").open("a") as f:
            f.write("shutdown\n")

    return build_app(data_dir), shutdown
