"""The session list: fork, inline rename, search, export."""

from __future__ import annotations

import json
import re
import zipfile

import pytest
from playwright.sync_api import Locator, Page, expect

from host.engine.sessions.titles import auto_title
from tests.browser.shots import SHOTS
from tests.browser.support import (
    HarnessServer,
    click_through_redraw,
    fresh_session,
    new_session,
    send,
    snap,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def one_turn(page: Page, llm: ScriptedLlmServer, prompt: str, answer: str) -> str:
    """A new session with one completed turn; returns its id."""
    sid = fresh_session(page)
    llm.enqueue(Reply(text=answer))
    send(page, prompt)
    expect(page.get_by_test_id("assistant-text").last).to_have_text(answer)
    expect(turn_ends(page).last).to_have_attribute("data-reason", "completed")
    wait_idle(page)
    return sid


def item(page: Page, sid: str) -> Locator:
    return page.locator(f'[data-testid="session-item"][data-session-id="{sid}"]')


def active_id(page: Page) -> str:
    return str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))


def test_fork_nests_the_child_under_its_parent(page: Page, llm: ScriptedLlmServer) -> None:
    parent = one_turn(page, llm, "Plan the garden layout", "Tomatoes go south.")
    parent_item = item(page, parent)
    expect(parent_item).to_have_attribute("data-depth", "0")

    page.get_by_test_id("fork-turn").click()
    page.wait_for_function("(p) => window.harnessdesk.app.manager.activeId !== p", arg=parent)
    child = active_id(page)
    child_item = parent_item.locator(f'[data-testid="session-item"][data-session-id="{child}"]')
    expect(child_item).to_have_attribute("data-depth", "1")
    expect(child_item).to_have_class(re.compile(r"\bis-active\b"))
    expect(parent_item).not_to_have_class(re.compile(r"\bis-active\b"))
    # the fork carries the history up to the forked turn
    expect(page.get_by_test_id("msg-user")).to_have_text("Plan the garden layout")
    expect(page.get_by_test_id("assistant-text")).to_have_text("Tomatoes go south.")
    # (the host does not carry the parent's auto title into a fork of its first turn: the title
    # event follows that turn's end; so only check that list and heading agree)
    page.wait_for_function(
        """(id) => {
            const heading = document.querySelector('[data-testid="session-heading"]').textContent;
            const item = document.querySelector(`[data-testid="session-item"][data-session-id="${id}"]`);
            return heading && item?.querySelector('[data-testid="session-title"]').textContent === heading;
        }""",
        arg=child,
    )

    # the fork is a session of its own: a new prompt there does not touch the parent
    llm.enqueue(Reply(text="Peppers go north."))
    send(page, "And the peppers?")
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Peppers go north.")
    turn_ends(page, 2)
    # (on its title: in a workspace group the row's hover tools cover the middle of a narrow row)
    parent_item.get_by_test_id("session-open").first.click(position={"x": 12, "y": 10})
    expect(page.get_by_test_id("msg-user")).to_have_count(1)
    # after a reload the tree is rebuilt from the host's list
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    expect(
        item(page, parent).locator(f'[data-testid="session-item"][data-session-id="{child}"]')
    ).to_have_attribute("data-depth", "1")


def test_rename_inline_updates_list_and_heading_and_persists(page: Page, llm: ScriptedLlmServer) -> None:
    sid = one_turn(page, llm, "Summarise the release notes", "Done.")
    row = item(page, sid)
    expect(row.get_by_test_id("session-title")).to_have_text("Summarise the release notes")
    row.hover()
    row.get_by_test_id("session-rename").click()
    box = row.get_by_test_id("rename-input")
    expect(box).to_be_focused()
    expect(box).to_have_value("Summarise the release notes")
    box.fill("Release notes digest")
    box.press("Enter")
    expect(row.get_by_test_id("rename-input")).to_have_count(0)
    expect(row.get_by_test_id("session-title")).to_have_text("Release notes digest")
    expect(page.get_by_test_id("session-heading")).to_have_text("Release notes digest")

    # Escape cancels a rename
    row.get_by_test_id("session-rename").click()
    row.get_by_test_id("rename-input").fill("Should not stick")
    row.get_by_test_id("rename-input").press("Escape")
    expect(row.get_by_test_id("session-title")).to_have_text("Release notes digest")

    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    expect(item(page, sid).get_by_test_id("session-title")).to_have_text("Release notes digest")
    expect(page.get_by_test_id("session-heading")).to_have_text("Release notes digest")


def test_search_highlights_and_opens_the_session(page: Page, llm: ScriptedLlmServer) -> None:
    target = one_turn(page, llm, "Where do axolotls live?", "Axolotls live in Lake Xochimilco.")
    other = new_session(page)
    assert other != target
    search = page.get_by_test_id("search-input")
    page.get_by_test_id("composer-input").focus()
    page.keyboard.press("Control+k")
    expect(search).to_be_focused()
    page.keyboard.type("xochimilco")
    results = page.get_by_test_id("search-results")
    group = results.locator(f'[data-testid="search-group"][data-session-id="{target}"]')
    expect(group).to_have_count(1)
    expect(group).to_contain_text("Where do axolotls live?")  # the session's title heads its hits
    hit = group.get_by_test_id("search-result")
    expect(hit).to_have_count(1)  # the one message that names it
    expect(hit.locator("mark").first).to_have_text(re.compile("^xochimilco$", re.I))
    hit.click()
    expect(results).to_be_hidden()
    expect(search).to_have_value("")
    expect(item(page, target)).to_have_class(re.compile(r"\bis-active\b"))
    expect(page.get_by_test_id("session-heading")).to_have_text("Where do axolotls live?")
    expect(page.get_by_test_id("assistant-text")).to_have_text("Axolotls live in Lake Xochimilco.")

    search.fill("nonexistentwordqq")
    expect(page.get_by_test_id("search-empty")).to_be_visible()
    search.press("Escape")
    expect(results).to_be_hidden()


def test_export_downloads_a_zip_with_the_session_and_its_forks(page: Page, llm: ScriptedLlmServer) -> None:
    parent = one_turn(page, llm, "Export me please", "Exported soon.")
    page.get_by_test_id("fork-turn").click()
    page.wait_for_function("(p) => window.harnessdesk.app.manager.activeId !== p", arg=parent)
    child = active_id(page)
    item(page, parent).get_by_test_id("session-open").first.click(position={"x": 12, "y": 10})
    expect(page.get_by_test_id("session-heading")).to_have_text("Export me please")

    with page.expect_download() as info:
        page.get_by_test_id("export-session").click()
    download = info.value
    assert download.suggested_filename.endswith(".zip")
    path = download.path()
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        assert "session.jsonl" in names, names
        assert f"subagents/{child}/session.jsonl" in names, names
        lines = z.read("session.jsonl").decode().splitlines()
    header = json.loads(lines[0])
    assert parent in json.dumps(header)
    events = [json.loads(line) for line in lines[1:]]
    assert any("Export me please" in json.dumps(e) for e in events)
    assert any("Exported soon." in json.dumps(e) for e in events)

    # the sidebar's export button downloads too
    with page.expect_download() as info:
        item(page, child).hover()
        item(page, child).get_by_test_id("session-export").click()
    with zipfile.ZipFile(info.value.path()) as z:
        assert "session.jsonl" in z.namelist()


def test_provisional_title_until_the_host_titles_the_session(page: Page, llm: ScriptedLlmServer) -> None:
    """Before the first turn completes the session is named after its first message (the host's
    auto title comes at the turn's end); the host's title projection replaces it at once."""
    sid = fresh_session(page)
    prompt = "  Sort   the\n  photos by   date and remove the blurry duplicates from the holiday album  "
    expected = auto_title(prompt)
    assert expected and expected.endswith("…") and len(expected) <= 60
    llm.enqueue(Reply(text="Sorting the photos now, one album at a time " * 5, chunk_size=8, hang_after=3))
    send(page, prompt)
    expect(page.get_by_test_id("assistant-text")).to_contain_text("Sorting")
    title = item(page, sid).get_by_test_id("session-title")
    heading = page.get_by_test_id("session-heading")
    expect(title).to_have_text(expected)
    expect(heading).to_have_text(expected)

    # a reload while the turn still runs (no host title yet) derives it from the history
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    expect(item(page, sid).get_by_test_id("session-title")).to_have_text(expected)
    expect(heading).to_have_text(expected)

    # the host's title (a rename by another client arrives as a title projection) wins
    page.evaluate(
        "(sessionId) => window.harnessdesk.client.call("
        "'session.rename', {sessionId, title: 'Holiday photos'})",
        sid,
    )
    expect(item(page, sid).get_by_test_id("session-title")).to_have_text("Holiday photos")
    expect(heading).to_have_text("Holiday photos")
    page.get_by_test_id("composer-stop").click()
    expect(turn_ends(page).first).to_have_attribute("data-reason", "aborted")
    wait_idle(page)
    expect(heading).to_have_text("Holiday photos")


def test_the_last_open_session_opens_again_on_the_next_start(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    """Issue 31, item 6: a start without a session in the URL opens the one open last."""
    fresh_session(page)
    llm.enqueue(Reply(text="First answer."))
    send(page, "The session to come back to")
    turn_ends(page)
    wait_idle(page)
    kept = page.evaluate("() => window.harnessdesk.app.manager.activeId")
    fresh_session(page)  # another session was open in between
    llm.enqueue(Reply(text="Second answer."))
    send(page, "Another session")
    turn_ends(page)
    wait_idle(page)
    page.locator(f'[data-testid="session-item"][data-session-id="{kept}"] .session-title').first.click(
        position={"x": 8, "y": 8}
    )
    page.wait_for_function("(sid) => window.harnessdesk.app.manager.activeId === sid", arg=kept)
    again = page.context.new_page()
    again.goto(harness.url)  # a fresh start: the URL names no session
    expect(again.locator("html")).to_have_attribute("data-connection", "connected")
    again.wait_for_function("(sid) => window.harnessdesk.app.manager.activeId === sid", arg=kept)
    expect(again.get_by_test_id("msg-user")).to_have_text("The session to come back to")
    SHOTS.mkdir(parents=True, exist_ok=True)
    snap(again, SHOTS / "last-session-reopened.png")
    again.close()


def test_a_click_on_a_session_is_not_lost_to_the_list_redrawn_under_it(
    page: Page, llm: ScriptedLlmServer
) -> None:
    """The list redraws whenever it is read again (while the app starts, on a busy machine, more
    than once): a redraw between the press and the release used to replace the row under the
    pointer, and the browser sent no click (two suite tests missed their session this way)."""
    first = one_turn(page, llm, "Water the basil", "Watered.")
    fresh_session(page)
    assert active_id(page) != first
    button = item(page, first).get_by_test_id("session-open")
    # the list read again between the press and the release
    click_through_redraw(page, button, "() => window.harnessdesk.app.sidebar.render()")
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Watered.")
    assert active_id(page) == first
    # and the redraw it held came with the click: the row now shows its session as open
    expect(item(page, first).get_by_test_id("session-open")).to_have_attribute("aria-current", "page")


SLOW_CALL = """([slow, ms]) => {
  const client = window.harnessdesk.client;
  const call = client.call.bind(client);
  window.creates = 0;
  client.call = async (method, ...rest) => {
    if (method === slow) {
      window.creates += 1;
      await new Promise((r) => setTimeout(r, ms));
    }
    return call(method, ...rest);
  };
}"""
"""The host takes `ms` to answer each call of one method (`session.create`, `session.fork`), as
on a busy machine; `window.creates` counts them."""


def answered_session(page: Page, llm: ScriptedLlmServer, prompt: str, answer: str) -> str:
    """A new session with one finished turn; its id."""
    sid = fresh_session(page)
    llm.enqueue(Reply(text=answer))
    send(page, prompt)
    turn_ends(page, 1)
    wait_idle(page)
    return sid


def send_at_once(page: Page, llm: ScriptedLlmServer, prompt: str, answer: str) -> None:
    """Type and press Enter without waiting for anything; the answer comes in view."""
    llm.enqueue(Reply(text=answer))
    box = page.get_by_test_id("composer-input")
    box.fill(prompt)
    box.press("Enter")
    expect(page.get_by_test_id("conversation")).to_contain_text(answer)


def test_a_message_sent_while_a_new_session_is_being_made_goes_to_that_session(
    page: Page, llm: ScriptedLlmServer
) -> None:
    """Click New session, type at once and press Enter: the message is the new session's first,
    not the previous session's next (a busy suite run saw it go to the wrong one)."""
    first = answered_session(page, llm, "To the first session", "The first answer.")
    page.evaluate(SLOW_CALL, ["session.create", 800])
    page.get_by_test_id("new-session").click()
    page.get_by_test_id("new-session").click()  # a double click makes one session, not two
    send_at_once(page, llm, "To the new session", "The second answer.")
    assert active_id(page) != first
    expect(page.get_by_test_id("conversation")).not_to_contain_text("To the first session")
    assert page.evaluate("window.creates") == 1
    item(page, first).get_by_test_id("session-open").click(position={"x": 12, "y": 10})
    expect(page.get_by_test_id("conversation")).to_contain_text("The first answer.")
    expect(page.get_by_test_id("conversation")).not_to_contain_text("To the new session")


def test_a_message_sent_while_a_fork_is_being_made_goes_to_the_fork(
    page: Page, llm: ScriptedLlmServer
) -> None:
    parent = answered_session(page, llm, "To the parent", "The parent's answer.")
    page.evaluate(SLOW_CALL, ["session.fork", 800])
    page.get_by_test_id("turn-end").first.get_by_test_id("fork-turn").click()
    send_at_once(page, llm, "To the fork", "The fork's answer.")
    assert active_id(page) != parent
    expect(page.get_by_test_id("conversation")).to_contain_text("The parent's answer.")  # the fork's history
    assert page.evaluate("window.creates") == 1
    item(page, parent).get_by_test_id("session-open").first.click(position={"x": 12, "y": 10})
    expect(page.get_by_test_id("conversation")).to_contain_text("The parent's answer.")
    expect(page.get_by_test_id("conversation")).not_to_contain_text("To the fork")
