"""The four-quadrant RPC messages, results, errors and receipts.

See docs/architecture.md, "Four-quadrant messages".
"""

from __future__ import annotations

import functools
import uuid
from typing import Annotated, Any, Generic, Literal, TypeVar, Union

from pydantic import Field, TypeAdapter

from contract._base import DEFERRED, WireModel
from contract.errors import RpcError

RpcId = Annotated[str, Field(min_length=1, max_length=200)]
"""Opaque id; whoever starts an exchange mints it, a response echoes it."""

UnaryRpcId = Annotated[str, Field(max_length=200)]
"""A unary call's rpcId: the client's, echoed as sent — an empty string included, as the
reference's handler accepts it (docs/decisions.md, "Goals, vetoes, views and export")."""

T = TypeVar("T")
P = TypeVar("P")


def new_rpc_id() -> str:
    """Mint a fresh rpcId (UUIDv4), for whoever starts an exchange."""
    return str(uuid.uuid4())


class RpcOk(WireModel, Generic[T]):
    ok: Literal[True] = True
    value: T


class RpcErr(WireModel):
    ok: Literal[False] = False
    error: RpcError


class RpcRequest(WireModel, Generic[P]):
    """The narrow request a domain method receives: the carrier strips `type` and `method`."""

    rpc_id: UnaryRpcId
    payload: P


class RpcResponse(WireModel, Generic[T]):
    """The narrow response a domain method returns; `rpcId` must echo the request's."""

    rpc_id: UnaryRpcId
    result: Annotated[Union[RpcOk[T], RpcErr], Field(discriminator="ok")]

    @property
    def ok(self) -> bool:
        return isinstance(self.result, RpcOk)


# ---- the four wire messages --------------------------------------------------------------


class ClientRequest(WireModel):
    """Body of `POST /api/<method>`; the payload is checked against the method's model later."""

    type: Literal["client-request"] = "client-request"
    rpc_id: UnaryRpcId
    method: str
    payload: dict[str, Any]


class ServerResponse(WireModel):
    """Body of the HTTP 200 answering a client-request."""

    type: Literal["server-response"] = "server-response"
    rpc_id: UnaryRpcId
    result: Annotated[Union[RpcOk[Any], RpcErr], Field(discriminator="ok")]


class ServerRequest(WireModel):
    """One SSE frame: `method` equals the frame's `type`, `payload` is the frame."""

    type: Literal["server-request"] = "server-request"
    rpc_id: RpcId
    method: str
    payload: dict[str, Any]


class ClientResponse(WireModel):
    """Body of `POST /api/respond`: the answer to an answerable server-request."""

    type: Literal["client-response"] = "client-response"
    rpc_id: RpcId
    result: Annotated[Union[RpcOk[Any], RpcErr], Field(discriminator="ok")]


RpcMessage = Annotated[
    Union[ClientRequest, ServerResponse, ServerRequest, ClientResponse],
    Field(discriminator="type"),
]
RPC_MESSAGE: TypeAdapter[Any] = TypeAdapter(RpcMessage, config=DEFERRED)


class ReceiptAccepted(WireModel):
    accepted: Literal[True] = True


class ReceiptRefused(WireModel):
    accepted: Literal[False] = False
    reason: Literal["not-pending", "bad-response"]


RpcReceipt = Annotated[Union[ReceiptAccepted, ReceiptRefused], Field(discriminator="accepted")]
RPC_RECEIPT: TypeAdapter[Any] = TypeAdapter(RpcReceipt, config=DEFERRED)


@functools.cache
def request_model(payload: Any) -> type[RpcRequest[Any]]:
    """`RpcRequest[payload]`, built once. pydantic caches a parametrised model only while
    something else holds it, so an unheld `RpcRequest[X]` is rebuilt (several ms of schema
    generation) after each garbage collection: every call paid it (docs/decisions.md)."""
    return RpcRequest[payload]


@functools.cache
def response_model(value: Any) -> type[RpcResponse[Any]]:
    """`RpcResponse[value]`, built once (see `request_model`)."""
    return RpcResponse[value]


_AnyOk = RpcOk[Any]
_AnyResponse = response_model(Any)
request_model(Any)  # held: the streams wrap each frame in an `RpcRequest[Any]`


def ok(rpc_id: str, value: Any) -> RpcResponse[Any]:
    """Build a successful narrow response echoing `rpc_id`."""
    return _AnyResponse(rpc_id=rpc_id, result=_AnyOk(value=value))


def fail(rpc_id: str, error: RpcError) -> RpcResponse[Any]:
    """Build a failed narrow response echoing `rpc_id`."""
    return _AnyResponse(rpc_id=rpc_id, result=RpcErr(error=error))
