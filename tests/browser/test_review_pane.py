"""The review pane as a person uses it (issue 42, items 1, 2 and 5; docs/decisions/review-pane.md):
in a git repository the Changes view is the review pane — the session's two nearby edits are two
hunks, one is staged (read back with `git diff --cached`), the other discarded and put back with
Undo; a line of the diff gets a comment, the tray sends it to the agent as one message naming the
file and the line, and its chip in the transcript links back to the line. A 5,000-line diff keeps
only the rows in view in the DOM and still scrolls to its last line. Screenshots at 800, 1100 and
1600 px, light and dark: tests/screenshots/review-pane-<state>-<width>-<theme>.png."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser import shots
from tests.browser.support import (
    VIEWPORT,
    HarnessServer,
    allow,
    fresh_session,
    send,
    snap,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.git_repos import git
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

LINES = "".join(f"line {i}\n" for i in range(1, 31))
EDITED = LINES.replace("line 3\n", "line three\n").replace("line 5\n", "line five\n")


def repo_at(work: Path) -> None:
    """The module's host folder as a git repository with a.txt committed."""
    if not (work / ".git").exists():
        git(work, "init", "-q", "-b", "main")
        git(work, "config", "user.email", "t@example.invalid")
        git(work, "config", "user.name", "Test")
    (work / "a.txt").write_text(LINES)
    git(work, "add", "-A")
    git(work, "commit", "-q", "--allow-empty", "-m", "start")


def shoot_all(page: Page, state: str) -> None:
    shots.SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (800, 1100, 1600):
        page.set_viewport_size({"width": width, "height": 900})
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            snap(page, shots.SHOTS / f"review-pane-{state}-{width}-{theme}.png")
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="light")


def test_stage_a_hunk_discard_with_undo_and_send_a_line_comment(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    work = harness.workdir
    repo_at(work)
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("w1", "write_file", path="a.txt", content=EDITED)]), Reply(text="Edited.")
    )
    send(page, "Rename lines 3 and 5")
    allow(page, "write_file")
    turn_ends(page, 1)
    wait_idle(page)

    page.get_by_test_id("changes-toggle").click()
    pane = page.get_by_test_id("changes-panel").get_by_test_id("review-pane")
    expect(pane.get_by_test_id("review-scope-session")).to_have_attribute("aria-selected", "true")
    unstaged = pane.locator("[data-testid=review-hunk][data-section=unstaged]")
    staged = pane.locator("[data-testid=review-hunk][data-section=staged]")
    expect(unstaged).to_have_count(2)  # one unchanged line between them: still two hunks
    expect(staged).to_have_count(0)
    expect(pane.locator("[data-testid=review-gap]")).to_have_text(["⋯ 1 unchanged line"])
    shoot_all(page, "open")

    unstaged.nth(1).get_by_test_id("review-stage").click()
    expect(staged).to_have_count(1)
    expect(unstaged).to_have_count(1)
    expect(unstaged.nth(0).get_by_test_id("review-stage")).to_be_focused()  # the row now in its place
    cached = git(work, "diff", "--cached", "-U0")
    assert "+line five" in cached and "three" not in cached
    # the commit box, in its slot under the Staged list, reads what is staged again
    slot = pane.locator("#commit-box-slot")
    expect(slot.get_by_test_id("commit-box").get_by_test_id("commit-staged").locator("li")).to_have_text(
        ["a.txt"]
    )

    # Discard: the file's lines go back at once, and Undo (10 s) puts them back again
    unstaged.nth(0).get_by_test_id("review-discard").click()
    expect(unstaged).to_have_count(0)
    assert (work / "a.txt").read_text() == LINES.replace("line 5\n", "line five\n")
    undo = pane.get_by_test_id("review-undo")
    expect(undo).to_be_visible()
    expect(undo.get_by_test_id("review-undo-button")).to_be_focused()
    shoot_all(page, "discarded")
    undo.get_by_test_id("review-undo-button").click()
    expect(unstaged).to_have_count(1)
    assert (work / "a.txt").read_text() == EDITED
    expect(undo).to_be_hidden()

    # the commit box's slot sits under the Staged list
    assert page.evaluate(
        "() => { const s = document.querySelector('.review-scroll');"
        " const slot = document.getElementById('commit-box-slot');"
        " return !!slot && s.compareDocumentPosition(slot) === Node.DOCUMENT_POSITION_FOLLOWING; }"
    )

    # a comment on the staged line 5 (new side), sent from the tray
    five = pane.locator("[data-testid=review-line][data-side=new][data-line='5']")
    five.get_by_test_id("review-line-no").click()
    expect(five).to_have_class(re.compile(r"(^|\s)is-selected(\s|$)"))
    form = pane.get_by_test_id("review-comment-form")
    form.get_by_test_id("review-comment-text").fill("Not like this: spell it 'line 5'.")
    form.get_by_test_id("review-comment-add").click()
    tray = pane.get_by_test_id("review-tray")
    expect(tray.get_by_test_id("review-tray-item")).to_have_count(1)
    shoot_all(page, "tray")
    llm.enqueue(Reply(text="I will put it back."))
    tray.get_by_test_id("review-send").click()
    turn_ends(page, 2)
    expect(tray).to_be_hidden()
    user = [m for m in llm.requests[-1]["messages"] if m["role"] == "user"][-1]
    words = (
        user["content"]
        if isinstance(user["content"], str)
        else " ".join(p.get("text", "") for p in user["content"])
    )
    assert "Review comment on a.txt, line 5 of the new version:" in words
    assert "+line five" in words and "Not like this" in words

    chip = page.get_by_test_id("msg-review-chip")
    expect(chip).to_have_count(1)
    expect(chip).to_contain_text("a.txt, line 5")
    page.get_by_test_id("changes-close").click()
    chip.click()
    expect(pane.locator("[data-testid=review-line].is-target")).to_have_attribute("data-line", "5")
    page.get_by_test_id("changes-close").click()
    git(work, "reset", "-q", "--hard")


def test_a_five_thousand_line_diff_keeps_only_the_rows_in_view(page: Page, harness: HarnessServer) -> None:
    work = harness.workdir
    repo_at(work)
    (work / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 5001)))  # the person's own file
    fresh_session(page)
    # the session changed nothing, but in a git repository the header still offers the pane
    page.get_by_test_id("changes-toggle").click()
    pane = page.get_by_test_id("review-pane")
    pane.get_by_test_id("review-scope-uncommitted").click()
    expect(
        pane.locator("[data-testid=review-file][data-path='big.txt']").get_by_test_id("review-mine")
    ).to_be_visible()
    in_dom = page.evaluate("() => document.querySelectorAll('[data-testid=review-line]').length")
    assert 0 < in_dom < 200, in_dom  # of 5,000 lines
    page.evaluate(
        "() => { const s = document.querySelector('.review-scroll'); s.scrollTop = s.scrollHeight; }"
    )
    expect(pane.locator("[data-testid=review-line][data-line='5000']")).to_be_visible()
    assert page.evaluate("() => document.querySelectorAll('[data-testid=review-line]').length") < 200
    (work / "big.txt").unlink()
    page.get_by_test_id("changes-close").click()


def test_an_untrusted_repository_that_names_programs_is_not_read(page: Page, harness: HarnessServer) -> None:
    work = harness.workdir
    repo_at(work)
    marker = harness.root / "ran"
    hook = harness.root / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(work, "config", "core.fsmonitor", str(hook))
    try:
        (work / "a.txt").write_text(EDITED)
        fresh_session(page)
        page.evaluate("() => window.harnessdesk.app.toggleChanges(true)")
        pane = page.get_by_test_id("review-pane")
        expect(pane.get_by_test_id("review-untrusted")).to_contain_text("core.fsmonitor")
        expect(pane.get_by_test_id("review-untrusted")).to_contain_text("Trust the folder")
        expect(pane.locator("[data-testid=review-hunk]")).to_have_count(0)
        assert not marker.exists()
        page.get_by_test_id("changes-close").click()
    finally:
        git(work, "config", "--unset", "core.fsmonitor")
        git(work, "reset", "-q", "--hard")
