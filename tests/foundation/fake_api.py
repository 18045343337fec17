"""A small ApiProxy for carrier tests (the real one lives in host/api/).

It holds no loop-bound state: signals are `threading.Event`s, so tests can watch it whether it
runs in the test's event loop (in-process) or in uvicorn's thread (HTTP).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from contract.approvals import ApprovalAnswer
from contract.errors import rpc_error
from contract.events import SessionEvent
from contract.frames import HostSessionStatus, SessionSubscribed
from contract.host import DescribeValue, PickDirectoryValue
from contract.rpc import (
    ClientResponse,
    ReceiptAccepted,
    ReceiptRefused,
    RpcOk,
    RpcRequest,
    RpcResponse,
    fail,
    new_rpc_id,
    ok,
)
from contract.sessions import (
    ExportQuery,
    HistoryValue,
    ListValue,
    RenameValue,
    SessionRef,
    SessionSummary,
)
from contract.views import HistoryEntry
from host.fetch.proxy import ExportArchive

PENDING = "pending-1"
"""The one rpcId the fake treats as a pending approval (session s-1, approval a-1)."""


def push(frame: Any) -> RpcRequest[Any]:
    """A push frame as the api yields it: a fresh rpcId per emission."""
    return RpcRequest[Any](rpc_id=new_rpc_id(), payload=frame)


class Signals:
    def __init__(self) -> None:
        self.entered = threading.Event()
        self.cancelled = threading.Event()
        self.mux_closed = threading.Event()
        self.host_closed = threading.Event()
        self.export_chunks_called = threading.Event()
        self.responses: list[ClientResponse] = []
        self.exports: list[ExportQuery] = []


class SessionDomain:
    def __init__(self, fake: FakeApi) -> None:
        self.fake = fake

    async def list(self, request: RpcRequest[Any]) -> RpcResponse[Any]:
        summary = SessionSummary(session_id="s-1", updated_at=1, running=False, blank=False, title="One")
        return ok(request.rpc_id, ListValue(items=[summary]))

    async def create(self, request: RpcRequest[Any]) -> RpcResponse[Any]:
        return ok(request.rpc_id, SessionRef(session_id=request.payload.session_id or "s-new"))

    async def rename(self, request: RpcRequest[Any]) -> RpcResponse[Any]:
        return ok(request.rpc_id, RenameValue(title=request.payload.title.strip(), seq=3))

    async def history(self, request: RpcRequest[Any]) -> RpcResponse[Any]:
        rid, sid = request.rpc_id, request.payload.session_id
        trick = sid if self.fake.tricks else ""
        if trick == "boom":
            raise RuntimeError("the implementation exploded")
        if trick == "self-cancelled":
            raise asyncio.CancelledError()
        if trick == "slow":
            self.fake.signals.entered.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                self.fake.signals.cancelled.set()
                raise
        if trick == "bad-echo":
            return ok("someone-else", HistoryValue(events=[], has_more=False))
        if trick == "bad-value":
            return ok(rid, {"events": "not a list", "hasMore": True})
        if trick == "not-a-response":
            return {"rpcId": rid}  # type: ignore[return-value]
        if trick == "missing" or not self.fake.tricks:
            return fail(rid, rpc_error("session-not-found", f"no session {sid}", session_id=sid))
        event = SessionEvent(type="turn/start", seq=0, time=5, data={"turn": 0, "trigger": "user"})
        return ok(rid, HistoryValue(events=[HistoryEntry(event=event)], has_more=False))


class HostDomain:
    async def describe(self, request: RpcRequest[Any]) -> RpcResponse[Any]:
        value = DescribeValue(
            version="0", cwd="/", home="/", attached_sessions=0, can_open_path=False, host_instance_id="h"
        )
        return ok(request.rpc_id, value)

    async def pick_directory(self, request: RpcRequest[Any]) -> RpcResponse[Any]:
        """Like a user taking their time in a folder dialog: longer than a short client timeout."""
        await asyncio.sleep(1.0)
        return ok(request.rpc_id, PickDirectoryValue(path="/picked"))


class Events:
    def __init__(self, fake: FakeApi) -> None:
        self.fake = fake

    async def mux(self) -> AsyncIterator[RpcRequest[Any]]:
        try:
            async for item in self.fake.play(self.fake.mux_script):
                yield item
        finally:
            self.fake.signals.mux_closed.set()

    async def host(self) -> AsyncIterator[RpcRequest[Any]]:
        try:
            async for item in self.fake.play(self.fake.host_script):
                yield item
        finally:
            self.fake.signals.host_closed.set()


class FakeApi:
    """Scripted streams: items are frames (wrapped as pushes), RpcRequests, `("sleep", s)`,
    `"hang"` (wait until closed), or an Exception (raised)."""

    def __init__(self, *, tricks: bool = True) -> None:
        self.tricks = tricks
        self.signals = Signals()
        self.session = SessionDomain(self)
        self.host = HostDomain()
        self.events = Events(self)
        sub = SessionSubscribed(session_id="s-1", last_seq=-1)
        self.mux_script: list[Any] = [sub, "hang"]
        self.host_script: list[Any] = [HostSessionStatus(session_id="s-1", running=True), "hang"]

    @staticmethod
    async def play(script: list[Any]) -> AsyncIterator[RpcRequest[Any]]:
        for item in script:
            if isinstance(item, BaseException):
                raise item
            if item == "hang":
                await asyncio.sleep(3600)
            elif isinstance(item, tuple):
                await asyncio.sleep(item[1])
            elif isinstance(item, RpcRequest):
                yield item
            else:
                yield push(item)

    async def respond(self, response: ClientResponse) -> ReceiptAccepted | ReceiptRefused:
        self.signals.responses.append(response)
        if response.rpc_id != PENDING:
            return ReceiptRefused(reason="not-pending")
        if not isinstance(response.result, RpcOk):
            return ReceiptAccepted()
        try:
            answer = ApprovalAnswer.model_validate(response.result.value)
        except ValueError:
            return ReceiptRefused(reason="bad-response")
        if (answer.session_id, answer.approval_id) != ("s-1", "a-1"):
            return ReceiptRefused(reason="bad-response")
        return ReceiptAccepted()

    async def export_session(self, query: ExportQuery) -> ExportArchive | None:
        self.signals.exports.append(query)
        if query.session_id != "s-1":
            return None

        async def chunks() -> AsyncIterator[bytes]:
            self.signals.export_chunks_called.set()
            for part in (b"PK\x03\x04", b"-first-", b"-second-"):
                yield part

        return ExportArchive(filename="s-1 é.zip", chunks=chunks)


class BusinessErrorsApi(FakeApi):
    """Every method of the map answers a typed business error: fuzzing must never see a 500."""

    def __init__(self) -> None:
        super().__init__(tricks=False)
        self.session = _ErrorDomain()  # type: ignore[assignment]
        self.host = _ErrorDomain()  # type: ignore[assignment]

    def __getattr__(self, domain: str) -> Any:
        return _ErrorDomain()


class _ErrorDomain:
    def __getattr__(self, attr: str) -> Any:
        async def impl(request: RpcRequest[Any]) -> RpcResponse[Any]:
            return fail(request.rpc_id, rpc_error("session-not-found", "none", session_id="x"))

        return impl
