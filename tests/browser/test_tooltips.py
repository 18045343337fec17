"""Tooltips that do not stick (issue 46, item 9): a title shows in the page's own tooltip
(views/tooltip.js; the engine's stays on screen in the window until the pointer moves, over a
dialog opened meanwhile or where the collapsed sidebar was), which goes when a dialog covers what
it describes, when the sidebar collapses under it, on a key, and shows for the keyboard's focus
too. While the pointer rests on an element its title is held back (the engine shows none) and
comes back when the pointer leaves."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from contract.methods import SESSION_RENAME
from tests.browser.support import VIEWPORT, fresh_session, rpc, shoot

pytestmark = pytest.mark.browser

IMPORT_TITLE = "Import a session archive (.zip from Export); or drop it on the window"


def test_a_tooltip_goes_when_a_dialog_opens_over_it(page: Page) -> None:
    button = page.get_by_test_id("import-archive")
    tip = page.get_by_test_id("tooltip")
    button.hover()
    expect(tip).to_be_visible()
    expect(tip).to_have_text(IMPORT_TITLE)
    expect(button).not_to_have_attribute("title", IMPORT_TITLE)  # held back: the engine shows none
    expect(button).to_have_attribute("aria-describedby", "tooltip")
    shoot(page, "tooltip-import")
    page.evaluate("() => window.harnessdesk.app.settings.open()")  # opens with the pointer still
    expect(page.get_by_test_id("settings-dialog")).to_be_visible()
    expect(tip).to_be_hidden()
    page.evaluate("() => document.querySelector('[data-testid=settings-dialog]').close()")
    page.mouse.move(640, 300)  # the pointer leaves: the title is the element's again
    expect(button).to_have_attribute("title", IMPORT_TITLE)
    expect(button).not_to_have_attribute("aria-describedby", "tooltip")


def test_a_tooltip_goes_when_the_sidebar_collapses_under_it(page: Page) -> None:
    sid = fresh_session(page)
    rpc(page, SESSION_RENAME, {"sessionId": sid, "title": "Collapse under the pointer"})
    page.set_viewport_size({"width": 800, "height": 740})
    try:
        page.get_by_test_id("sidebar-toggle").click()
        row = page.locator(f'[data-testid=session-item][data-session-id="{sid}"]').get_by_test_id(
            "session-open"
        )
        expect(row).to_be_visible()
        row.hover()
        tip = page.get_by_test_id("tooltip")
        expect(tip).to_be_visible()  # the session's folder
        page.evaluate("() => window.harnessdesk.app.toggleSidebar(false)")  # collapses, the pointer still
        expect(tip).to_be_hidden()
    finally:
        page.set_viewport_size(VIEWPORT)


def test_a_tooltip_shows_for_the_keyboards_focus_and_goes_on_a_key(page: Page) -> None:
    page.get_by_test_id("open-settings").focus()
    page.keyboard.press("Tab")  # onto Import…, by the keyboard
    expect(page.get_by_test_id("import-archive")).to_be_focused()
    tip = page.get_by_test_id("tooltip")
    expect(tip).to_have_text(IMPORT_TITLE)
    expect(tip).to_be_visible()
    page.keyboard.press("Shift+Tab")
    expect(tip).to_be_hidden()
    expect(page.get_by_test_id("import-archive")).to_have_attribute("title", IMPORT_TITLE)
