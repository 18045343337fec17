"""The access token never reaches another loopback port (issue 16, finding 2).

Cookies are not port-scoped: a token cookie for 127.0.0.1 went with every request to any other
server on the machine's loopback the user browsed. The page now keeps the token in its tab's
sessionStorage and sends it only as a header to its own origin. A spy server on another port
records every request Chromium sends it; the token must appear in none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import Contexts, HarnessServer, open_app, openai_args
from tests.support.ports import serve_in_thread
from tests.support.scripted_llm import ScriptedLlmServer

pytestmark = pytest.mark.browser


class Spy:
    """Another web server on loopback: records the headers of every request it gets."""

    def __init__(self) -> None:
        seen = self.seen = []  # type: list[dict[str, str]]

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append({k.lower(): v for k, v in self.headers.items()} | {":path": self.path})
                body = b"<!doctype html><title>other app</title><p>another local app</p>"
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = serve_in_thread(self.server)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def spy() -> Iterator[Spy]:
    s = Spy()
    yield s
    s.close()


def _token(server: HarnessServer) -> str:
    return server.url.rsplit("token=", 1)[1]


def test_the_token_never_reaches_another_loopback_port(
    contexts: Contexts, harness: HarnessServer, llm: ScriptedLlmServer, spy: Spy
) -> None:
    page = contexts.new_page(harness.url)
    token = _token(harness)
    assert "token" not in page.url  # the link's token left the address bar
    assert page.evaluate("() => document.cookie") == ""
    assert all(token not in c["value"] for c in page.context.cookies())

    other = page.context.new_page()
    for host in ("127.0.0.1", "localhost"):
        other.goto(f"http://{host}:{spy.port}/from-{host}")
        expect(other.get_by_text("another local app")).to_be_visible()
    # the app page itself cannot even try: its CSP limits it to its own origin
    page.evaluate(f"() => {{ const i = new Image(); i.src = 'http://127.0.0.1:{spy.port}/img'; }}")
    page.wait_for_timeout(300)
    paths = [r[":path"] for r in spy.seen if r[":path"] != "/favicon.ico"]
    assert paths == ["/from-127.0.0.1", "/from-localhost"]
    for request in spy.seen:
        assert "cookie" not in request, request
        assert all(token not in value for value in request.values()), request

    page.reload()  # the same tab keeps its token
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")


def test_a_new_tab_needs_the_link_and_two_instances_keep_their_own_tokens(
    contexts: Contexts,
    harness: HarnessServer,
    make_harness: Callable[..., HarnessServer],
    llm: ScriptedLlmServer,
) -> None:
    second = make_harness(openai_args(llm.base_url), name="second")
    first_page = contexts.new_page(harness.url)
    second_page = first_page.context.new_page()
    open_app(second_page, second.url)  # the same browser profile, another port
    for page in (first_page, second_page):
        page.reload()  # a shared cookie would now hold only the second instance's token
        expect(page.locator("html")).to_have_attribute("data-connection", "connected")

    bare = first_page.context.new_page()
    bare.goto(harness.url.split("?", 1)[0])  # typed by hand: no token in this tab
    expect(bare.get_by_test_id("needs-link-state")).to_be_visible()
    expect(bare.get_by_test_id("needs-link-state")).to_contain_text("harnessdesk serve")
    assert bare.evaluate("() => window.harnessdesk") is None  # the app never started

    wrong: Page = first_page.context.new_page()
    wrong.goto(harness.url.split("?", 1)[0])
    wrong.evaluate("() => sessionStorage.setItem('harnessdesk.token', 'not-the-token')")
    wrong.reload()
    expect(wrong.get_by_test_id("needs-link-state")).to_be_visible()
