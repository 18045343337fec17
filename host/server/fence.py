"""The loopback security fence (docs/threat-model.md): every `/api/*` request passes these
checks in order.

1. Host allowlist (DNS-rebinding defence) → 403: exactly one Host header, a name or address and
   an optional port, nothing else (no userinfo `localhost:1@evil.test`, no list `a, b`).
2. Sec-Fetch-Site cross-site, or an Origin other than the request's own → 403.
3. A peer inside one of this host's sandboxes (a command with network, `host/server/peers.py`)
   → 403, before the token is even looked at.
4. The per-launch token, as `Authorization: Bearer` only → 401. Never a cookie: cookies are not
   port-scoped, so one set for 127.0.0.1 reaches every other loopback server the user browses.
5. Privileged methods only when the Host names loopback, the peer address is loopback and no
   `--trusted-host` is configured (a proxy could forward anyone's `Host: localhost`) → 403.
   The verdict travels on with the request (`host/fetch/caller.py`): a method whose payload
   decides (`command.execute` of a loosening `/permission`) refuses a caller without it.
The 415/413 rules follow inside the fetch handler itself.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import re
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from contract.methods import METHODS
from host.fetch.caller import marked
from host.server.peers import SandboxPeers

log = logging.getLogger(__name__)

HOST_HEADER = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::[0-9]{1,5})?")
"""What a Host header may hold: a name or an IPv4 address, or an IPv6 one in brackets, and an
optional port. Nothing else: `localhost:1@evil.test` (userinfo) and `127.0.0.1:1, evil.test`
(a list) name two hosts at once, and which one a proxy or a parser believes is anybody's guess."""

SANDBOXED_PEER = "Refused: this request comes from a command inside HarnessDesk's sandbox"


def split_host(host_header: str) -> str:
    """The host part of a Host header, lower-cased, without port or IPv6 brackets; "" when the
    header is not one plain `host[:port]`."""
    found = HOST_HEADER.fullmatch(host_header.strip().lower())
    if found is None:
        return ""
    return found.group("v6") or found.group("name") or ""


def is_loopback_host(host: str) -> bool:
    """`localhost` or a loopback address (IPv4-mapped IPv6 included)."""
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def peer_is_loopback(scope: Scope) -> bool:
    """Whether the TCP peer is this machine (no peer, e.g. an in-process call: no)."""
    client = scope.get("client")
    if not client:
        return False
    return is_loopback_host(str(client[0]).lower())


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def host_header(scope: Scope) -> str | None:
    """The request's one Host header; None when it has none or several."""
    values = [value for key, value in scope.get("headers", ()) if key == b"host"]
    return str(values[0].decode("latin-1")) if len(values) == 1 else None


def request_token(scope: Scope) -> str | None:
    """The token a request presents in `Authorization: Bearer`. Cookies are never read, so a
    malformed cookie of another localhost app cannot log the user out either."""
    auth = _header(scope, b"authorization")
    if auth and auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return None


def token_matches(presented: str | None, token: str) -> bool:
    if not presented:
        return False
    return hmac.compare_digest(presented.encode(), token.encode())


class LoopbackFence:
    """ASGI middleware guarding the API; non-HTTP scopes (lifespan) pass through."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str,
        trusted_hosts: Iterable[str] = (),
        peers: SandboxPeers | None = None,
    ) -> None:
        """`peers`: who is inside this host's sandboxes (None: no sandbox can reach this app,
        e.g. a unit test's)."""
        self.app = app
        self.token = token
        self.trusted_hosts = {h.lower() for h in trusted_hosts}
        self.peers = peers

    def host_kind(self, scope: Scope) -> str | None:
        """`"loopback"`, `"trusted"`, or None when the Host header is missing or foreign."""
        raw = host_header(scope)
        if not raw:
            return None
        host = split_host(raw)
        if not host:
            return None
        if is_loopback_host(host):
            return "loopback"
        if host in self.trusted_hosts:
            return "trusted"
        return None

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Why this request is refused, as (status, text); None when it may pass. Without the
        sandboxed-peer check, which needs /proc: `__call__` runs it between the two halves."""
        return self.header_refusal(scope) or self.access_refusal(scope)

    def header_refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Checks 1 and 2: the Host, Sec-Fetch-Site and Origin headers."""
        kind = self.host_kind(scope)
        if kind is None:
            return 403, "Host not allowed"
        if (_header(scope, b"sec-fetch-site") or "").lower() == "cross-site":
            return 403, "Cross-site request refused"
        origin = _header(scope, b"origin")
        if origin is not None:
            scheme = scope.get("scheme", "http")
            own = f"{scheme}://{(host_header(scope) or '').lower()}"
            if origin.lower() != own:
                return 403, "Origin not allowed"
        return None

    async def peer_refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Check 3: a peer inside one of this host's sandboxes. Looked up only once a sandbox
        with network was prepared (`SandboxPeers.expect`), off the event loop (it reads /proc)."""
        if self.peers is None or not self.peers.expecting:
            return None
        client, server = scope.get("client"), scope.get("server")
        if not await asyncio.to_thread(self.peers.refuses, client, server):
            return None
        log.warning("refused a request to %s from inside a sandbox", scope["path"])
        return 403, SANDBOXED_PEER

    def access_refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Checks 4 and 5: the token, then the privileged methods."""
        kind = self.host_kind(scope)
        if kind is None:
            return 403, "Host not allowed"
        if not token_matches(request_token(scope), self.token):
            return 401, "Missing or wrong token"
        method_key = scope["path"].removeprefix("/api/")
        method = METHODS.get(method_key)
        if method is not None and method.privileged and not self.privileged_allowed(scope, kind):
            return 403, "This method is only available to a browser on this machine"
        return None

    def privileged_allowed(self, scope: Scope, kind: str) -> bool:
        """Settings, credentials and the like: only a loopback Host from a loopback peer, and
        never while a non-loopback name is trusted (a proxy for it forwards any Host)."""
        return kind == "loopback" and not self.trusted_hosts and peer_is_loopback(scope)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self.header_refusal(scope) or await self.peer_refusal(scope) or self.access_refusal(scope)
        if refused is None:
            kind = self.host_kind(scope)
            privileged = kind is not None and self.privileged_allowed(scope, kind)
            await self.app(marked(scope, privileged), receive, send)
            return
        status, text = refused
        body = text.encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
