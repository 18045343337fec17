"""A scripted OpenAI-compatible server on 127.0.0.1 for tests (the only fake at the network edge).

A real HTTP server (uvicorn in a background thread, a raw ASGI app) serving
`POST /v1/chat/completions` (streaming SSE and non-streaming) and `GET /v1/models`.

    def test_x(scripted_llm):
        scripted_llm.enqueue(Reply(text="hello"), Reply(tool_calls=[("c1", "bash", '{"command":"ls"}')]))
        ... point a client at scripted_llm.base_url ...
        assert scripted_llm.requests[0]["messages"][0]["role"] == "system"

Each enqueued `Reply` answers one chat request, FIFO; with an empty queue the server answers
`DEFAULT_TEXT`. Outside pytest use `with ScriptedLlmServer() as srv: ...` (e.g. for a subprocess
under test that talks to `srv.base_url`). The script (`Reply`, its deltas) is in
tests/support/scripted_reply.py and the raw ASGI writers in tests/support/scripted_asgi.py; import
every name from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from tests.support.scripted_asgi import (
    Dropped,
    Receive,
    Scope,
    Send,
    read_body,
    send_json,
    send_sse,
    sleep_unless,
)
from tests.support.scripted_reply import (
    DEFAULT_MODELS,
    DEFAULT_TEXT,
    PACED_WAIT,
    STAMP,
    Reply,
    first_user_text,
    reply_deltas,
)

__all__ = ["DEFAULT_MODELS", "DEFAULT_TEXT", "PACED_WAIT", "Reply", "ScriptedLlmServer"]


class ScriptedLlmServer:
    """The server; a context manager (`with ScriptedLlmServer() as srv`) or start()/stop()."""

    def __init__(self, host: str = "127.0.0.1", tls: tuple[str, str] | None = None) -> None:
        self.host = host
        self.tls = tls
        """(certificate file, key file): served over HTTPS (a real provider's transport)."""
        self.port = 0
        self.models: list[str] = list(DEFAULT_MODELS)
        self.requests: list[dict[str, Any]] = []
        """Every chat request body received, in order (parsed JSON)."""
        self.request_headers: list[dict[str, str]] = []
        """Headers of every chat request (lower-case names), parallel to `requests`."""
        self.request_peers: list[tuple[str, int]] = []
        """The client address and port of every chat request, parallel to `requests` (one port
        for two requests: they came over one kept connection)."""
        self.require_key: str | None = None
        """When set, chat and models requests need `Authorization: Bearer <key>` (else 401)."""
        self.echo_rejected_key = False
        """A 401 quotes the key it refused, as some real providers do."""
        self.disconnects = 0
        """Clients that went away before a streamed answer was complete."""
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._disconnected = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._server: uvicorn.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    # ---- public API ------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}/v1"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Replies still queued."""
        with self._lock:
            return len(self._queue)

    def wait_for_disconnects(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block until at least `count` mid-stream disconnects were seen (False on timeout)."""
        with self._disconnected:
            return self._disconnected.wait_for(lambda: self.disconnects >= count, timeout)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.request_headers.clear()
            self.request_peers.clear()
            self.disconnects = 0
            self.models = list(DEFAULT_MODELS)
            self.require_key = None
            self.echo_rejected_key = False

    def start(self) -> ScriptedLlmServer:
        # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on accepted sockets whose proto says
        # TCP. With Nagle on, a stream's first delta waited for the client's delayed ACK of the
        # headers (~40 ms), a stall no real provider adds to a first token.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._app,
            log_level="critical",
            log_config=None,
            lifespan="off",
            interface="asgi3",
            timeout_graceful_shutdown=2,
            access_log=False,
            ssl_certfile=self.tls[0] if self.tls else None,
            ssl_keyfile=self.tls[1] if self.tls else None,
        )
        self._server = uvicorn.Server(config)
        started = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._stopping = asyncio.Event()
            loop.call_soon(started.set)
            try:
                assert self._server is not None
                loop.run_until_complete(self._server.serve(sockets=[sock]))
            finally:
                loop.close()
                sock.close()

        self._thread = threading.Thread(target=run, name="scripted-llm", daemon=True)
        self._thread.start()
        started.wait(5)
        deadline = time.monotonic() + 5
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.005)
        if not self._server.started:
            raise RuntimeError("scripted LLM server did not start")
        return self

    def stop(self) -> None:
        if self._server is None or self._thread is None:
            return
        if self._loop is not None and self._stopping is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stopping.set)
        self._server.should_exit = True
        self._thread.join(10)
        self._server = None
        self._thread = None

    def __enter__(self) -> ScriptedLlmServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _take(self, messages: str) -> Reply:
        """The first queued reply this request may have (the caller holds the lock)."""
        for index, reply in enumerate(self._queue):
            if reply.when is None or reply.when in messages:
                del self._queue[index]
                return reply
        return Reply(text=DEFAULT_TEXT)

    # ---- the ASGI app ----------------------------------------------------------------------

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"].rstrip("/")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.require_key is not None and headers.get("authorization") != f"Bearer {self.require_key}":
            given = headers.get("authorization", "").removeprefix("Bearer ")
            message = f"Incorrect API key provided: {given}" if self.echo_rejected_key else "invalid api key"
            await send_json(send, 401, {"error": {"message": message, "type": "auth"}})
            return
        if method == "GET" and path == "/v1/models":
            with self._lock:
                data = [{"id": m, "object": "model", "owned_by": "scripted"} for m in self.models]
            await send_json(send, 200, {"object": "list", "data": data})
            return
        if method == "POST" and path == "/v1/chat/completions":
            body = await read_body(receive)
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                await send_json(send, 400, {"error": {"message": "bad json", "type": "invalid_request"}})
                return
            with self._lock:
                self.requests.append(request)
                self.request_headers.append(headers)
                self.request_peers.append(tuple(scope.get("client") or ("", 0)))
                reply = self._take(first_user_text(request))
            await self._chat(request, reply, receive, send)
            return
        await send_json(send, 404, {"error": {"message": f"no route {method} {path}", "type": "not_found"}})

    async def _chat(self, request: dict[str, Any], reply: Reply, receive: Receive, send: Send) -> None:
        if reply.status != 200:
            extra = dict(reply.headers)
            if reply.retry_after is not None:
                extra["retry-after"] = f"{reply.retry_after:g}"
            err = {"error": {"message": reply.error_message, "type": "scripted", "code": reply.status}}
            await send_json(send, reply.status, err, extra)
            return
        model = str(request.get("model") or "scripted")
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        want_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        usage = reply.usage
        if usage is None:
            prompt = len(json.dumps(request.get("messages", []))) // 4
            completion = (len(reply.text or "") + len(reply.reasoning or "")) // 4 + 1
            usage = {"prompt_tokens": prompt, "completion_tokens": completion}
            usage["total_tokens"] = prompt + completion
        if not request.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": reply.text}
            if reply.reasoning is not None:
                message["reasoning_content"] = reply.reasoning
            if reply.tool_calls:
                message["tool_calls"] = [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                    for i, n, a in reply.tool_calls
                ]
            body = {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
            await send_json(send, 200, body, reply.headers)
            return
        await self._stream(
            model, reply, finish, usage if (want_usage or reply.usage) else None, receive, send
        )

    async def _stream(
        self,
        model: str,
        reply: Reply,
        finish: str,
        usage: dict[str, int] | None,
        receive: Receive,
        send: Send,
    ) -> None:
        gone = asyncio.Event()

        async def watch() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    return

        watcher = asyncio.create_task(watch())
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
        headers += [(k.encode(), v.encode()) for k, v in reply.headers.items()]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": int(time.time())}
        base["model"] = model

        def event(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

        deltas = list(reply_deltas(reply))
        completed = False
        try:
            await send_sse(send, event({"role": "assistant", "content": ""}))
            if reply.raw is not None:
                for payload in reply.raw:
                    text = payload if isinstance(payload, str) else json.dumps(payload)
                    body = b"data: " + text.encode() + b"\n\n"
                    await send({"type": "http.response.body", "body": body, "more_body": True})
                await send({"type": "http.response.body", "body": b"data: [DONE]\n\n", "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                completed = True
                return
            for n, delta in enumerate(deltas):
                if reply.hang_after is not None and n >= reply.hang_after:
                    await self._hang(gone)
                    return
                if reply.drop_after is not None and n >= reply.drop_after:
                    raise Dropped("scripted connection drop")
                if reply.garbage_after is not None and n == reply.garbage_after:
                    garbage = b'data: {"choices": [{"delta": {"content": "unterminated\n\n'
                    await send({"type": "http.response.body", "body": garbage, "more_body": True})
                if reply.delay and not (reply.hurry is not None and reply.hurry.is_set()):
                    await sleep_unless(gone, reply.delay)
                if reply.paced is not None and n > 0:
                    if not await asyncio.to_thread(reply.paced.acquire, True, PACED_WAIT):
                        raise Dropped("the test never released the next delta")
                if gone.is_set():
                    return
                if delta is STAMP:
                    delta = {"content": f"<{time.time_ns()}>"}
                await send_sse(send, event(delta))
            if reply.hang_after is not None and reply.hang_after >= len(deltas):
                await self._hang(gone)
                return
            await send_sse(send, event({}, finish))
            if usage is not None:
                await send_sse(send, {**base, "choices": [], "usage": usage})
            await send({"type": "http.response.body", "body": b"data: [DONE]\n\n", "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            completed = True
        except OSError:
            gone.set()
        finally:
            watcher.cancel()
            if not completed and gone.is_set():
                with self._disconnected:
                    self.disconnects += 1
                    self._disconnected.notify_all()

    async def _hang(self, gone: asyncio.Event) -> None:
        stopping = self._stopping
        assert stopping is not None
        waiters = [asyncio.ensure_future(gone.wait()), asyncio.ensure_future(stopping.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()


@pytest.fixture(scope="session")
def llm_server() -> Iterator[ScriptedLlmServer]:
    """The suite's shared scripted provider: one per test process (one per xdist worker), so
    every test and every host or `serve` it starts can point at it; `llm` empties it per test."""
    with ScriptedLlmServer() as server:
        yield server


@pytest.fixture
def llm(llm_server: ScriptedLlmServer) -> Iterator[ScriptedLlmServer]:
    """The shared scripted provider, emptied before and after each test."""
    llm_server.reset()
    yield llm_server
    llm_server.reset()


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLlmServer]:
    """A fresh scripted OpenAI-compatible server per test."""
    with ScriptedLlmServer() as server:
        yield server
