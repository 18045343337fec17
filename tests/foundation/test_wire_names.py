"""The wire is camelCase exactly: snake_case names are Python-side only and refused inbound."""

from __future__ import annotations

import json

from starlette.types import ASGIApp

from contract.methods import SESSION_HISTORY
from tests.foundation.helpers import envelope, exchange


async def test_snake_case_payload_is_a_bad_request(app: ASGIApp) -> None:
    reply = await exchange(
        app, "POST", "/api/session.history", envelope(SESSION_HISTORY, {"session_id": "s"})
    )
    error = reply.json()["result"]["error"]
    assert reply.status == 200
    assert error["code"] == "bad-request"
    assert ["sessionId"] in [issue["loc"] for issue in error["details"]["issues"]]


async def test_snake_case_envelope_is_a_bad_request(app: ASGIApp) -> None:
    body = json.dumps({"type": "client-request", "rpc_id": "r-9", "method": "session.list", "payload": {}})
    reply = await exchange(app, "POST", "/api/session.list", body.encode())
    result = reply.json()
    assert result["rpcId"] == "invalid-request"  # no `rpcId` key, so nothing to salvage
    assert result["result"]["error"]["code"] == "bad-request"


async def test_camel_case_payload_passes(app: ASGIApp) -> None:
    reply = await exchange(app, "POST", "/api/session.history", envelope(SESSION_HISTORY, {"sessionId": "s"}))
    assert reply.json()["result"]["ok"] is True
