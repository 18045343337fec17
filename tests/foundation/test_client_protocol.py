"""Clients facing a misbehaving peer: raw ASGI apps that answer what we choose, byte by byte."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.types import Receive, Scope, Send

from contract.frames import SessionSubscribed
from contract.methods import SESSION_LIST
from host.fetch import HttpApiClient, InProcessApiClient, ProtocolError, TransportError
from tests.foundation.conftest import ClientFactory, serve

Answer = Callable[[dict[str, Any]], Any]


def unary_app(answer: Answer, *, content_type: bytes = b"application/json", raw: bytes | None = None) -> Any:
    """An app that answers every POST with `answer(client_request)` (or fixed raw bytes)."""
    seen: list[dict[str, Any]] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body)
        seen.append({"request": request, "headers": dict(scope["headers"])})
        content = raw if raw is not None else json.dumps(answer(request)).encode()
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", content_type)]}
        )
        await send({"type": "http.response.body", "body": content})

    app.seen = seen  # type: ignore[attr-defined]
    return app


def sse_app(chunks: list[bytes], content_type: bytes = b"text/event-stream") -> Any:
    """An app that answers every GET with exactly these body chunks, then ends."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", content_type)]}
        )
        for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


def ok_list(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "server-response",
        "rpcId": request["rpcId"],
        "result": {"ok": True, "value": {"items": []}},
    }


async def test_rpc_id_echo_mismatch_raises(client_for: ClientFactory) -> None:
    app = unary_app(lambda req: ok_list(req) | {"rpcId": "not-yours"})
    async with client_for(app) as client:
        with pytest.raises(ProtocolError, match="echoes 'not-yours'"):
            await client.call(SESSION_LIST, {})


@pytest.mark.parametrize(
    "answer",
    [
        lambda req: ok_list(req) | {"result": {"ok": True, "value": {"items": "nope"}}},
        lambda req: ok_list(req) | {"result": {"ok": True, "value": {"items": [], "extra": 1}}},
        lambda req: (
            ok_list(req)
            | {"result": {"ok": False, "error": {"code": "made-up", "message": "", "details": {}}}}
        ),
        lambda req: ok_list(req) | {"type": "server-request", "method": "x", "payload": {}},
        lambda req: {k: v for k, v in ok_list(req).items() if k != "type"},
        lambda req: [ok_list(req)],
    ],
)
async def test_answers_that_break_the_contract_raise_protocol_error(
    client_for: ClientFactory, answer: Answer
) -> None:
    async with client_for(unary_app(answer)) as client:
        with pytest.raises(ProtocolError):
            await client.call(SESSION_LIST, {})


async def test_non_json_answer_raises_protocol_error(client_for: ClientFactory) -> None:
    async with client_for(unary_app(ok_list, raw=b"<html>")) as client:
        with pytest.raises(ProtocolError, match="not JSON"):
            await client.call(SESSION_LIST, {})


async def test_request_envelope_on_the_wire(client_for: ClientFactory) -> None:
    app = unary_app(ok_list)
    async with client_for(app) as client:
        await client.call(SESSION_LIST, {"cursor": "c-1"})
    (seen,) = app.seen
    request = seen["request"]
    assert set(request) == {"type", "rpcId", "method", "payload"}
    assert request["type"] == "client-request"
    assert request["method"] == "session.list"
    assert request["payload"] == {"cursor": "c-1"}
    assert len(request["rpcId"]) == 36
    assert seen["headers"][b"content-type"] == b"application/json"


async def test_http_client_sends_the_bearer_token() -> None:
    app = unary_app(ok_list)
    with serve(app) as base:
        async with HttpApiClient(base, token="s3cret") as client:
            await client.call(SESSION_LIST, {})
        async with HttpApiClient(base) as client:
            await client.call(SESSION_LIST, {})
    assert app.seen[0]["headers"][b"authorization"] == b"Bearer s3cret"
    assert b"authorization" not in app.seen[1]["headers"]


def frame_bytes(rpc_id: str, payload: dict[str, Any], method: str | None = None) -> bytes:
    message = {
        "type": "server-request",
        "rpcId": rpc_id,
        "method": method or payload["type"],
        "payload": payload,
    }
    return b"data: " + json.dumps(message).encode() + b"\n\n"


SUB = {"type": "session/subscribed", "sessionId": "s-1", "lastSeq": -1}


async def test_malformed_frames_are_logged_and_skipped(
    client_for: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    body = [
        frame_bytes("a", SUB),
        b"data: {not json\n\n",
        frame_bytes("b", {"type": "made/up", "sessionId": "s-1"}),
        frame_bytes("c", SUB, method="session/queue"),
        b'data: {"type": "server-response", "rpcId": "d", "result": {"ok": true, "value": 1}}\n\n',
        frame_bytes("e", SUB | {"lastSeq": "x"}),
        b": comment\n\n",
        frame_bytes("f", SUB),
    ]
    async with client_for(sse_app(body)) as client:
        got = [rpc_id async for rpc_id, _frame in client.stream("events.mux")]
    assert got == ["a", "f"]
    assert len([r for r in caplog.records if "dropping" in r.getMessage()]) == 5


async def test_a_stream_that_is_not_sse_is_refused(client_for: ClientFactory) -> None:
    async with client_for(sse_app([b"{}"], content_type=b"application/json")) as client:
        with pytest.raises(ProtocolError, match="text/event-stream"):
            await anext(client.stream("events.mux"))


def test_unknown_stream_key_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown stream"):
        InProcessApiClient(sse_app([])).stream("events.nope")


async def test_a_cut_off_app_is_a_transport_error() -> None:
    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": frame_bytes("a", SUB), "more_body": True})
        raise RuntimeError("crash mid-stream")

    frames = InProcessApiClient(broken).stream("events.mux")
    assert (await anext(frames))[0] == "a"
    with pytest.raises(TransportError):
        await anext(frames)
    assert frames.closed


# ---- SSE cut at any byte, through the whole client -------------------------------------------

FRAMES = [
    frame_bytes("r-1", SUB).replace(b"\n", b"\r\n"),
    frame_bytes(
        "r-2",
        {"type": "session/projection", "sessionId": "s-1", "key": "title", "value": "日本語 ✓ 🎉", "seq": 1},
    ),
    b": heartbeat\r\r",
    frame_bytes("r-3", SUB | {"lastSeq": 7}).replace(b"\n", b"\r"),
]
WIRE = b"".join(FRAMES)


@st.composite
def cuts(draw: st.DrawFn) -> list[bytes]:
    points = sorted(draw(st.sets(st.integers(min_value=1, max_value=len(WIRE) - 1), max_size=40)))
    edges = [0, *points, len(WIRE)]
    return [WIRE[a:b] for a, b in itertools.pairwise(edges)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunks=cuts())
def test_frames_cut_anywhere_arrive_whole(chunks: list[bytes]) -> None:
    async def run() -> list[tuple[str, Any]]:
        async with InProcessApiClient(sse_app(chunks)).stream("events.mux") as frames:
            return [pair async for pair in frames]

    got = asyncio.run(run())
    assert [rpc_id for rpc_id, _ in got] == ["r-1", "r-2", "r-3"]
    assert got[0][1] == SessionSubscribed(session_id="s-1", last_seq=-1)
    assert got[1][1].value == "日本語 ✓ 🎉"
    assert got[2][1].last_seq == 7
