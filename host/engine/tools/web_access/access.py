"""`WebAccess`: what the web tools ask of the engine — the `web` settings as they are now, the
search provider's key, and a per-session cache of fetched pages (15 minutes)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from contract.namespaces import WebSection
from host.engine.tools.web_access.fetch import Page, display_url, fetch
from host.engine.tools.web_access.guard import Exceptions
from host.engine.tools.web_access.search import Hit, search

CACHE_SECONDS = 15 * 60
CACHE_ENTRIES = 200
"""Pages kept over all sessions (the oldest go first)."""


class WebAccess:
    def __init__(
        self,
        section: Callable[[], WebSection],
        credential: Callable[[str | None], str | None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._section = section
        self._credential = credential
        self._clock = clock
        self._cache: OrderedDict[tuple[str, str], tuple[float, Page]] = OrderedDict()

    def searchable(self) -> bool:
        """Whether a search provider is configured (else web_search is not offered)."""
        return self._section().search_provider is not None

    async def fetch(self, session_id: str, url: str) -> tuple[Page, bool]:
        """(the page, whether it came from this session's cache)."""
        key = (session_id, display_url(url))
        now = self._clock()
        kept = self._cache.get(key)
        if kept is not None and now - kept[0] < CACHE_SECONDS:
            return kept[1], True
        allowed = Exceptions.parse(self._section().allowed_private_hosts)
        page = await fetch(url, allowed)
        self._cache[key] = (self._clock(), page)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)
        return page, False

    async def search(self, query: str) -> list[Hit]:
        provider = self._section().search_provider
        if provider is None:
            raise LookupError("no search provider is configured")
        return await search(provider, self._credential(provider.api_key_env), query)
