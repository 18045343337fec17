"""`RelayApi`: the local ApiProxy, with every remote host's methods relayed through it
(docs/decisions.md, "Remote hosts").

A call is relayed when its payload names a remote host (`hostId`) or a session or workspace that
lives on one (`routes.py`); the envelope goes to that host's forwarded Unix socket as it came
(same rpcId, `hostId` removed), with that host's token, and its answer comes back byte for byte
when nothing needs reading in it. `session.list` is every host's sessions, each remote item with
its `hostId` (null for this host's); a host that is not connected lists what it last listed.
Answers to a remote host's requests (`/api/respond`) go back to the host that asked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote, unquote

import httpx
from pydantic import ValidationError
from pydantic_core import from_json

from contract._base import to_wire
from contract.errors import RpcErrorBase, rpc_error
from contract.methods import METHODS, SESSION_LIST, AnyMethod
from contract.rpc import (
    RPC_RECEIPT,
    ClientResponse,
    ReceiptAccepted,
    ReceiptRefused,
    RpcErr,
    RpcOk,
    RpcRequest,
    RpcResponse,
    fail,
    new_rpc_id,
    ok,
)
from contract.sessions import ExportQuery
from host.fetch.caller import caller_privileged
from host.fetch.inbound import json_bytes
from host.fetch.proxy import ApiProxy, ExportArchive, UnaryImpl, resolve
from host.relay.links import UNPRIVILEGED, Links, Remote, Remotes
from host.relay.routes import RouteTable
from host.relay.streams import RelayEvents

log = logging.getLogger(__name__)

UNARY_BOUND = 120.0
"""Seconds a relayed call may take (a user-paced one waits for the person instead)."""
LIST_BOUND = 10.0
"""Seconds a remote host's `session.list` may take before its last list is used."""
PARSED = frozenset(
    {"session.create", "session.fork", "session.import", "session.list", "workspace.create", "workspace.list"}
)
"""Relayed answers that are read (to learn what lives on that host), not only passed on."""


class RelayedValue:
    """A value already in its wire JSON, sent as is (`host.fetch.inbound.WireEncoded`)."""

    __slots__ = ("_data",)

    def __init__(self, data: bytes) -> None:
        self._data = data

    def wire_json(self) -> bytes:
        return self._data


def unavailable(host_id: str, state: str, why: str | None = None) -> RpcErrorBase:
    text = why or f"the remote host is not connected ({state})"
    return rpc_error("remote-unavailable", text, host_id=host_id, state=state)


class RelayApi:
    """What `to_fetch_handler` serves when remote hosts exist: the local api, relayed."""

    def __init__(self, local: ApiProxy, links: Links, host_ids: Callable[[], list[str]]) -> None:
        self.local = local
        self.links = links
        self.host_ids = host_ids
        self.routes = RouteTable()
        self.remotes = Remotes(links)
        self.listed: dict[str, list[dict[str, Any]]] = {}
        """Each remote host's last `session.list` items (shown while it reconnects)."""
        self._events = RelayEvents(self)
        links.on_links(self._links_changed)
        self._domains: dict[str, SimpleNamespace] = {}
        grouped: dict[str, dict[str, UnaryImpl]] = {}
        for m in METHODS.values():
            impl = resolve(local, m)
            if impl is not None:
                grouped.setdefault(m.domain, {})[m.attr] = self._wrap(m, impl)
        self._domains = {d: SimpleNamespace(**impls) for d, impls in grouped.items()}

    def __getattr__(self, name: str) -> SimpleNamespace:
        domains: dict[str, SimpleNamespace] = self.__dict__.get("_domains", {})
        if name not in domains:
            raise AttributeError(name)
        return domains[name]

    @property
    def events(self) -> RelayEvents:
        return self._events

    def _links_changed(self) -> None:
        self.remotes.forget_stale()
        self._events.links_changed()

    # ---- unary calls ---------------------------------------------------------------------------

    def _wrap(self, m: AnyMethod, impl: UnaryImpl) -> UnaryImpl:
        async def call(request: RpcRequest[Any], /) -> RpcResponse[Any]:
            payload = request.payload
            named = getattr(payload, "host_id", None) if m.domain != "remote" else None
            if isinstance(named, str):
                state = self.links.state(named)
                if state is None:
                    error = rpc_error("remote-host-not-found", f"no remote host {named}", host_id=named)
                    return fail(request.rpc_id, error)
                return await self.forward(named, m, request)
            host_id = self.routes.host_of(payload)
            if host_id is not None:
                return await self.forward(host_id, m, request)
            response = await impl(request)
            if m.key == "session.list":
                return await self._merged_list(response)
            if m.key == "session.import" and isinstance(response.result, RpcOk):
                for sid in to_wire(response.result.value).get("sessionIds", []):
                    self.routes.sessions.pop(sid, None)  # imported here: this host's now
            return response

        call.__qualname__ = f"relay:{m.key}"
        return call

    async def forward(self, host_id: str, m: AnyMethod, request: RpcRequest[Any]) -> RpcResponse[Any]:
        """`request` on the remote host `host_id`: its answer, or `remote-unavailable`."""
        rpc_id = request.rpc_id
        remote = self.remotes.get(host_id)
        if remote is None:
            return fail(rpc_id, unavailable(host_id, self.links.state(host_id) or "disconnected"))
        payload = to_wire(request.payload)
        payload.pop("hostId", None)
        body = json_bytes({"type": "client-request", "rpcId": rpc_id, "method": m.key, "payload": payload})
        try:
            async with asyncio.timeout(None if m.user_paced else UNARY_BOUND):
                response = await remote.http.post(f"/api/{m.key}", content=body, headers=self._headers())
        except (httpx.HTTPError, OSError, TimeoutError) as exc:
            state = self.links.state(host_id) or "disconnected"
            return fail(
                rpc_id, unavailable(host_id, state, f"the remote host did not answer ({type(exc).__name__})")
            )
        if response.status_code != 200:
            text = response.text[:200]
            why = f"the remote host refused the call: HTTP {response.status_code} {text}"
            return fail(rpc_id, unavailable(host_id, self.links.state(host_id) or "connected", why))
        return self._answer(host_id, m, rpc_id, response.content)

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "application/json"}
        if not caller_privileged():
            headers[UNPRIVILEGED] = "1"
        return headers

    def _answer(self, host_id: str, m: AnyMethod, rpc_id: str, raw: bytes) -> RpcResponse[Any]:
        head = b'{"type":"server-response","rpcId":' + json_bytes(rpc_id) + b',"result":{"ok":true,"value":'
        if m.key not in PARSED and raw.startswith(head) and raw.endswith(b"}}"):
            return ok(rpc_id, RelayedValue(raw[len(head) : -2]))
        try:
            envelope = from_json(raw)
            result = envelope["result"]
            if result.get("ok"):
                self.routes.record_value(m.key, result.get("value"), host_id)
                return ok(rpc_id, RelayedValue(json_bytes(result.get("value"))))
            return fail(rpc_id, RpcErr.model_validate(result).error)
        except (ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            log.warning("a remote host's answer to %s could not be read: %s", m.key, exc)
            why = "the remote host's answer could not be read"
            return fail(rpc_id, unavailable(host_id, self.links.state(host_id) or "connected", why))

    async def _merged_list(self, response: RpcResponse[Any]) -> RpcResponse[Any]:
        """This host's sessions (`hostId: null`) and every remote host's (its `hostId`)."""
        if not isinstance(response.result, RpcOk):
            return response
        hosts = self.host_ids()
        if not hosts:  # this host's alone: each summary already says `hostId: null`, and the
            return response  # answer is encoded once, not dumped, copied and encoded again
        local = to_wire(response.result.value).get("items", [])
        items = [{**item, "hostId": None} for item in local]
        fresh = await asyncio.gather(*(self._remote_list(h) for h in hosts))
        for host_id, listed in zip(hosts, fresh, strict=True):
            if listed is not None:
                self.listed[host_id] = listed
            items += [{**item, "hostId": host_id} for item in self.listed.get(host_id, [])]
        return ok(response.rpc_id, RelayedValue(json_bytes({"items": items})))

    async def _remote_list(self, host_id: str) -> list[dict[str, Any]] | None:
        remote = self.remotes.get(host_id)
        if remote is None:
            return None
        body = json_bytes(
            {"type": "client-request", "rpcId": new_rpc_id(), "method": "session.list", "payload": {}}
        )
        try:
            async with asyncio.timeout(LIST_BOUND):
                response = await remote.http.post("/api/session.list", content=body, headers=self._headers())
            value = from_json(response.content)["result"]["value"]
        except (httpx.HTTPError, OSError, TimeoutError, ValueError, KeyError, TypeError):
            return None
        self.routes.record_value(SESSION_LIST.key, value, host_id)
        items = value.get("items") if isinstance(value, dict) else None
        return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else None

    # ---- carrier hooks -------------------------------------------------------------------------

    async def respond(self, response: ClientResponse, /) -> ReceiptAccepted | ReceiptRefused:
        mine = self.links.answer(response)
        if mine is not None:
            return mine
        host_id = self.routes.rpcs.get(response.rpc_id)
        if host_id is None:
            value = response.result.value if isinstance(response.result, RpcOk) else None
            sid = value.get("sessionId") if isinstance(value, dict) else None
            host_id = self.routes.sessions.get(sid) if isinstance(sid, str) else None
        if host_id is None:
            return await self.local.respond(response)
        remote = self.remotes.get(host_id)
        if remote is None:
            return ReceiptRefused(reason="not-pending")
        try:
            async with asyncio.timeout(UNARY_BOUND):
                answer = await remote.http.post(
                    "/api/respond", content=json_bytes(response.dump()), headers=self._headers()
                )
            receipt: ReceiptAccepted | ReceiptRefused = RPC_RECEIPT.validate_python(from_json(answer.content))
        except (httpx.HTTPError, OSError, TimeoutError, ValueError, ValidationError):
            return ReceiptRefused(reason="not-pending")
        return receipt

    async def export_session(self, query: ExportQuery, /) -> ExportArchive | None:
        host_id = self.routes.sessions.get(query.session_id)
        if host_id is None:
            return await self.local.export_session(query)
        remote = self.remotes.get(host_id)
        if remote is None:
            return None
        deep = "&includeDescendants=true" if query.include_descendants else ""
        path = f"/api/session.export?sessionId={quote(query.session_id)}{deep}"
        try:
            async with asyncio.timeout(UNARY_BOUND):
                head = await remote.http.head(path)
        except (httpx.HTTPError, OSError, TimeoutError):
            return None
        if head.status_code != 200:
            return None
        return ExportArchive(
            filename=_filename(head.headers.get("content-disposition", "")),
            chunks=lambda: _chunks(remote, path),
        )

    async def aclose(self) -> None:
        await self.remotes.aclose()


def _filename(disposition: str) -> str:
    for part in disposition.split(";"):
        name, _, value = part.strip().partition("=")
        if name == "filename*" and value.lower().startswith("utf-8''"):
            return unquote(value[7:])
    return "session.zip"


async def _chunks(remote: Remote, path: str) -> AsyncIterator[bytes]:
    async with remote.http.stream("GET", path) as response:
        async for chunk in response.aiter_bytes():
            yield chunk
