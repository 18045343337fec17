"""Unary calls (`POST /api/<key>`) and client answers (`POST /api/respond`), JSON in, JSON out.

Everything a client can get wrong becomes a typed `bad-request` (or a `bad-response` receipt)
inside an HTTP 200; everything the host gets wrong becomes a 500 and a log line, so a host bug
fails loudly instead of reaching clients as a plausible answer.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from pydantic import ValidationError
from starlette.types import Receive

from contract._base import FROM_WIRE, to_wire
from contract.errors import bad_request, issues_of, rpc_error
from contract.methods import AnyMethod
from contract.rpc import (
    RPC_MESSAGE,
    RPC_RECEIPT,
    ClientRequest,
    ClientResponse,
    ReceiptRefused,
    RpcOk,
    RpcResponse,
    ServerResponse,
    request_model,
)
from host.fetch.caller import reset_caller, set_caller
from host.fetch.connection import run_unless_disconnected
from host.fetch.inbound import ClientGone, EncodedJson, Reject, WireEncoded, json_bytes
from host.fetch.proxy import ApiProxy, resolve

log = logging.getLogger("host.fetch")

INVALID_REQUEST = "invalid-request"
"""The rpcId answering an envelope whose own rpcId cannot be salvaged."""


class HostBug(Exception):
    """The implementation broke the contract (bad echo, bad value); answered with a 500."""


def salvage_rpc_id(body: Any) -> str:
    """The request's rpcId if it is a usable string, else `invalid-request`."""
    rpc_id = body.get("rpcId") if isinstance(body, dict) else None
    if isinstance(rpc_id, str) and len(rpc_id) <= 200:
        return rpc_id
    return INVALID_REQUEST


def failure(rpc_id: str, error: Any) -> dict[str, Any]:
    """A server-response carrying a typed error."""
    return {"type": "server-response", "rpcId": rpc_id, "result": {"ok": False, "error": to_wire(error)}}


def checked_envelope(
    m: AnyMethod, rpc_id: str, response: Any, dev_validate: bool
) -> dict[str, Any] | EncodedJson:
    """The server-response for an implementation's answer, after the host-bug checks."""
    if not isinstance(response, RpcResponse):
        raise HostBug(f"{m.key} returned {type(response).__name__}, not an RpcResponse")
    if response.rpc_id != rpc_id:
        raise HostBug(f"{m.key} echoed rpcId {response.rpc_id!r} for {rpc_id!r}")
    if isinstance(response.result, RpcOk) and isinstance(response.result.value, WireEncoded):
        return encoded_envelope(m, rpc_id, response.result.value.wire_json(), dev_validate)
    if isinstance(response.result, RpcOk):
        value = to_wire(response.result.value)
        if dev_validate:
            try:
                m.value.model_validate(value)
            except ValidationError as exc:
                raise HostBug(f"{m.key} returned a value that fails {m.value.__name__}: {exc}") from exc
        envelope = {"type": "server-response", "rpcId": rpc_id, "result": {"ok": True, "value": value}}
    else:
        envelope = failure(rpc_id, response.result.error)
    if dev_validate:
        try:
            ServerResponse.model_validate(envelope)
        except ValidationError as exc:
            raise HostBug(f"{m.key} produced an invalid server-response: {exc}") from exc
    return envelope


def encoded_envelope(m: AnyMethod, rpc_id: str, value: bytes, dev_validate: bool) -> EncodedJson:
    """The server-response around a value already encoded: the bytes `checked_envelope` would
    give for the value it stands for (the same keys in the same order), without decoding it."""
    if dev_validate:
        try:
            m.value.model_validate_json(value)
        except ValidationError as exc:
            raise HostBug(f"{m.key} returned a value that fails {m.value.__name__}: {exc}") from exc
    head = b'{"type":"server-response","rpcId":' + json_bytes(rpc_id) + b',"result":{"ok":true,"value":'
    return EncodedJson(head + value + b"}}")


def _issue(field: str, msg: str, kind: str) -> dict[str, Any]:
    """One validation issue for an envelope field (every `bad-request` names what was wrong)."""
    return {"loc": [field], "msg": msg, "type": kind}


async def call_unary(
    api: ApiProxy, m: AnyMethod, body: Any, receive: Receive, *, dev_validate: bool, privileged: bool = True
) -> dict[str, Any] | EncodedJson:
    """Rules 5-10 of docs/architecture.md ("The handler"): envelope, path match, payload, call,
    echo, value, cancel. `privileged`: the fence's verdict on the caller (`host/fetch/caller.py`)."""
    try:
        message = RPC_MESSAGE.validate_python(body, **FROM_WIRE)
    except ValidationError as exc:
        return failure(salvage_rpc_id(body), bad_request("invalid client-request envelope", issues_of(exc)))
    if not isinstance(message, ClientRequest):
        wrong = f"expected a client-request, got {message.type}"
        return failure(
            salvage_rpc_id(body), bad_request(wrong, [_issue("type", wrong, "unexpected_message")])
        )
    rpc_id = message.rpc_id
    if message.method != m.key:
        mismatch = f"method {message.method!r} does not match path /api/{m.key}"
        return failure(rpc_id, bad_request(mismatch, [_issue("method", mismatch, "method_mismatch")]))
    try:
        payload = m.request.model_validate(message.payload, **FROM_WIRE)
    except ValidationError as exc:
        return failure(rpc_id, bad_request(f"invalid payload for {m.key}", issues_of(exc)))
    impl = resolve(api, m)
    if impl is None:
        raise Reject(501, f"{m.key} is not implemented by this host")
    request = request_model(m.request)(rpc_id=rpc_id, payload=payload)
    caller = set_caller(privileged)  # the call's task copies this context when it starts
    try:
        response = await run_unless_disconnected(receive, impl(request))
    except ClientGone:
        return failure(rpc_id, rpc_error("cancelled", "the caller went away"))
    except asyncio.CancelledError:
        if _this_task_cancelled():
            raise  # the host is shutting the request down: not an answer to give
        return failure(rpc_id, rpc_error("cancelled", "the request was cancelled"))
    except Exception as exc:
        log.exception("%s raised", m.key)
        raise Reject(500, "internal error") from exc
    finally:
        reset_caller(caller)
    try:
        return checked_envelope(m, rpc_id, response, dev_validate)
    except HostBug as exc:
        log.error("host bug: %s", exc)
        raise Reject(500, "internal error") from exc


def _this_task_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def call_respond(api: ApiProxy, body: Any, *, dev_validate: bool) -> dict[str, Any]:
    """`/api/respond`: anything but a client-response is `bad-response`; else the api decides."""
    try:
        message = RPC_MESSAGE.validate_python(body, **FROM_WIRE)
    except ValidationError:
        return ReceiptRefused(reason="bad-response").dump()
    if not isinstance(message, ClientResponse):
        return ReceiptRefused(reason="bad-response").dump()
    try:
        receipt = to_wire(await api.respond(message))
    except Exception as exc:
        log.exception("respond raised")
        raise Reject(500, "internal error") from exc
    if dev_validate:
        try:
            RPC_RECEIPT.validate_python(receipt)
        except ValidationError as exc:
            log.error("host bug: respond returned an invalid receipt: %s", exc)
            raise Reject(500, "internal error") from exc
    return dict(receipt)
