"""web_fetch's HTTP side: one URL to readable text, within bounds (docs/decisions.md, "Web fetch and
private addresses").

Each hop (the URL, then every redirect, at most 5) is http(s) only, resolved once and checked
(`guard.resolve`), and requested from the checked address with the name in the Host header and
in TLS's SNI (certificates are verified against the name). The body stops at 5 MB, the whole
fetch at 30 s. HTML becomes Markdown (markdownify, scripts and styles dropped), other text is
kept as it is, anything else is named but not shown. The environment's proxy settings are not
used: a proxy would connect to whatever it resolves, after our check.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from host.engine.tools.web_access.guard import Exceptions, Refused, resolve

MAX_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
TIME_BOUND = 30.0
USER_AGENT = "HarnessDesk web_fetch (+https://github.com/harnessdesk)"
TEXT_TYPES = re.compile(
    r"^(text/|application/(json|xml|xhtml\+xml|javascript|x-yaml|yaml|toml)|[^;]*\+(json|xml))"
)


@dataclass(frozen=True)
class Page:
    url: str
    """Where the content came from, after redirects."""
    status: int
    content_type: str
    text: str
    """Markdown for HTML, the text itself otherwise."""
    title: str | None = None
    truncated_bytes: bool = False
    """The body passed MAX_BYTES: only its start was read."""


def check_url(raw: str) -> httpx.URL:
    try:
        url = httpx.URL(raw.strip())
    except (httpx.InvalidURL, ValueError) as exc:
        raise Refused(f"not a URL: {exc}") from exc
    if url.scheme not in ("http", "https"):
        raise Refused(f"only http and https URLs are fetched, not {url.scheme or 'a URL without a scheme'}")
    if not url.host:
        raise Refused("the URL names no host")
    if url.userinfo:
        raise Refused("a URL with a user name or password is not fetched")
    return url


async def fetch(raw: str, allowed: Exceptions, *, bound: float = TIME_BOUND) -> Page:
    """The page at `raw` (Refused: a rule said no; httpx.HTTPError, TimeoutError: the network)."""
    async with asyncio.timeout(bound):
        url = check_url(raw)
        for _ in range(MAX_REDIRECTS + 1):
            response, body, cut = await _one_hop(url, allowed)
            if response.status_code in (301, 302, 303, 307, 308) and "location" in response.headers:
                url = check_url(urljoin(str(url), response.headers["location"]))
                continue
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            return _page(str(url), response, kind, body, cut)
        raise Refused(f"more than {MAX_REDIRECTS} redirects; stopped at {url}")


async def _one_hop(url: httpx.URL, allowed: Exceptions) -> tuple[httpx.Response, bytes, bool]:
    host = url.raw_host.decode("ascii")  # the IDNA form: what DNS, Host and SNI carry
    port = url.port or (443 if url.scheme == "https" else 80)
    address = await resolve(host, port, allowed)
    shown = f"[{address}]" if address.version == 6 else str(address)
    target = url.copy_with(host=shown.strip("[]"))
    headers = {
        "Host": url.netloc.decode("ascii"),
        "User-Agent": USER_AGENT,
        "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
    }
    extensions = {"sni_hostname": host} if url.scheme == "https" else {}
    timeout = httpx.Timeout(15.0, connect=10.0)
    async with httpx.AsyncClient(trust_env=False, follow_redirects=False, timeout=timeout) as client:
        request = client.build_request("GET", target, headers=headers, extensions=extensions)
        response = await client.send(request, stream=True)
        try:
            chunks: list[bytes] = []
            size = 0
            cut = False
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_BYTES:
                    cut = True
                    break
            body = b"".join(chunks)[:MAX_BYTES]
        finally:
            await response.aclose()
    return response, body, cut


def _page(url: str, response: httpx.Response, kind: str, body: bytes, cut: bool) -> Page:
    status = response.status_code
    if kind in ("text/html", "application/xhtml+xml") or (
        not kind and body.lstrip()[:15].lower().startswith(b"<")
    ):
        html = body.decode(response.encoding or "utf-8", errors="replace")
        title, text = html_to_markdown(html)
        return Page(url, status, kind or "text/html", text, title, cut)
    if not kind or TEXT_TYPES.match(kind):
        return Page(
            url, status, kind or "text/plain", body.decode(response.encoding or "utf-8", "replace"), None, cut
        )
    note = f"[{kind} content, {len(body)} bytes{' or more' if cut else ''}: not text, not shown]"
    return Page(url, status, kind, note, None, cut)


def html_to_markdown(html: str) -> tuple[str | None, str]:
    """(the page's title, its body as Markdown), scripts, styles and the head left out."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for tag in soup(["script", "style", "noscript", "template", "svg", "head", "iframe", "form"]):
        tag.decompose()
    body = soup.body or soup
    text = MarkdownConverter(heading_style="ATX", bullets="-", strip=["img"]).convert_soup(body)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return title or None, text


def display_url(raw: str) -> str:
    """A URL without its fragment (the cache key and what the result names)."""
    parts = urlsplit(raw.strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))
