"""The first load in a real Chromium: every module the first screen needs is named by a
`<link rel="modulepreload">` (host/server/preload.py) and fetched once, the app works, and a
reload or a second window takes the static files from the browser's cache (host/server/site.py,
docs/decisions.md "First load"). Figures: bench/first_load_bench.py."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import CDPSession, Page, expect

from tests.browser.support import Contexts, HarnessServer, send, turn_ends
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

PRELOADS = "() => [...document.querySelectorAll('link[rel=modulepreload]')].map((l) => l.href)"


def is_module(url: str) -> bool:
    return url.split("?", 1)[0].endswith((".js", ".mjs"))


def origin(server: HarnessServer) -> str:
    return server.url.split("/?", 1)[0]


class Network:
    """What Chromium fetched for one page, from DevTools: module URLs from the network (a 200 or
    a 304) and those served from its memory or disk cache without a request."""

    def __init__(self, cdp: CDPSession) -> None:
        self.from_cache: set[str] = set()
        self.network: list[str] = []
        self.cached: list[str] = []
        cdp.on("Network.requestServedFromCache", lambda e: self.from_cache.add(e["requestId"]))
        cdp.on("Network.responseReceived", self._received)
        cdp.send("Network.enable")

    def _received(self, event: dict[str, Any]) -> None:
        response = event["response"]
        if is_module(response["url"]):
            kept = event["requestId"] in self.from_cache or response.get("fromDiskCache")
            (self.cached if kept else self.network).append(response["url"])

    def clear(self) -> None:
        self.network.clear()
        self.cached.clear()


def watched(page: Page) -> Network:
    return Network(page.context.new_cdp_session(page))


def connected(page: Page) -> None:
    expect(page.locator("html")).to_have_attribute("data-connection", "connected", timeout=30_000)


def test_the_first_load_preloads_every_module_once_and_the_app_works(
    contexts: Contexts, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    page = contexts.new_page()
    network = watched(page)
    page.goto(harness.url)
    connected(page)
    preloads = set(page.evaluate(PRELOADS))
    entry = f"{origin(harness)}/js/main.js"
    assert len(preloads) > 100 and entry not in preloads
    # every module the page ran was in the list, and each was fetched exactly once (a preload
    # the module loader could not reuse would show as a second fetch of the same URL)
    assert sorted(network.network) == sorted(preloads | {entry})
    ran = page.evaluate(
        "() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /\\.m?js$/.test(n))"
    )
    assert set(ran) == preloads | {entry}
    llm.enqueue(Reply(text="Loaded and answering."))
    send(page, "Does the app still work?")
    turn_ends(page)
    expect(page.get_by_test_id("msg-assistant").last).to_contain_text("Loaded and answering.")


def test_a_reload_and_a_second_window_take_the_modules_from_the_cache(
    contexts: Contexts, harness: HarnessServer
) -> None:
    page = contexts.new_page()
    network = watched(page)
    page.goto(harness.url)
    connected(page)
    first = len(network.network)
    network.clear()
    page.reload()
    connected(page)
    assert network.network == [] and len(network.cached) == first  # not even a 304
    second = page.context.new_page()
    other = watched(second)
    second.goto(harness.url)
    connected(second)
    assert other.network == [] and len(other.cached) == first


def test_static_files_carry_cache_headers_and_the_page_is_revalidated(harness: HarnessServer) -> None:
    with httpx.Client(base_url=origin(harness), trust_env=False) as http:
        module = http.get("/js/main.js")
        assert module.status_code == 200 and module.headers["cache-control"] == "max-age=300"
        again = http.get("/js/main.js", headers={"if-none-match": module.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert "cache-control" not in http.get("/js/no-such-module.js").headers  # a 404 is not kept
        for path in ("/", "/index.html"):
            index = http.get(path)
            assert index.status_code == 200 and index.headers["cache-control"] == "no-cache"
            assert index.text.count('rel="modulepreload"') > 100
            assert "content-security-policy" in index.headers
        linked = http.get(harness.url.removeprefix(origin(harness)))
        assert linked.headers["cache-control"] == "no-store"  # the one-time link: never kept
