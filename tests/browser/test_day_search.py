"""Long sessions found and walked (issue 46, item 3, and Deliver item 3): the sidebar lists each
matching message under its session, paged by "More results"; a hit opens its session idle (no
Stop/Steer) with "n of N" stepped by Enter / Shift+Enter and the buttons; Ctrl+Home and
Ctrl+End reach the session's first and newest message however long it is; `?` shows the
shortcuts and the focus comes back to what opened a dialog."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    open_app,
    send,
    shoot,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import ScriptedLlmServer

pytestmark = pytest.mark.browser

TURNS = 40
MARKED = [i for i in range(TURNS) if i % 5 in (1, 2, 3)]  # 24 messages hold the word


SHOWN = """[...document.querySelectorAll('[data-testid=msg-user]')].filter((e) => {
    const r = e.getBoundingClientRect();
    const c = document.querySelector('[data-testid=conversation]').getBoundingClientRect();
    return r.bottom > c.top && r.top < c.bottom;
}).map((e) => Number(/Question number (\\d+):/.exec(e.textContent)?.[1] ?? -1))"""
"""The numbers of the questions in view."""


def prompt(i: int) -> str:
    word = "the quokka-marker" if i in MARKED else "nothing special"
    return f"Question number {i}: {word} here."


def long_session(page: Page) -> str:
    sid = fresh_session(page)
    send(page, prompt(0))
    page.evaluate(
        """async ([sid, texts]) => {
            const {client} = window.harnessdesk;
            for (const text of texts)
                await client.call("session.prompt",
                    {sessionId: sid, mode: "queue", content: [{type: "text", text}]});
        }""",
        [sid, [prompt(i) for i in range(1, TURNS)]],
    )
    page.wait_for_function(
        "(n) => window.harnessdesk.app.manager.active.fold.items"
        ".filter((i) => i.kind === 'turn-end').length === n",
        arg=TURNS,
        timeout=180_000,
    )
    wait_idle(page)
    return sid


def test_search_lists_each_message_and_a_session_steps_through_its_hits(
    contexts: Contexts, harness: HarnessServer, page: Page, llm: ScriptedLlmServer
) -> None:
    fresh_session(page)
    send(page, "Another session also names the quokka-marker once.")
    turn_ends(page, 1)
    wait_idle(page)
    sid = long_session(page)

    fresh = contexts.new_page()  # a page that has not held the session: its history pages in
    open_app(fresh, harness.url)
    fresh.set_viewport_size({"width": 1100, "height": 740})
    fresh.get_by_test_id("search-input").fill("quokka-marker")
    results = fresh.get_by_test_id("search-results")
    hits = results.get_by_test_id("search-result")
    expect(hits).to_have_count(20)  # one page: each matching message, not one per session
    expect(results.locator(f'[data-testid="search-group"][data-session-id="{sid}"]')).to_have_count(1)
    more = results.get_by_test_id("search-more")
    expect(more).to_be_visible()
    more.click()
    expect(hits).to_have_count(len(MARKED) + 1)
    expect(results.get_by_test_id("search-group")).to_have_count(2)
    expect(more).to_have_count(0)
    mine = results.locator(f'[data-testid="search-result"][data-session-id="{sid}"]')
    expect(mine).to_have_count(len(MARKED))
    shoot(fresh, "day-search-results")

    mine.filter(has_text="Question number 1:").click()
    bar = fresh.get_by_test_id("find-bar")
    count = bar.get_by_test_id("find-count")
    expect(count).to_have_text(f"1 of {len(MARKED)}")
    hit = fresh.locator('[data-search-hit="true"]')
    expect(hit).to_contain_text("Question number 1:")
    expect(hit).to_be_in_viewport()
    # an idle session stays idle after the jump: no Stop, Steer or running badge
    expect(fresh.get_by_test_id("composer-stop")).to_be_hidden()
    expect(fresh.get_by_test_id("composer-steer")).to_be_hidden()
    expect(fresh.get_by_test_id("session-running-badge")).to_be_hidden()
    expect(fresh.get_by_test_id("composer-send")).to_be_visible()

    find = bar.get_by_test_id("find-input")
    expect(find).to_have_value("quokka-marker")
    find.press("Enter")
    expect(count).to_have_text(f"2 of {len(MARKED)}")
    expect(hit).to_contain_text(f"Question number {MARKED[1]}:")
    find.press("Shift+Enter")
    expect(count).to_have_text(f"1 of {len(MARKED)}")
    bar.get_by_test_id("find-prev").click()  # round the start: the last hit, far below
    expect(count).to_have_text(f"{len(MARKED)} of {len(MARKED)}")
    expect(hit).to_contain_text(f"Question number {MARKED[-1]}:")
    expect(hit).to_be_in_viewport()
    bar.get_by_test_id("find-next").click()
    expect(count).to_have_text(f"1 of {len(MARKED)}")
    shoot(fresh, "day-search-find")
    find.press("Escape")
    expect(bar).to_be_hidden()
    expect(fresh.get_by_test_id("composer-input")).to_be_focused()

    # the whole session from the keyboard, however much of it is held
    fresh.keyboard.press("Control+End")
    expect(fresh.get_by_test_id("msg-user").last).to_contain_text(f"Question number {TURNS - 1}:")
    expect(fresh.get_by_test_id("msg-user").last).to_be_in_viewport()
    fresh.keyboard.press("Control+Home")
    first = fresh.get_by_test_id("msg-user").first
    expect(first).to_contain_text("Question number 0:")
    expect(first).to_be_in_viewport()
    fresh.keyboard.press("Control+End")
    expect(fresh.get_by_test_id("msg-user").last).to_contain_text(f"Question number {TURNS - 1}:")
    expect(fresh.get_by_test_id("msg-user").last).to_be_in_viewport()

    # Ctrl+F: find in this session, from the keyboard
    fresh.keyboard.press("Control+f")
    expect(bar).to_be_visible()
    expect(find).to_be_focused()
    expect(count).to_have_text(re.compile(rf"^1 of {len(MARKED)}$"))
    find.press("Escape")

    # the session rail: a scrollbar over the whole session, not only the page held (a page
    # that opens the session holds its tail)
    fresh = contexts.new_page()
    open_app(fresh, harness.url)
    fresh.set_viewport_size({"width": 1100, "height": 740})
    item = fresh.locator(f'[data-testid="session-item"][data-session-id="{sid}"]')
    item.get_by_test_id("session-open").press("Enter")
    expect(fresh.get_by_test_id("msg-user").last).to_contain_text(f"Question number {TURNS - 1}:")
    assert fresh.evaluate("() => window.harnessdesk.app.manager.active.hasMore")
    rail = fresh.get_by_test_id("session-rail")
    expect(rail).to_be_visible()
    box = rail.bounding_box()
    assert box is not None
    rail.click(position={"x": box["width"] / 2, "y": 2})
    expect(fresh.get_by_test_id("msg-user").first).to_contain_text("Question number 0:")
    fresh.wait_for_function(f"() => ({SHOWN}).includes(0)")
    rail.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    fresh.wait_for_function(f"() => ({SHOWN}).some((n) => n >= 12 && n <= 28)")
    shoot(fresh, "day-session-rail")
    rail.press("End")
    fresh.wait_for_function(f"() => ({SHOWN}).includes({TURNS - 1})")
    rail.press("Home")
    fresh.wait_for_function(f"() => ({SHOWN}).includes(0)")


def test_the_shortcuts_sheet_and_the_focus_after_a_dialog(page: Page) -> None:
    fresh_session(page)
    conversation = page.get_by_test_id("conversation")
    conversation.focus()
    page.keyboard.press("?")
    sheet = page.get_by_test_id("shortcuts-dialog")
    expect(sheet).to_be_visible()
    expect(sheet.get_by_test_id("shortcuts-list")).to_contain_text("Find in this session")
    shoot(page, "day-shortcuts")
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    expect(conversation).to_be_focused()

    # typed into the message box, `?` is a character
    composer = page.get_by_test_id("composer-input")
    composer.focus()
    page.keyboard.type("why?")
    expect(sheet).to_be_hidden()
    expect(composer).to_have_value("why?")
    composer.fill("")

    # the sidebar's button opens it too, and each dialog gives the focus back to its opener
    for opener, dialog, close in (
        ("open-shortcuts", "shortcuts-dialog", "shortcuts-close"),
        ("open-settings", "settings-dialog", "settings-close"),
        ("permissions-toggle", "permissions-dialog", "permissions-close"),
    ):
        button = page.get_by_test_id(opener)
        button.focus()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id(dialog)).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.get_by_test_id(dialog)).to_be_hidden()
        expect(button).to_be_focused()
        button.focus()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id(dialog)).to_be_visible()
        page.get_by_test_id(close).click()
        expect(page.get_by_test_id(dialog)).to_be_hidden()
        expect(button).to_be_focused()


def test_the_focus_comes_back_to_a_control_the_list_redrew_or_to_the_message_box(page: Page) -> None:
    """The session list redraws while a confirmation is open (any session's update does): the
    focus returns to the same control of the same session; once that session is deleted, to the
    message box — never to the page's body."""
    keep = fresh_session(page)
    send(page, "A session to keep")
    gone = fresh_session(page)
    send(page, "A session to delete")
    wait_idle(page)
    row = page.locator(f'[data-testid="session-item"][data-session-id="{gone}"]')
    row.get_by_test_id("session-delete").focus()
    page.keyboard.press("Enter")
    confirm = page.locator("dialog[open]")
    expect(confirm.get_by_test_id("delete-confirm")).to_be_visible()
    page.evaluate("() => window.harnessdesk.app.sidebar.render()")  # as a session's update does
    page.keyboard.press("Escape")
    expect(confirm).to_have_count(0)
    expect(row.get_by_test_id("session-delete")).to_be_focused()
    # a late update redraws the list once more: the keyboard stays on the same control
    page.evaluate("() => window.harnessdesk.app.sidebar.render()")
    expect(row.get_by_test_id("session-delete")).to_be_focused()
    page.keyboard.press("Enter")
    page.locator("dialog[open]").get_by_test_id("delete-confirm").click()
    expect(row).to_have_count(0)
    expect(page.get_by_test_id("composer-input")).to_be_focused()
    assert page.evaluate("() => document.activeElement !== document.body")
    expect(page.locator(f'[data-testid="session-item"][data-session-id="{keep}"]')).to_have_count(1)
