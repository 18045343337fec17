"""web_search's providers: the person's SearXNG instance or Brave's search API (docs/decisions.md,
"Web fetch and private addresses"). The provider is the person's choice, so its address is not
checked like a fetched URL's (a SearXNG on this machine or the LAN is the usual set-up); the
query and nothing else leaves the machine, and a key never appears in a result or a log."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from contract.namespaces import SearchProvider

BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
MAX_RESULTS = 10
TIME_BOUND = 20.0


class SearchFailed(Exception):
    """The provider could not answer; the text says why (never the key)."""


@dataclass(frozen=True)
class Hit:
    title: str
    url: str
    snippet: str


async def search(
    provider: SearchProvider, key: str | None, query: str, limit: int = MAX_RESULTS
) -> list[Hit]:
    timeout = httpx.Timeout(TIME_BOUND, connect=10.0)
    async with httpx.AsyncClient(trust_env=False, timeout=timeout, follow_redirects=False) as client:
        try:
            if provider.kind == "searxng":
                assert provider.url is not None
                response = await client.get(
                    f"{provider.url}/search",
                    params={"q": query, "format": "json"},
                    headers={"Accept": "application/json"},
                )
            else:
                if not key:
                    raise SearchFailed(
                        f"Brave search needs its key: the credential {provider.api_key_env} is not set"
                    )
                response = await client.get(
                    provider.url or BRAVE_URL,
                    params={"q": query, "count": str(limit)},
                    headers={"Accept": "application/json", "X-Subscription-Token": key},
                )
        except httpx.HTTPError as exc:
            raise SearchFailed(f"the search provider could not be reached ({type(exc).__name__})") from None
    if response.status_code != 200:
        raise SearchFailed(f"the search provider answered HTTP {response.status_code}")
    try:
        data = response.json()
    except ValueError:
        raise SearchFailed(
            "the search provider's answer is not JSON (is its JSON format turned on?)"
        ) from None
    raw = data.get("results") if provider.kind == "searxng" else (data.get("web") or {}).get("results")
    hits: list[Hit] = []
    for item in raw or []:
        if not isinstance(item, dict) or not isinstance(item.get("url"), str):
            continue
        snippet = item.get("content") if provider.kind == "searxng" else item.get("description")
        hits.append(Hit(str(item.get("title") or item["url"]), item["url"], str(snippet or "")))
        if len(hits) >= limit:
            break
    return hits
