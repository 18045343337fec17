"""The handler's streams (`events.mux`, `events.host`), `session.export` and the OpenAPI route."""

from __future__ import annotations

import asyncio
import re
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from starlette.types import ASGIApp

from contract.frames import SessionProjection, SessionSubscribed
from contract.rpc import RpcRequest
from contract.schema import openapi_document
from host.fetch import drive, to_fetch_handler
from tests.foundation.conftest import serve
from tests.foundation.fake_api import FakeApi
from tests.foundation.helpers import exchange, sse_events

FRAME = re.compile(rb"id: (\d+)\ndata: ([^\n]+)\n\n")


async def read_until(ex: object, predicate: object, limit: float = 5.0) -> bytes:
    """Read an open stream until `predicate(bytes so far)` holds."""
    seen = b""
    async with asyncio.timeout(limit):
        async for chunk in ex.body():  # type: ignore[attr-defined]
            seen += chunk
            if predicate(seen):  # type: ignore[operator]
                return seen
    return seen


@pytest.mark.parametrize(("key", "closed"), [("events.mux", "mux_closed"), ("events.host", "host_closed")])
async def test_stream_headers_frames_and_close(fake: FakeApi, app: ASGIApp, key: str, closed: str) -> None:
    ex = await drive(app, "GET", f"/api/{key}")
    headers = dict(ex.headers)
    assert ex.status == 200
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["cache-control"] == "no-cache"
    assert headers["x-accel-buffering"] == "no"
    body = await read_until(ex, lambda b: FRAME.search(b) is not None)
    (first,) = sse_events(body)
    assert first["type"] == "server-request"
    assert first["method"] == first["payload"]["type"]
    assert FRAME.match(body), body
    assert not getattr(fake.signals, closed).is_set()
    await ex.aclose()
    assert getattr(fake.signals, closed).is_set(), "closing the connection must stop the host generator"


async def test_frames_are_numbered_and_keep_the_api_rpc_id(fake: FakeApi, app: ASGIApp) -> None:
    stable = RpcRequest[Any](rpc_id="approval-rpc", payload=SessionSubscribed(session_id="s-2", last_seq=4))
    fake.mux_script = [SessionSubscribed(session_id="s-1", last_seq=-1), stable, "hang"]
    ex = await drive(app, "GET", "/api/events.mux")
    body = await read_until(ex, lambda b: len(FRAME.findall(b)) >= 2)
    await ex.aclose()
    assert [int(n) for n, _ in FRAME.findall(body)] == [0, 1]
    events = sse_events(body)
    assert events[1]["rpcId"] == "approval-rpc"
    assert events[1]["payload"] == {"type": "session/subscribed", "sessionId": "s-2", "lastSeq": 4}
    assert events[0]["rpcId"] != events[1]["rpcId"]


async def test_heartbeat_comments_while_quiet(fake: FakeApi, app: ASGIApp) -> None:
    fake.mux_script = ["hang"]
    ex = await drive(app, "GET", "/api/events.mux")
    loop = asyncio.get_running_loop()
    began = loop.time()
    body = await read_until(ex, lambda b: b.count(b": heartbeat\n\n") >= 3)
    await ex.aclose()
    assert body == b": heartbeat\n\n" * 3
    assert loop.time() - began >= 0.25


async def test_no_heartbeat_needed_while_frames_flow(fake: FakeApi) -> None:
    app = to_fetch_handler(fake, heartbeat_interval=30)
    fake.mux_script = [SessionSubscribed(session_id="s-1", last_seq=-1)] * 3
    reply = await exchange(app, "GET", "/api/events.mux", content_type=None)
    assert len(sse_events(reply.body)) == 3
    assert b"heartbeat" not in reply.body


async def test_a_failing_api_stream_ends_with_one_stream_error(fake: FakeApi, app: ASGIApp) -> None:
    fake.mux_script = [SessionSubscribed(session_id="s-1", last_seq=-1), RuntimeError("bus broke")]
    reply = await asyncio.wait_for(exchange(app, "GET", "/api/events.mux", content_type=None), 5)
    events = sse_events(reply.body)
    assert [e["method"] for e in events] == ["session/subscribed", "stream/error"]
    error = events[-1]["payload"]["error"]
    assert error["code"] == "internal"
    assert error["details"] == {}
    assert "bus broke" not in reply.text
    assert fake.signals.mux_closed.is_set()


async def test_an_invalid_frame_is_a_host_bug_that_ends_the_stream(fake: FakeApi, app: ASGIApp) -> None:
    fake.mux_script = [{"type": "made/up"}, "hang"]
    reply = await asyncio.wait_for(exchange(app, "GET", "/api/events.mux", content_type=None), 5)
    assert [e["method"] for e in sse_events(reply.body)] == ["stream/error"]


async def test_null_projection_values_survive_the_wire(fake: FakeApi, app: ASGIApp) -> None:
    fake.mux_script = [SessionProjection(session_id="s-1", key="title", value=None, seq=2)]
    reply = await exchange(app, "GET", "/api/events.mux", content_type=None)
    (event,) = sse_events(reply.body)
    assert event["payload"]["type"] == "session/projection"


async def test_closing_a_real_http_stream_stops_the_generator(fake: FakeApi, app: ASGIApp) -> None:
    with serve(app) as base:
        async with httpx.AsyncClient() as http, http.stream("GET", f"{base}/api/events.mux") as response:
            assert response.status_code == 200
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    break
        assert await asyncio.to_thread(fake.signals.mux_closed.wait, 5)


# ---- session.export ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("", 400),
        ("?sessionId=", 400),
        ("?includeDescendants=true", 400),
        ("?sessionId=bad%20id", 404),
        ("?sessionId=s-9", 404),
        ("?sessionId=s-9&includeDescendants=yes", 404),
    ],
)
async def test_export_refusals(app: ASGIApp, query: str, status: int) -> None:
    reply = await exchange(app, "GET", f"/api/session.export{query}", content_type=None)
    assert reply.status == status


async def test_export_streams_a_zip_download(fake: FakeApi, app: ASGIApp) -> None:
    reply = await exchange(
        app, "GET", "/api/session.export?sessionId=s-1&includeDescendants=true", content_type=None
    )
    assert reply.status == 200
    assert reply.body == b"PK\x03\x04-first--second-"
    assert reply.headers["content-type"] == "application/zip"
    disposition = reply.headers["content-disposition"]
    assert disposition.startswith('attachment; filename="dsh-session-s-1.zip"')  # the reference's name
    assert unquote(disposition.split("filename*=UTF-8''")[1]) == "s-1 é.zip"
    assert [q.include_descendants for q in fake.signals.exports] == [True]


async def test_export_head_has_the_headers_and_no_body(fake: FakeApi, app: ASGIApp) -> None:
    get = await exchange(app, "GET", "/api/session.export?sessionId=s-1", content_type=None)
    fake.signals.export_chunks_called.clear()
    head = await exchange(app, "HEAD", "/api/session.export?sessionId=s-1", content_type=None)
    assert head.status == 200
    assert head.body == b""
    assert head.headers == get.headers
    assert not fake.signals.export_chunks_called.is_set()
    assert [q.include_descendants for q in fake.signals.exports] == [False, False]


async def test_export_over_real_http(app: ASGIApp) -> None:
    with serve(app) as base:
        async with httpx.AsyncClient() as http:
            got = await http.get(f"{base}/api/session.export", params={"sessionId": "s-1"})
            head = await http.head(f"{base}/api/session.export", params={"sessionId": "s-1"})
            missing = await http.head(f"{base}/api/session.export", params={"sessionId": "s-2"})
    assert got.status_code == 200
    assert got.content.startswith(b"PK")
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["content-disposition"] == got.headers["content-disposition"]
    assert missing.status_code == 404


# ---- OpenAPI -------------------------------------------------------------------------------


async def test_openapi_is_served(app: ASGIApp) -> None:
    reply = await exchange(app, "GET", "/api/openapi.json", content_type=None)
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/json"
    assert reply.json() == openapi_document()
