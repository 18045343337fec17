"""web_fetch and web_search against real HTTP servers on loopback (the network edge): HTML to
Markdown, a redirect chain, the size cap, private addresses refused after resolving and on every
redirect unless `web.allowedPrivateHosts` lists them, the session cache; a SearXNG-shaped stub for
search (docs/decisions.md, "Web fetch and private addresses")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from contract.namespaces import SearchProvider, WebSection
from host.engine.tools.base import ToolContext
from host.engine.tools.web import MAX_CHARS, WebFetchTool, WebSearchTool
from host.engine.tools.web_access.access import WebAccess
from host.engine.tools.web_access.fetch import MAX_BYTES
from tests.support.ports import serve_in_thread

PAGE = b"""<html><head><title>The Docs</title><style>p{color:red}</style>
<script>var secret = 1;</script></head><body><h1>Install</h1><p>Run <code>pip install x</code>,
then <a href="/next">read on</a>.</p><ul><li>one</li><li>two</li></ul></body></html>"""


class Site:
    """A real HTTP server on `host`; `routes` maps a path to (status, headers, body)."""

    def __init__(self, host: str) -> None:
        self.routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # a body written after its headers goes at once

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                site.hits.append(self.path)
                status, headers, body = site.routes.get(self.path.split("?")[0], (404, {}, b"no"))
                if callable(body):
                    body = body(self)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://{host}:{self.httpd.server_address[1]}"
        serve_in_thread(self.httpd)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


Sites = tuple[Site, Site]


@pytest.fixture
def sites() -> Iterator[Sites]:
    """An allowed site on 127.0.0.2 and a forbidden one on 127.0.0.1 (both loopback)."""
    allowed, forbidden = Site("127.0.0.2"), Site("127.0.0.1")
    yield allowed, forbidden
    allowed.close()
    forbidden.close()


def ctx(tmp_path: Path, session: str = "s1") -> ToolContext:
    async def nothing(*_: Any) -> Any:
        raise AssertionError("not used")

    return ToolContext(session_id=session, cwd=tmp_path, ask_user=nothing, emit=nothing)


def web(section: WebSection, clock: list[float] | None = None) -> WebAccess:
    now = clock or [0.0]
    return WebAccess(lambda: section, lambda ref: "k-123" if ref else None, clock=lambda: now[0])


async def test_html_becomes_markdown_through_a_redirect_chain(sites: Sites, tmp_path: Path) -> None:
    site, _ = sites
    site.routes["/page"] = (200, {"Content-Type": "text/html; charset=utf-8"}, PAGE)
    for i in range(3):
        nxt = "/page" if i == 2 else f"/hop{i + 1}"
        site.routes[f"/hop{i}"] = (302, {"Location": nxt}, b"")
    tool = WebFetchTool(web(WebSection(allowed_private_hosts=["127.0.0.2"])))
    out = await tool.run({"url": f"{site.url}/hop0", "prompt": "how to install"}, ctx(tmp_path))
    assert not out.is_error, out.content
    assert f"URL: {site.url}/page" in out.content and "Title: The Docs" in out.content
    assert "# Install" in out.content and "`pip install x`" in out.content and "- one" in out.content
    assert "[read on](/next)" in out.content
    assert "secret" not in out.content and "color:red" not in out.content
    assert site.hits == ["/hop0", "/hop1", "/hop2", "/page"]


async def test_six_redirects_are_too_many(sites: Sites, tmp_path: Path) -> None:
    site, _ = sites
    for i in range(7):
        site.routes[f"/r{i}"] = (301, {"Location": f"/r{i + 1}"}, b"")
    tool = WebFetchTool(web(WebSection(allowed_private_hosts=["127.0.0.0/30"])))
    out = await tool.run({"url": f"{site.url}/r0"}, ctx(tmp_path))
    assert out.is_error and out.error_code == "FETCH_REFUSED" and "more than 5 redirects" in out.content
    assert len(site.hits) == 6


async def test_a_redirect_to_a_private_address_is_refused(sites: Sites, tmp_path: Path) -> None:
    site, forbidden = sites
    forbidden.routes["/admin"] = (200, {"Content-Type": "text/plain"}, b"the admin page")
    site.routes["/go"] = (302, {"Location": f"{forbidden.url}/admin"}, b"")
    tool = WebFetchTool(web(WebSection(allowed_private_hosts=["127.0.0.2"])))
    out = await tool.run({"url": f"{site.url}/go"}, ctx(tmp_path))
    assert out.is_error and out.error_code == "FETCH_REFUSED", out.content
    assert "127.0.0.1" in out.content and "private" in out.content
    assert forbidden.hits == []  # never connected


async def test_a_name_resolving_to_a_private_address_is_refused(sites: Sites, tmp_path: Path) -> None:
    _, forbidden = sites
    forbidden.routes["/"] = (200, {"Content-Type": "text/plain"}, b"inside")
    port = forbidden.url.rsplit(":", 1)[1]
    tool = WebFetchTool(web(WebSection()))
    for url in (f"http://localhost:{port}/", f"http://127.0.0.1:{port}/", "http://169.254.169.254/latest/"):
        out = await tool.run({"url": url}, ctx(tmp_path))
        assert out.is_error and out.error_code == "FETCH_REFUSED", (url, out.content)
    assert forbidden.hits == []
    # listing the name lets it through: approving a card never does, only the setting
    allowed = WebFetchTool(web(WebSection(allowed_private_hosts=["localhost"])))
    out = await allowed.run({"url": f"http://localhost:{port}/"}, ctx(tmp_path))
    assert not out.is_error and "inside" in out.content


async def test_other_schemes_are_refused(tmp_path: Path) -> None:
    tool = WebFetchTool(web(WebSection()))
    for url in ("file:///etc/passwd", "ftp://example.com/x", "gopher://x", "http://user:pw@example.com/"):
        out = await tool.run({"url": url}, ctx(tmp_path))
        assert out.is_error and out.error_code == "FETCH_REFUSED", url


async def test_size_and_character_caps_say_so(sites: Sites, tmp_path: Path) -> None:
    site, _ = sites
    site.routes["/big"] = (200, {"Content-Type": "text/plain"}, b"a" * (MAX_BYTES + 100_000))
    site.routes["/long"] = (200, {"Content-Type": "text/plain"}, b"b" * (MAX_CHARS + 10))
    tool = WebFetchTool(web(WebSection(allowed_private_hosts=["127.0.0.2"])))
    big = await tool.run({"url": f"{site.url}/big"}, ctx(tmp_path))
    assert "larger than 5 MB" in big.content
    long = await tool.run({"url": f"{site.url}/long"}, ctx(tmp_path))
    assert long.content.endswith(f"[cut: 10 more characters not shown of {MAX_CHARS + 10}]")


async def test_the_cache_serves_a_session_for_fifteen_minutes(sites: Sites, tmp_path: Path) -> None:
    site, _ = sites
    site.routes["/p"] = (200, {"Content-Type": "text/plain"}, b"v1")
    clock = [0.0]
    tool = WebFetchTool(web(WebSection(allowed_private_hosts=["127.0.0.2"]), clock))
    first = await tool.run({"url": f"{site.url}/p"}, ctx(tmp_path))
    site.routes["/p"] = (200, {"Content-Type": "text/plain"}, b"v2")
    clock[0] = 14 * 60
    again = await tool.run({"url": f"{site.url}/p#part"}, ctx(tmp_path))
    other = await tool.run({"url": f"{site.url}/p"}, ctx(tmp_path, "s2"))
    clock[0] = 16 * 60
    later = await tool.run({"url": f"{site.url}/p"}, ctx(tmp_path))
    assert "v1" in first.content and "v1" in again.content and "from this session's cache" in again.content
    assert "v2" in other.content and "v2" in later.content
    assert site.hits == ["/p", "/p", "/p"]


async def test_search_asks_a_searxng_shaped_provider(sites: Sites, tmp_path: Path) -> None:
    _, searx = sites  # the provider the person configured may be private

    def answer(handler: BaseHTTPRequestHandler) -> bytes:
        assert "format=json" in handler.path and "q=pydantic+v2" in handler.path
        results = [
            {"title": "Pydantic docs", "url": "https://docs.pydantic.dev/", "content": "Data validation"},
            {"title": "Migration", "url": "https://docs.pydantic.dev/migration/", "content": "From v1"},
        ]
        return json.dumps({"results": results}).encode()

    searx.routes["/search"] = (200, {"Content-Type": "application/json"}, answer)  # type: ignore[assignment]
    provider = SearchProvider(kind="searxng", url=searx.url)
    tool = WebSearchTool(web(WebSection(search_provider=provider)))
    assert tool.offered()
    out = await tool.run({"query": "pydantic v2"}, ctx(tmp_path))
    assert not out.is_error, out.content
    assert "1. Pydantic docs\n   https://docs.pydantic.dev/\n   Data validation" in out.content
    assert "2. Migration" in out.content
    assert not WebSearchTool(web(WebSection())).offered()  # no provider: not offered
