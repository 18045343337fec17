"""The served site: `/api/*` behind the fence, `webui/` as static files under a strict CSP.

Opening `/?token=…` serves the app (no-store); the page keeps the token in its tab's
sessionStorage, sends it as `Authorization: Bearer` and removes it from the address bar. No
cookie carries it (docs/threat-model.md); a cookie left by an older version is deleted.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from host.server.csp import CSP
from host.server.fence import LoopbackFence, token_matches
from host.server.peers import SandboxPeers
from host.server.preload import PreloadedPage

LEGACY_COOKIE = "harnessdesk_token"
"""The cookie older versions set for the token; deleted whenever the link is opened."""

STATIC_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Adds the CSP and friends to every static response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *STATIC_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


STATIC_CACHE = (b"cache-control", b"max-age=300")
"""Static files: a reload or a second window within five minutes takes them from the browser's
cache without a request; after that the ETag Starlette sends makes the check a 304. Not
`no-cache` (a 304 per module on every reload: measured 2.3x the reload's CPU), not a year with
versioned URLs (tests and tools import `/js/...` and must get the page's own module instances):
docs/decisions.md, "First load"."""


class CacheControl:
    """Adds `STATIC_CACHE` to the static files' found answers (200, 304; never a 404)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_cache(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (200, 304):
                headers = message.get("headers", [])
                if not any(name.lower() == b"cache-control" for name, _ in headers):
                    message = {**message, "headers": [*headers, STATIC_CACHE]}
            await send(message)

        await self.app(scope, receive, send_with_cache)


class HostCheck:
    """The fence's Host allowlist for the static side too (a rebinding page gets nothing)."""

    def __init__(self, app: ASGIApp, fence: LoopbackFence) -> None:
        self.app = app
        self.fence = fence

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.fence.host_kind(scope) is None:
            await PlainTextResponse("Host not allowed", status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def build_site(
    api_app: ASGIApp,
    webui_dir: Path,
    *,
    token: str,
    peers: SandboxPeers,
    trusted_hosts: tuple[str, ...] = (),
) -> ASGIApp:
    """One ASGI app for uvicorn: the fenced API plus the static web UI. `peers`: the host's
    (`HostRuntime.peers`), told by its engine when a sandbox with network starts."""
    fence = LoopbackFence(api_app, token=token, trusted_hosts=trusted_hosts, peers=peers)
    static = StaticFiles(directory=webui_dir, html=True)
    page = PreloadedPage(webui_dir)

    async def index(request: Request) -> Response:
        presented = request.query_params.get("token")
        if presented is None:
            return _page_response(page)
        if not token_matches(presented, token):
            return PlainTextResponse("Wrong or expired link: use the one printed at start.", status_code=401)
        response = _page_response(page)
        response.headers["cache-control"] = "no-store"
        response.delete_cookie(LEGACY_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    pages = SecurityHeaders(
        Starlette(
            routes=[
                Route("/", index, methods=["GET", "HEAD"]),
                Route("/index.html", index, methods=["GET", "HEAD"]),
                Mount("/", app=CacheControl(static)),
            ]
        )
    )

    async def site(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            await fence(scope, receive, send)
        else:
            await pages(scope, receive, send)

    return HostCheck(site, fence)


def _page_response(page: PreloadedPage) -> Response:
    """index.html with its module preload list (host/server/preload.py); revalidated on every
    open, as before (it names the modules, so it must never be older than they are)."""
    return Response(page.body(), media_type="text/html", headers={"cache-control": "no-cache"})
