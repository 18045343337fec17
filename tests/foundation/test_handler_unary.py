"""`to_fetch_handler`: unary rules 1-10 and `/api/respond`, in the order of docs/architecture.md
("The handler")."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.types import ASGIApp

from contract.methods import SESSION_CREATE, SESSION_HISTORY, SESSION_LIST, SESSION_RENAME, SETTINGS_DESCRIBE
from contract.rpc import RpcErr
from host.fetch import AsgiExchange, to_fetch_handler
from tests.foundation.conftest import serve
from tests.foundation.fake_api import PENDING, FakeApi
from tests.foundation.helpers import envelope, exchange

LIST = envelope(SESSION_LIST, {})


# ---- rule 1: 415 before anything else ------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "json"],
)
async def test_415_for_anything_but_json(app: ASGIApp, content_type: str | None) -> None:
    reply = await exchange(app, "POST", "/api/session.list", LIST, content_type=content_type)
    assert reply.status == 415


async def test_415_comes_before_404_and_413(fake: FakeApi) -> None:
    app = to_fetch_handler(fake, max_body=10)
    assert (await exchange(app, "POST", "/api/nope", b"x", content_type="text/plain")).status == 415
    too_big = await exchange(app, "POST", "/api/session.list", b"x" * 100, content_type="text/plain")
    assert too_big.status == 415


@pytest.mark.parametrize(
    "content_type", ["application/json; charset=utf-8", "Application/JSON ; charset=UTF-8"]
)
async def test_json_media_type_parameters_are_allowed(app: ASGIApp, content_type: str) -> None:
    reply = await exchange(app, "POST", "/api/session.list", LIST, content_type=content_type)
    assert reply.status == 200
    assert reply.json()["result"]["ok"] is True


# ---- rule 2: 413, declared or while reading a chunked body --------------------------------


async def test_413_from_content_length(fake: FakeApi) -> None:
    app = to_fetch_handler(fake, max_body=64)
    reply = await exchange(app, "POST", "/api/session.list", b"{}" * 40)
    assert reply.status == 413


async def test_413_while_reading_a_chunked_body_stops_reading(fake: FakeApi) -> None:
    sent: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        for i in range(10_000):
            sent.append(i)
            yield b"x" * 100

    app = to_fetch_handler(fake, max_body=1000)
    reply = await exchange(app, "POST", "/api/session.list", endless())
    assert reply.status == 413
    assert len(sent) < 20, "the handler kept reading past the cap"


async def test_413_comes_before_404(fake: FakeApi) -> None:
    app = to_fetch_handler(fake, max_body=10)
    assert (await exchange(app, "POST", "/api/nope", b"{}" * 10)).status == 413


async def test_413_over_real_http_with_a_chunked_body(fake: FakeApi) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(50):
            yield b" " * 1024

    with serve(to_fetch_handler(fake, max_body=4096)) as base:
        async with httpx.AsyncClient() as http:
            headers = {"content-type": "application/json"}
            response = await http.post(f"{base}/api/session.list", content=chunks(), headers=headers)
            assert "content-length" not in response.request.headers
            assert response.status_code == 413


# ---- rule 3: 404 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/nope"),
        ("POST", "/api/session.list/extra"),
        ("POST", "/api/events.mux"),
        ("POST", "/api/session.export"),
        ("GET", "/api/session.list"),
        ("PUT", "/api/session.list"),
        ("DELETE", "/api/session.list"),
        ("GET", "/api/respond"),
        ("HEAD", "/api/events.mux"),
        ("GET", "/elsewhere"),
    ],
)
async def test_404_for_unknown_paths_and_wrong_methods(app: ASGIApp, method: str, path: str) -> None:
    assert (await exchange(app, method, path, LIST)).status == 404


# ---- rule 4: 400 for a body that is not JSON -----------------------------------------------


@pytest.mark.parametrize(
    "body", [b"", b"{", b"nope", b'{"a": NaN}', b"Infinity", b"\xff\xfe{", b"[" * 100_000]
)
async def test_400_when_the_body_is_not_json(app: ASGIApp, body: bytes) -> None:
    reply = await exchange(app, "POST", "/api/session.list", body)
    assert reply.status == 400
    assert reply.text == "body is not JSON"


# ---- rule 5: an invalid envelope is a 200 bad-request ----------------------------------------


async def test_invalid_envelope_salvages_a_string_rpc_id(app: ASGIApp) -> None:
    body = json.dumps({"type": "client-request", "rpcId": "mine", "method": "session.list"}).encode()
    reply = await exchange(app, "POST", "/api/session.list", body)
    assert reply.status == 200
    answer = reply.json()
    assert answer["type"] == "server-response"
    assert answer["rpcId"] == "mine"
    assert answer["result"]["error"]["code"] == "bad-request"
    assert any(issue["loc"][-1] == "payload" for issue in answer["result"]["error"]["details"]["issues"])


@pytest.mark.parametrize(
    "body",
    [
        {"type": "client-request", "rpcId": 7, "method": "session.list", "payload": {}},
        {"type": "client-request", "rpcId": "x" * 201, "method": "session.list", "payload": {}},
        {"rpcId": ["x"], "payload": {}},
        [1, 2],
        "client-request",
        None,
    ],
)
async def test_unsalvageable_rpc_id_answers_invalid_request(app: ASGIApp, body: object) -> None:
    reply = await exchange(app, "POST", "/api/session.list", json.dumps(body).encode())
    assert reply.status == 200
    assert reply.json()["rpcId"] == "invalid-request"
    assert reply.json()["result"]["error"]["code"] == "bad-request"


async def test_an_empty_rpc_id_is_accepted_and_echoed(app: ASGIApp) -> None:
    """As the reference's handler does: the id is the client's, echoed as sent."""
    body = json.dumps({"type": "client-request", "rpcId": "", "method": "session.list", "payload": {}})
    answer = (await exchange(app, "POST", "/api/session.list", body.encode())).json()
    assert answer["type"] == "server-response" and answer["rpcId"] == "" and answer["result"]["ok"] is True
    bad = json.dumps({"type": "client-request", "rpcId": "", "method": "session.list", "payload": {"x": 1}})
    answer = (await exchange(app, "POST", "/api/session.list", bad.encode())).json()
    assert answer["rpcId"] == "" and answer["result"]["error"]["code"] == "bad-request"


async def test_envelope_needs_its_type_discriminant(app: ASGIApp) -> None:
    body = json.dumps({"rpcId": "r-9", "method": "session.list", "payload": {}}).encode()
    answer = (await exchange(app, "POST", "/api/session.list", body)).json()
    assert (answer["rpcId"], answer["result"]["error"]["code"]) == ("r-9", "bad-request")


async def test_other_message_kinds_are_not_client_requests(app: ASGIApp) -> None:
    body = json.dumps({"type": "client-response", "rpcId": "r-2", "result": {"ok": True, "value": 1}})
    answer = (await exchange(app, "POST", "/api/session.list", body.encode())).json()
    assert answer["rpcId"] == "r-2"
    assert "expected a client-request" in answer["result"]["error"]["message"]
    assert [i["loc"] for i in answer["result"]["error"]["details"]["issues"]] == [["type"]]


async def test_unknown_envelope_fields_are_refused(app: ASGIApp) -> None:
    answer = (await exchange(app, "POST", "/api/session.list", envelope(SESSION_LIST, {}, extra=1))).json()
    assert answer["result"]["error"]["code"] == "bad-request"


# ---- rule 6: method/path mismatch ----------------------------------------------------------


async def test_method_that_does_not_match_the_path(app: ASGIApp) -> None:
    reply = await exchange(app, "POST", "/api/session.list", envelope(SESSION_CREATE, {}, rpc_id="r-6"))
    answer = reply.json()
    assert reply.status == 200
    assert answer["rpcId"] == "r-6"
    assert answer["result"]["error"]["code"] == "bad-request"
    assert "does not match path" in answer["result"]["error"]["message"]
    [issue] = answer["result"]["error"]["details"]["issues"]  # what was wrong, located
    assert issue["loc"] == ["method"] and issue["type"] == "method_mismatch"


# ---- rule 7: payload validation ------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        ({"sessionId": "s-1", "title": "x", "colour": "red"}, "colour"),
        ({"title": "x"}, "sessionId"),
        ({"sessionId": "bad id!", "title": "x"}, "sessionId"),
    ],
)
async def test_payload_issues_arrive_in_details(app: ASGIApp, payload: dict[str, str], loc: str) -> None:
    answer = (await exchange(app, "POST", "/api/session.rename", envelope(SESSION_RENAME, payload))).json()
    error = answer["result"]["error"]
    assert answer["rpcId"] == "r-1"
    assert error["code"] == "bad-request"
    assert [issue["loc"] for issue in error["details"]["issues"]] == [[loc]]
    assert all(set(issue) == {"loc", "msg", "type"} for issue in error["details"]["issues"])


# ---- rule 8: call, echo, value -------------------------------------------------------------


async def test_success_echoes_the_rpc_id_and_carries_the_value(app: ASGIApp) -> None:
    body = envelope(SESSION_RENAME, {"sessionId": "s-1", "title": "  Hi  "}, rpc_id="abc")
    reply = await exchange(app, "POST", "/api/session.rename", body)
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/json"
    assert reply.json() == {
        "type": "server-response",
        "rpcId": "abc",
        "result": {"ok": True, "value": {"title": "Hi", "seq": 3}},
    }


async def test_business_errors_are_typed_results_not_http_errors(app: ASGIApp) -> None:
    body = envelope(SESSION_HISTORY, {"sessionId": "missing"})
    reply = await exchange(app, "POST", "/api/session.history", body)
    assert reply.status == 200
    error = reply.json()["result"]["error"]
    assert error == {
        "code": "session-not-found",
        "message": "no session missing",
        "details": {"sessionId": "missing"},
    }


@pytest.mark.parametrize("session_id", ["bad-echo", "bad-value", "not-a-response"])
async def test_host_bugs_fail_loudly_with_500(app: ASGIApp, session_id: str) -> None:
    reply = await exchange(
        app, "POST", "/api/session.history", envelope(SESSION_HISTORY, {"sessionId": session_id})
    )
    assert reply.status == 500
    assert reply.text == "internal error"


async def test_value_validation_can_be_switched_off(fake: FakeApi) -> None:
    app = to_fetch_handler(fake, dev_validate=False)
    body = envelope(SESSION_HISTORY, {"sessionId": "bad-value"})
    answer = (await exchange(app, "POST", "/api/session.history", body)).json()
    assert answer["result"]["value"] == {"events": "not a list", "hasMore": True}


@pytest.mark.parametrize(("env", "status"), [(None, 200), ("0", 200), ("1", 500)])
async def test_value_validation_follows_the_environment_by_default(
    fake: FakeApi, monkeypatch: pytest.MonkeyPatch, env: str | None, status: int
) -> None:
    """The product (no variable) sends values unchecked; development and tests check them."""
    if env is None:
        monkeypatch.delenv("HARNESSDESK_DEV_VALIDATE", raising=False)
    else:
        monkeypatch.setenv("HARNESSDESK_DEV_VALIDATE", env)
    app = to_fetch_handler(fake)
    body = envelope(SESSION_HISTORY, {"sessionId": "bad-value"})
    assert (await exchange(app, "POST", "/api/session.history", body)).status == status


async def test_unimplemented_method_is_501(app: ASGIApp) -> None:
    reply = await exchange(app, "POST", "/api/settings.describe", envelope(SETTINGS_DESCRIBE, {}))
    assert reply.status == 501


# ---- rule 9: the implementation raised -----------------------------------------------------


async def test_implementation_exception_is_a_short_500(
    app: ASGIApp, caplog: pytest.LogCaptureFixture
) -> None:
    reply = await exchange(
        app, "POST", "/api/session.history", envelope(SESSION_HISTORY, {"sessionId": "boom"})
    )
    assert reply.status == 500
    assert reply.text == "internal error"
    assert "exploded" not in reply.text
    assert any("session.history raised" in r.getMessage() for r in caplog.records)


async def test_implementation_cancelled_on_its_own_answers_cancelled(app: ASGIApp) -> None:
    body = envelope(SESSION_HISTORY, {"sessionId": "self-cancelled"}, rpc_id="c-1")
    reply = await exchange(app, "POST", "/api/session.history", body)
    assert reply.status == 200
    answer = reply.json()
    assert (answer["rpcId"], answer["result"]["error"]["code"]) == ("c-1", "cancelled")
    body = envelope(SESSION_HISTORY, {"sessionId": "x"})
    again = await exchange(app, "POST", "/api/session.history", body)
    assert again.json()["result"]["ok"]  # the handler keeps answering


# ---- rule 10: a disconnecting client cancels the implementation ----------------------------


async def test_disconnect_cancels_the_implementation(fake: FakeApi, app: ASGIApp) -> None:
    body = envelope(SESSION_HISTORY, {"sessionId": "slow"}, rpc_id="gone")
    ex = AsgiExchange(app, "POST", "/api/session.history", {"content-type": "application/json"}, body)
    start = asyncio.ensure_future(ex.start())
    assert await asyncio.to_thread(fake.signals.entered.wait, 5)
    ex.disconnect()
    await asyncio.wait_for(start, 5)
    content = b"".join([c async for c in ex.body()])
    await ex.aclose()
    assert fake.signals.cancelled.is_set()
    answer = json.loads(content)
    assert answer["rpcId"] == "gone"
    assert answer["result"]["error"]["code"] == "cancelled"


async def test_disconnect_over_real_http_cancels_the_implementation(fake: FakeApi, app: ASGIApp) -> None:
    body = envelope(SESSION_HISTORY, {"sessionId": "slow"})
    with serve(app) as base:
        async with httpx.AsyncClient() as http:
            call = asyncio.ensure_future(
                http.post(
                    f"{base}/api/session.history", content=body, headers={"content-type": "application/json"}
                )
            )
            assert await asyncio.to_thread(fake.signals.entered.wait, 5)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        assert await asyncio.to_thread(fake.signals.cancelled.wait, 5)


# ---- POST /api/respond ---------------------------------------------------------------------


def answer(rpc_id: str, value: object) -> bytes:
    return json.dumps(
        {"type": "client-response", "rpcId": rpc_id, "result": {"ok": True, "value": value}}
    ).encode()


GOOD = {"sessionId": "s-1", "approvalId": "a-1", "outcome": "allowed-once"}


@pytest.mark.parametrize(
    ("body", "receipt"),
    [
        (answer(PENDING, GOOD), {"accepted": True}),
        (answer(PENDING, GOOD | {"approvalId": "a-2"}), {"accepted": False, "reason": "bad-response"}),
        (answer(PENDING, {"nonsense": 1}), {"accepted": False, "reason": "bad-response"}),
        (answer("other", GOOD), {"accepted": False, "reason": "not-pending"}),
        (envelope(SESSION_LIST, {}), {"accepted": False, "reason": "bad-response"}),
        (b'{"type": "client-response"}', {"accepted": False, "reason": "bad-response"}),
        (b"[]", {"accepted": False, "reason": "bad-response"}),
    ],
)
async def test_respond_receipts(app: ASGIApp, body: bytes, receipt: dict[str, object]) -> None:
    reply = await exchange(app, "POST", "/api/respond", body)
    assert reply.status == 200
    assert reply.json() == receipt


async def test_respond_passes_the_typed_message_to_the_api(fake: FakeApi, app: ASGIApp) -> None:
    cancelled = {"ok": False, "error": {"code": "cancelled", "message": "no", "details": {}}}
    body = json.dumps({"type": "client-response", "rpcId": PENDING, "result": cancelled}).encode()
    assert (await exchange(app, "POST", "/api/respond", body)).json() == {"accepted": True}
    (message,) = fake.signals.responses
    assert message.rpc_id == PENDING
    assert isinstance(message.result, RpcErr)
    assert message.result.error.code == "cancelled"


async def test_respond_shares_the_media_type_size_and_json_rules(fake: FakeApi) -> None:
    app = to_fetch_handler(fake, max_body=100)
    assert (
        await exchange(app, "POST", "/api/respond", answer(PENDING, GOOD), content_type="text/plain")
    ).status == 415
    assert (await exchange(app, "POST", "/api/respond", b" " * 200)).status == 413
    assert (await exchange(app, "POST", "/api/respond", b"{nope")).status == 400
    assert fake.signals.responses == []
