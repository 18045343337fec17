"""A 10,000-message session (issue 33, goal 2) as a person meets it: it opens at its newest
messages with a bounded number of DOM nodes (the transcript renders what is on screen, not the
session), scrolling up stays bounded, and a search hit thousands of messages up opens scrolled
to (and marking) that message. The session is written into the store before `serve` starts
(tests/support/long_session.py); the speed of the same steps is bench/transcript_bench.py's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from bench import transcript_probe as probe
from tests.browser.support import Contexts, HarnessServer, open_app, shoot
from tests.support.long_session import MARKER, LongSession, seed_long_session

pytestmark = pytest.mark.browser

MAX_NODES = 6_000
"""What the window of rows may hold (160 rows of the heaviest kind, tool cards with diffs, plus
the app's frame): the bound that must not grow with the session."""


@pytest.fixture(scope="module")
def long_host(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[HarnessServer, LongSession, LongSession]]:
    root: Path = tmp_path_factory.mktemp("long")
    big = seed_long_session(root / "data", "long", 10_000, marked_turn=3)
    small = seed_long_session(root / "data", "short", 120, marked_turn=3)
    server = HarnessServer(
        root, ["--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1", "--model", "none"]
    )
    server.start()
    yield server, big, small
    server.stop()


HOLD_AT_TOP_UNTIL_OLDER = """(first) => {
  document.querySelector('[data-testid=conversation]').scrollTop = 0;
  return window.harnessdesk.app.manager.active.firstSeq < first; }"""

ACTIVE = """() => { const s = window.harnessdesk.app.manager.active;
  return {firstSeq: s.firstSeq, lastSeq: s.lastSeq, detached: s.detached}; }"""


def test_a_long_session_keeps_the_dom_bounded_and_a_search_jump_shows_an_early_message(
    contexts: Contexts, long_host: tuple[HarnessServer, LongSession, LongSession]
) -> None:
    server, big, small = long_host
    page: Page = contexts.new_page()
    open_app(page, server.url)
    expect(page.locator(f'[data-testid=session-item][data-session-id="{big.session_id}"]')).to_be_visible()

    short = page.evaluate(probe.open_session(small.session_id))
    opened = page.evaluate(probe.open_session(big.session_id))
    # the newest messages are on screen, the session's beginning is not in the page
    expect(page.get_by_test_id("msg-user").last).to_contain_text(f"Turn {big.messages // 4 - 1}:")
    assert opened["rows"] <= 160, opened
    assert opened["nodes"] < MAX_NODES, opened
    first = page.evaluate("() => window.harnessdesk.app.manager.active.firstSeq")
    assert first > 20_000, first
    shoot(page, "long-session-tail")

    # older pages come in as the person scrolls up: the window grows a few rows a frame, and the
    # older page is asked for once the fold's first row is shown, so under load it may still be
    # on its way when the 200 frames end; the person keeps the log at its top until it is in
    up = page.evaluate(probe.scroll(200, -150))
    page.wait_for_function(HOLD_AT_TOP_UNTIL_OLDER, arg=first, timeout=20_000)
    up = page.evaluate(probe.scroll(20, -150))
    assert up["firstSeq"] < first, up
    assert up["rows"] <= 160 and up["nodes"] < MAX_NODES, up

    jump = page.evaluate(probe.jump_to_hit(big.session_id, MARKER))
    assert jump["inView"] and jump["seq"] == big.marker_seq, jump
    hit = page.locator('[data-search-hit="true"]')
    expect(hit).to_have_count(1)
    expect(hit).to_contain_text(MARKER)
    expect(hit).to_be_in_viewport()
    assert jump["nodes"] < MAX_NODES, jump
    # only a page around the hit is held (detached from the tail), and the DOM is bounded
    held = page.evaluate(ACTIVE)
    assert held["detached"] and held["lastSeq"] - held["firstSeq"] < 1_000, held
    assert page.locator(".rows > .row").count() <= 160
    assert jump["nodes"] < short["nodes"] + MAX_NODES // 2, (jump, short)
    shoot(page, "long-session-search-hit")

    down = page.evaluate(probe.scroll(300, 150))  # newer pages come in below, the top is trimmed
    assert down["rows"] <= 160 and down["nodes"] < MAX_NODES, down
    newer = page.evaluate(ACTIVE)
    assert newer["lastSeq"] > held["lastSeq"] + 200, (held, newer)
    page.get_by_test_id("jump-latest").click()
    expect(page.get_by_test_id("msg-user").last).to_contain_text(f"Turn {big.messages // 4 - 1}:")
    expect(hit).to_have_count(0)
    assert page.evaluate(ACTIVE)["detached"] is False
