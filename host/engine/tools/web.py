"""web_fetch and web_search (docs/decisions.md, "Web fetch and private addresses").

web_fetch runs in the host process, not in the sandbox, so the permission policy asks before it
in every mode but Full access unless a rule allows the domain (host/engine/tools/permissions/rules.py),
and the host itself refuses private addresses (host/engine/tools/web_access/guard.py). web_search asks the
provider the person configured; without one it is not offered."""

from __future__ import annotations

from typing import ClassVar

import httpx
from pydantic import Field

from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import Args, BaseTool, ToolError
from host.engine.tools.reach import WebReach
from host.engine.tools.web_access.guard import Refused
from host.engine.tools.web_access.search import SearchFailed

MAX_CHARS = 40_000
"""What a fetch returns at most (the rest is cut, with a note)."""


class WebFetchArgs(Args):
    url: str = Field(min_length=1, max_length=4000, description="The http(s) URL to fetch.")
    prompt: str | None = Field(
        default=None,
        max_length=2000,
        description="What you are looking for on the page (kept with the result).",
    )


class WebFetchTool(BaseTool):
    name = "web_fetch"
    description = (
        "Fetch a web page (documentation, an issue, an API reference) and read it as Markdown. Only public"
        f" http(s) addresses; at most {MAX_CHARS} characters are returned. The user approves each domain"
        " unless a rule allows it. Results are cached for 15 minutes."
    )
    needs_approval = True
    Arguments = WebFetchArgs

    def __init__(self, web: WebReach) -> None:
        super().__init__()
        self._web = web

    async def execute(self, args: WebFetchArgs, ctx: ToolContext) -> ToolOutput:
        try:
            page, cached = await self._web.fetch(ctx.session_id, args.url)
        except Refused as exc:
            raise ToolError(f"Not fetched: {exc}.", "FETCH_REFUSED") from None
        except TimeoutError:
            raise ToolError(f"Not fetched: {args.url} did not answer in time.", "TIMEOUT") from None
        except httpx.HTTPError as exc:
            raise ToolError(f"Not fetched: {type(exc).__name__} ({exc}).", "FETCH_FAILED") from None
        head = [f"URL: {page.url}", f"Status: {page.status}", f"Content-Type: {page.content_type}"]
        if page.title:
            head.insert(1, f"Title: {page.title}")
        if cached:
            head.append("(from this session's cache, fetched less than 15 minutes ago)")
        if args.prompt:
            head.append(f"Looking for: {args.prompt}")
        text = page.text
        if page.truncated_bytes:
            head.append("[the page is larger than 5 MB: only its start was read]")
        if len(text) > MAX_CHARS:
            text = text[:MAX_CHARS] + (
                f"\n\n[cut: {len(page.text) - MAX_CHARS} more characters not shown of {len(page.text)}]"
            )
        error = page.status >= 400
        return ToolOutput("\n".join(head) + "\n\n" + text, error, "HTTP_ERROR" if error else None)


class WebSearchArgs(Args):
    query: str = Field(min_length=1, max_length=500, description="What to search the web for.")


class WebSearchTool(BaseTool):
    name = "web_search"
    description = (
        "Search the web through the user's search provider. Returns titles, URLs and snippets; read a"
        " page with web_fetch."
    )
    parallel: ClassVar[bool] = True
    Arguments = WebSearchArgs

    def __init__(self, web: WebReach) -> None:
        super().__init__()
        self._web = web

    def offered(self) -> bool:
        """Only with a configured provider (docs/decisions.md, "Web fetch and private addresses")."""
        return self._web.searchable()

    async def execute(self, args: WebSearchArgs, ctx: ToolContext) -> ToolOutput:
        try:
            hits = await self._web.search(args.query)
        except LookupError:
            raise ToolError("No search provider is configured (Settings → Web).", "UNAVAILABLE") from None
        except (SearchFailed, TimeoutError) as exc:
            raise ToolError(f"The search failed: {exc or 'timed out'}.", "SEARCH_FAILED") from None
        if not hits:
            return ToolOutput(f"No results for {args.query!r}.")
        lines = [f"{i}. {h.title}\n   {h.url}\n   {h.snippet}".rstrip() for i, h in enumerate(hits, 1)]
        return ToolOutput(f"Results for {args.query!r}:\n\n" + "\n\n".join(lines))
