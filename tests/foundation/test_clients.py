"""The Python clients against the same app: in-process (ASGI driver) and HTTP (real uvicorn)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from contract.errors import ERROR_MODELS
from contract.frames import HostSessionStatus, SessionQueue, SessionSubscribed, StreamError
from contract.methods import HOST_PICK_DIRECTORY, SESSION_HISTORY, SESSION_LIST, SESSION_RENAME, Method
from contract.rpc import (
    ClientRequest,
    ClientResponse,
    ReceiptAccepted,
    ReceiptRefused,
    RpcErr,
    RpcOk,
    RpcRequest,
    ServerRequest,
    ServerResponse,
)
from contract.sessions import HistoryValue, ListRequest, ListValue, RenameRequest, RenameValue
from host.fetch import AbstractApiClient, HttpApiClient, TransportError, to_fetch_handler
from tests.foundation.conftest import ClientFactory
from tests.foundation.fake_api import PENDING, FakeApi


async def test_call_returns_the_typed_value(client: AbstractApiClient) -> None:
    response = await client.call(SESSION_LIST, {})
    assert response.ok
    assert isinstance(response.result, RpcOk)
    assert isinstance(response.result.value, ListValue)
    assert response.result.value.items[0].session_id == "s-1"


async def test_payload_may_be_a_model_and_access_may_be_by_attribute(client: AbstractApiClient) -> None:
    response = await client.api.session.rename(RenameRequest(session_id="s-1", title=" New "))
    assert isinstance(response.result, RpcOk)
    assert response.result.value == RenameValue(title="New", seq=3)
    history = await client.api.session.history({"sessionId": "s-1"})
    assert isinstance(history.result, RpcOk)
    assert isinstance(history.result.value, HistoryValue)
    assert history.result.value.events[0].event.type == "turn/start"


async def test_unknown_methods_and_domains_are_programming_errors(client: AbstractApiClient) -> None:
    with pytest.raises(KeyError):
        await client.call(Method("session.nope", ListRequest, ListValue), {})
    with pytest.raises(AttributeError):
        _ = client.api.nope
    with pytest.raises(AttributeError):
        _ = client.api.session.nope


async def test_business_error_is_a_typed_result(client: AbstractApiClient) -> None:
    response = await client.call(SESSION_HISTORY, {"sessionId": "missing"})
    assert not response.ok
    assert isinstance(response.result, RpcErr)
    assert isinstance(response.result.error, ERROR_MODELS["session-not-found"])
    assert response.result.error.details.session_id == "missing"


async def test_bad_request_comes_back_as_a_result(client: AbstractApiClient) -> None:
    response = await client.call(SESSION_RENAME, {"sessionId": "s-1"})
    assert isinstance(response.result, RpcErr)
    assert response.result.error.code == "bad-request"
    assert response.result.error.details.issues[0]["loc"] == ["title"]


async def test_http_500_raises_transport_error(client: AbstractApiClient) -> None:
    with pytest.raises(TransportError) as caught:
        await client.call(SESSION_HISTORY, {"sessionId": "boom"})
    assert caught.value.status == 500


async def test_timeout_raises_and_cancels_the_implementation(
    client_for: ClientFactory, fake: FakeApi, app: Any
) -> None:
    async with client_for(app, timeout=0.5) as client:
        with pytest.raises(TransportError, match="timed out"):
            await client.call(SESSION_HISTORY, {"sessionId": "slow"})
        assert fake.signals.entered.is_set()
        assert await asyncio.to_thread(fake.signals.cancelled.wait, 5), "the impl never saw CancelledError"


async def test_a_user_paced_method_is_not_bound_by_the_unary_timeout(
    client_for: ClientFactory, app: Any
) -> None:
    async with client_for(app, timeout=0.5) as client:
        picked = await client.call(HOST_PICK_DIRECTORY, {})
        assert (
            isinstance(picked.result, RpcOk) and picked.result.value.path == "/picked"
        )  # a second in the dialog, past the 0.5 s bound
        with pytest.raises(TransportError, match="timed out"):
            await client.call(SESSION_HISTORY, {"sessionId": "slow"})


async def test_respond_returns_receipts(client: AbstractApiClient, fake: FakeApi) -> None:
    good = {"sessionId": "s-1", "approvalId": "a-1", "outcome": "rejected"}
    assert await client.respond(PENDING, {"ok": True, "value": good}) == ReceiptAccepted()
    assert await client.respond("late", RpcOk[Any](value=good)) == ReceiptRefused(reason="not-pending")
    bad = await client.respond(PENDING, {"ok": True, "value": {"sessionId": "s-1"}})
    assert bad == ReceiptRefused(reason="bad-response")
    assert [r.rpc_id for r in fake.signals.responses] == [PENDING, "late", PENDING]


async def test_stream_yields_typed_frames(client: AbstractApiClient, fake: FakeApi) -> None:
    queue = SessionQueue(session_id="s-1", items=[])
    fake.mux_script = [
        SessionSubscribed(session_id="s-1", last_seq=-1),
        RpcRequest[Any](rpc_id="stable-1", payload=queue),
        "hang",
    ]
    async with client.stream("events.mux") as frames:
        got = [await anext(frames), await anext(frames)]
    assert isinstance(got[0][1], SessionSubscribed)
    assert got[1] == ("stable-1", queue)
    assert frames.last_event_id == "1"


async def test_stopping_early_closes_the_host_generator(client: AbstractApiClient, fake: FakeApi) -> None:
    async with client.stream("events.host") as frames:
        async for _rpc_id, frame in frames:
            assert isinstance(frame, HostSessionStatus)
            break
        assert not fake.signals.host_closed.is_set()
    assert frames.closed
    assert await asyncio.to_thread(fake.signals.host_closed.wait, 5)


async def test_stream_without_context_manager_closes_with_aclose(
    client: AbstractApiClient, fake: FakeApi
) -> None:
    frames = client.stream("events.mux")
    _rpc_id, frame = await anext(frames)
    assert isinstance(frame, SessionSubscribed)
    await frames.aclose()
    assert await asyncio.to_thread(fake.signals.mux_closed.wait, 5)
    with pytest.raises(StopAsyncIteration):
        await anext(frames)


async def test_heartbeats_are_counted(client: AbstractApiClient, fake: FakeApi) -> None:
    fake.mux_script = [("sleep", 0.45), SessionSubscribed(session_id="s-1", last_seq=-1), "hang"]
    async with client.stream("events.mux") as frames:
        _rpc_id, frame = await anext(frames)
        assert isinstance(frame, SessionSubscribed)
        assert frames.heartbeats >= 2


async def test_host_failure_arrives_as_stream_error_then_the_stream_ends(
    client: AbstractApiClient, fake: FakeApi
) -> None:
    fake.mux_script = [RuntimeError("boom")]
    async with client.stream("events.mux") as frames:
        got = [frame async for _rpc_id, frame in frames]
    assert len(got) == 1
    assert isinstance(got[0], StreamError)
    assert got[0].error.code == "internal"


async def test_stream_refused_with_http_status(client_for: ClientFactory) -> None:
    fake = FakeApi()
    fake.events = None  # type: ignore[assignment]
    async with client_for(to_fetch_handler(fake)) as client:
        with pytest.raises(TransportError) as caught:
            await anext(client.stream("events.mux"))
    assert caught.value.status == 501


async def test_observers_get_every_message_and_are_isolated(
    client: AbstractApiClient, caplog: pytest.LogCaptureFixture
) -> None:
    batches: list[Sequence[Any]] = []

    def broken(batch: Sequence[Any]) -> None:
        raise RuntimeError("observer bug")

    client.subscribe_envelopes(broken)
    client.subscribe_envelopes(batches.append)
    await client.call(SESSION_LIST, {})
    await client.respond("late", {"ok": True, "value": 1})
    async with client.stream("events.mux") as frames:
        await anext(frames)
    await asyncio.sleep(0)
    kinds = [type(m) for batch in batches for m in batch]
    assert kinds == [ClientRequest, ServerResponse, ClientResponse, ServerRequest]
    assert sum("observer bug" in str(r.exc_info) for r in caplog.records if r.exc_info) == len(batches)


async def test_observers_are_batched_per_tick_and_can_unsubscribe(client: AbstractApiClient) -> None:
    batches: list[Sequence[Any]] = []
    stop = client.subscribe_envelopes(batches.append)
    await asyncio.gather(*(client.call(SESSION_LIST, {}) for _ in range(3)))
    await asyncio.sleep(0)
    assert [type(m) for m in batches[0]] == [ClientRequest] * 3
    assert sum(len(b) for b in batches) == 6
    stop()
    await client.call(SESSION_LIST, {})
    await asyncio.sleep(0)
    assert sum(len(b) for b in batches) == 6


async def test_unreachable_host_raises_transport_error() -> None:
    async with HttpApiClient("http://127.0.0.1:9", timeout=5) as client:
        with pytest.raises(TransportError):
            await client.call(SESSION_LIST, {})
