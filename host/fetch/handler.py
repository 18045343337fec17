"""`to_fetch_handler(api)`: the one Starlette app that turns HTTP into contract calls.

uvicorn, the desktop bridge, the in-process client and the tests all drive this same app, so
every transport sees the same bytes. The rules run in the order docs/architecture.md ("The handler")
numbers them.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from contract.frames import STREAMS
from contract.methods import METHODS
from contract.schema import openapi_document
from host.fetch.caller import reset_caller, scope_privileged, set_caller
from host.fetch.export import serve_export
from host.fetch.inbound import (
    MAX_BODY,
    ClientGone,
    Reject,
    check_declared_length,
    is_json_media,
    json_bytes,
    parse_json,
    read_body,
)
from host.fetch.proxy import ApiProxy, resolve_stream
from host.fetch.sse import HEARTBEAT_INTERVAL
from host.fetch.streams import WireCache, serve_stream
from host.fetch.unary import call_respond, call_unary

log = logging.getLogger("host.fetch")

RESPOND = "respond"
EXPORT = "session.export"
OPENAPI = "openapi.json"


def json_response(value: Any) -> Response:
    return Response(json_bytes(value), 200, media_type="application/json")


class ApiDispatcher:
    """The ASGI endpoint behind `/api/{name}`: picks the rule set by method and name."""

    def __init__(
        self, api: ApiProxy, *, heartbeat_interval: float, dev_validate: bool, max_body: int
    ) -> None:
        self.api = api
        self.heartbeat_interval = heartbeat_interval
        self.dev_validate = dev_validate
        self.max_body = max_body
        self.wire = {key: WireCache(key, dev_validate) for key in STREAMS}
        """One encoding cache per stream, shared by all its subscribers."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.dispatch(scope, receive, tracking_send)
        except ClientGone:
            return
        except asyncio.CancelledError:
            # The server is shutting down and cancelled this request: end quietly (a traceback
            # per open request helps nobody). Nothing of ours runs after this task.
            log.debug("%s %s cancelled by the server", scope["method"], scope["path"])
            return
        except Reject as reject:
            if started:
                raise
            await PlainTextResponse(reject.text, reject.status)(scope, receive, send)
        except Exception:
            if started:
                raise
            log.exception("%s %s failed", scope["method"], scope["path"])
            await PlainTextResponse("internal error", 500)(scope, receive, send)

    async def dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        name: str = scope["path_params"]["name"]
        method: str = scope["method"]
        if method == "POST":
            response = await self.post(name, Headers(scope=scope), receive, scope_privileged(scope))
            await response(scope, receive, send)
        elif method == "GET" and name in STREAMS:
            source = resolve_stream(self.api, name)
            if source is None:
                raise Reject(501, f"{name} is not implemented by this host")
            caller = set_caller(scope_privileged(scope))  # the stream leaves out what it may not see
            try:
                await serve_stream(
                    name,
                    source,
                    receive,
                    send,
                    heartbeat=self.heartbeat_interval,
                    dev_validate=self.dev_validate,
                    cache=self.wire[name],
                )
            finally:
                reset_caller(caller)
        elif method in ("GET", "HEAD") and name == EXPORT:
            await serve_export(self.api, scope, receive, send)
        elif method == "GET" and name == OPENAPI:
            await json_response(openapi_document())(scope, receive, send)
        else:
            raise Reject(404, "not found")

    async def post(self, name: str, headers: Headers, receive: Receive, privileged: bool) -> Response:
        """Rules 1-4 (415, 413, 404, 400), then the unary call or the respond route."""
        if not is_json_media(headers):
            raise Reject(415, "expected application/json")
        check_declared_length(headers, self.max_body)
        body = await read_body(receive, self.max_body)
        method = METHODS.get(name)
        if method is None and name != RESPOND:
            raise Reject(404, "not found")
        parsed = parse_json(body)
        if method is None:
            return json_response(await call_respond(self.api, parsed, dev_validate=self.dev_validate))
        envelope = await call_unary(
            self.api, method, parsed, receive, dev_validate=self.dev_validate, privileged=privileged
        )
        return json_response(envelope)


DEV_VALIDATE_ENV = "HARNESSDESK_DEV_VALIDATE"
"""`1`: check every value and frame the host sends against the contract (tests/conftest.py sets
it for the test suite and every process it starts; docs/decisions.md, "Output validation")."""


def dev_validate_default() -> bool:
    return os.environ.get(DEV_VALIDATE_ENV) == "1"


def to_fetch_handler(
    api: ApiProxy,
    *,
    heartbeat_interval: float = HEARTBEAT_INTERVAL,
    dev_validate: bool | None = None,
    max_body: int = MAX_BODY,
) -> Starlette:
    """The HTTP face of `api`: unary methods, respond, both streams, export and the OpenAPI doc.

    `dev_validate` checks every value and frame the api produces against the contract (a host
    bug fails loudly instead of reaching clients); None = `$HARNESSDESK_DEV_VALIDATE` is `1`,
    on in development and tests, off in the product (it costs ~12 % of a history call).
    `heartbeat_interval` is the SSE quiet-time comment period.
    """
    if dev_validate is None:
        dev_validate = dev_validate_default()
    dispatcher = ApiDispatcher(
        api, heartbeat_interval=heartbeat_interval, dev_validate=dev_validate, max_body=max_body
    )
    return Starlette(routes=[Route("/api/{name:path}", endpoint=dispatcher)])
