"""The module's warm context (docs/decisions.md, "One warm browser context per module"): a test's
`page` starts on a clean slate — nothing an earlier test stored is there, no session reopens —
while the modules come from the cache instead of being fetched again."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.support import Contexts, HarnessServer, new_session, own_pages

MODULES_FETCHED = """() => performance.getEntriesByType('resource')
    .filter((e) => /\\.m?js$/.test(e.name) && e.deliveryType !== "cache").length"""
"""Modules whose body came over the wire. A cached one is delivered from the cache, and so is one
the cache revalidated: the static files' `max-age=300` (host/server/site.py) lapses for every
module of the streak at once, and when that falls between the test's two pages, the later page
checks each module with a 304 and still takes its body from the cache."""


def renderer_processes(browser: Browser) -> set[int]:
    """The ids of the browser's renderer processes (CDP `SystemInfo.getProcessInfo`)."""
    cdp = browser.new_browser_cdp_session()
    try:
        info = cdp.send("SystemInfo.getProcessInfo")
    finally:
        cdp.detach()
    return {p["id"] for p in info["processInfo"] if p["type"] == "renderer"}


def test_the_next_test_sees_nothing_the_last_one_stored_but_keeps_the_cache(
    browser: Browser, warm_context: BrowserContext, harness: HarnessServer
) -> None:
    earlier = Contexts(browser, warm_context)
    page = earlier.warm_page(harness.url)
    assert page.context == warm_context
    sid = new_session(page)
    page.evaluate(
        """async () => {
            localStorage.setItem("probe", "left by the earlier test");
            document.cookie = "probe=1; path=/";
            await new Promise((done) => {
                const open = indexedDB.open("probe", 1);
                open.onupgradeneeded = () => open.result.createObjectStore("kept");
                open.onsuccess = () => { open.result.close(); done(); };
            });
        }"""
    )
    assert page.evaluate("() => localStorage.getItem('harnessdesk.lastSession')") == sid
    earlier.close()
    assert own_pages(warm_context) == []

    renderers = renderer_processes(browser)
    later = Contexts(browser, warm_context)
    page = later.warm_page(harness.url)
    assert renderer_processes(browser) == renderers  # the earlier test's renderer, still warm
    assert page.evaluate("() => localStorage.getItem('probe')") is None
    assert page.evaluate("() => localStorage.getItem('harnessdesk.lastSession')") is None
    assert page.evaluate("() => document.cookie") == ""
    assert page.evaluate("async () => (await indexedDB.databases()).map((d) => d.name)") == []
    expect(page.get_by_test_id("session-empty")).to_have_count(0)
    assert page.evaluate("() => window.harnessdesk.app.manager.activeId") is None  # nothing reopened
    assert page.evaluate(MODULES_FETCHED) == 0  # every module came from the warm cache
    later.close()
    assert not earlier.page_errors and not later.page_errors


def test_a_route_an_earlier_test_left_on_the_context_does_not_turn_the_cache_off(
    browser: Browser, warm_context: BrowserContext, harness: HarnessServer
) -> None:
    """A route on the context (a test catching a popup's site) turns request interception on,
    and Playwright serves no page from the HTTP cache while it is: every module of every later
    test in the streak was fetched again (the failure this test was written for)."""
    earlier = Contexts(browser, warm_context)
    page = earlier.warm_page(harness.url)
    page.context.route("https://example.invalid/**", lambda route: route.fulfill(body="a site"))
    earlier.close()

    later = Contexts(browser, warm_context)
    page = later.warm_page(harness.url)
    assert page.evaluate(MODULES_FETCHED) == 0  # every module came from the warm cache
    later.close()
    assert not earlier.page_errors and not later.page_errors
