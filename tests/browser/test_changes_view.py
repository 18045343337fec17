"""The Changes view as a person uses it (issue 31, deliverable 2): the header's Changes button
counts the files the session changed (file tools and a shell command), the view shows each file's
combined diff, Revert hunk undoes one hunk on disk, a turn's file list opens the view at that
file, and Revert file (asked first, Cancel focused) puts a file back. Screenshots at 800, 1100
and 1600 px in the light and dark themes: tests/screenshots/changes-<state>-<width>-<theme>.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser import shots
from tests.browser.support import (
    VIEWPORT,
    HarnessServer,
    allow,
    click_through_redraw,
    fresh_session,
    send,
    snap,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

LINES = "".join(f"line {i}\n" for i in range(1, 21))
WIDTHS = (800, 1100, 1600)


def shoot_all(page: Page, state: str) -> None:
    shots.SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => document.activeElement?.blur?.()")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            path = shots.SHOTS / f"changes-{state}-{width}-{theme}.png"
            snap(page, path)
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="light")


def test_the_changes_view_reverts_a_hunk_and_a_file_on_disk(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    work = harness.workdir
    (work / "big.txt").write_text(LINES)
    (work / "notes.txt").write_text("colour\n")
    fresh_session(page)
    expect(page.get_by_test_id("changes-toggle")).to_be_hidden()  # nothing changed yet
    llm.enqueue(
        Reply(
            tool_calls=[
                tool_call("e1", "edit_file", path="big.txt", old_string="line 2\n", new_string="line two\n")
            ]
        ),
        Reply(text="Edited the top."),
    )
    send(page, "Edit the top of big.txt")
    allow(page, "edit_file")
    turn_ends(page, 1)
    llm.enqueue(
        Reply(
            tool_calls=[
                tool_call(
                    "e2", "edit_file", path="big.txt", old_string="line 19\n", new_string="line nineteen\n"
                )
            ]
        ),
        Reply(tool_calls=[tool_call("b1", "bash", command="sed -i 's/colour/color/' notes.txt")]),
        Reply(text="Edited the bottom and the notes."),
    )
    send(page, "Edit the bottom, and fix the spelling in notes.txt with sed")
    allow(page, "edit_file")
    allow(page, "bash")
    ends = turn_ends(page, 2)
    wait_idle(page)

    toggle = page.get_by_test_id("changes-toggle")
    expect(toggle.get_by_test_id("changes-count")).to_have_text("2")
    toggle.click()
    panel = page.get_by_test_id("changes-panel")
    expect(panel.get_by_test_id("changes-summary")).to_have_text("2 files changed since the session started")
    files = panel.get_by_test_id("changes-file")
    expect(files.get_by_test_id("changes-file-name")).to_have_text(["big.txt", "notes.txt"])
    big = files.nth(0)
    expect(big.get_by_test_id("changes-hunk")).to_have_count(2)
    expect(big.get_by_test_id("changes-hunk").nth(1).locator(".diff-add .diff-text")).to_have_text(
        "line nineteen"
    )
    expect(files.nth(1).locator(".diff-del .diff-text")).to_have_text("colour")
    shoot_all(page, "open")

    big.get_by_test_id("changes-hunk").nth(1).get_by_test_id("changes-revert-hunk").click()
    hunk_dialog = page.get_by_test_id("changes-revert-hunk-dialog")  # asked once, Cancel focused (issue 42)
    expect(hunk_dialog.get_by_test_id("changes-revert-hunk-dialog-cancel")).to_be_focused()
    hunk_dialog.get_by_test_id("changes-revert-hunk-confirm").click()
    expect(big.get_by_test_id("changes-hunk")).to_have_count(1)
    assert (work / "big.txt").read_text() == LINES.replace("line 2\n", "line two\n")  # only that hunk
    expect(page.get_by_test_id("restored-row")).to_contain_text("Undid one change in the Changes view")
    shoot_all(page, "hunk-reverted")

    # the turn's change list links into the view, at that file
    page.get_by_test_id("changes-close").click()
    expect(panel).to_be_hidden()
    ends.nth(1).get_by_test_id("turn-file-link").filter(has_text="notes.txt").click()
    expect(panel).to_be_visible()
    notes = panel.locator("[data-testid=changes-file][data-path='notes.txt']")
    expect(notes).to_have_class("diff-wrap file-change changes-file is-target")
    expect(notes.get_by_test_id("changes-file-name")).to_be_focused()  # read, scrolled to it

    # the list read again between the press and the release (an agent editing): the click lands
    revert = notes.get_by_test_id("changes-revert-file")
    click_through_redraw(page, revert, "() => window.harnessdesk.app.changesPanel.render()")
    dialog = page.get_by_test_id("changes-revert-dialog")
    expect(dialog.get_by_test_id("changes-revert-dialog-cancel")).to_be_focused()  # destructive: Cancel first
    shoot_all(page, "revert-file-dialog")
    dialog.get_by_test_id("changes-revert-confirm").click()
    expect(files).to_have_count(1)
    expect(toggle.get_by_test_id("changes-count")).to_have_text("1")
    assert (work / "notes.txt").read_text() == "colour\n"

    # a stale view: the file changed on disk since it was shown; nothing is written
    (work / "big.txt").write_text("edited by hand\n")
    big.get_by_test_id("changes-revert-hunk").click()
    page.get_by_test_id("changes-revert-hunk-confirm").click()
    expect(page.get_by_test_id("toast").last).to_contain_text("is not what the Changes view showed")
    assert (work / "big.txt").read_text() == "edited by hand\n"
    page.reload()  # the reverts are in the history
    expect(page.get_by_test_id("restored-row")).to_have_count(2)
