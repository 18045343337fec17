"""Issue 31 (review and context), items 4, 7, 9 and 10 as a person meets them: a session's folder
is always one they chose; approval keys never land in the message; safer defaults in the delete,
fork and archive flows; the git branch and changed files in the header. Screenshots at 800, 1100
and 1600 px in light and dark go to tests/screenshots/ (`review-<state>-<width>-<theme>.png`),
each state asserted first."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from contract.methods import SESSION_LIST, WORKSPACE_CREATE, WORKSPACE_LIST
from tests.browser.shots import SHOTS, THEMES
from tests.browser.support import (
    VIEWPORT,
    Contexts,
    HarnessServer,
    fresh_session,
    openai_args,
    rpc,
    send,
    session_item,
    snap,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.git_repos import git
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

FOCUSED = "() => document.activeElement?.dataset?.testid ?? document.activeElement?.id ?? null"
ARM = "(ms) => import('/js/views/approval-keys.js').then((m) => { m.approvalTiming.armMs = ms; })"


def shoot(page: Page, name: str) -> None:
    """The state at 800, 1100 and 1600 px, light and dark (focus left where it is)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (800, 1100, 1600):
        page.set_viewport_size({"width": width, "height": 800})
        for theme in THEMES:
            page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
            snap(page, SHOTS / f"review-{name}-{width}-{theme}.png")
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="light")


def focused(page: Page) -> str | None:
    return page.evaluate(FOCUSED)


def active(page: Page) -> str:
    return str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))


# ---- item 4: the folder is always one the person chose ----------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "home"
    (root / "projects" / "alpha").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(root))
    return Path(os.path.realpath(root))


def test_enter_and_new_session_use_a_chosen_folder_never_the_launch_folder(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer, home: Path
) -> None:
    server = make_harness(openai_args(llm.base_url), "folders")
    page = contexts.warm_page(server.url)
    empty = page.get_by_test_id("empty-state")
    expect(empty.get_by_role("heading")).to_have_text("Welcome to HarnessDesk")
    expect(empty.get_by_test_id("welcome-type-here")).to_have_text(
        "Or describe a task below and press Enter: you choose its folder first."
    )
    expect(empty).not_to_contain_text(str(server.workdir))
    shoot(page, "welcome-first-run")

    # Enter with no folder yet: the app asks; the message waits in the box meanwhile
    llm.enqueue(Reply(text="Working in alpha."))
    box = page.get_by_test_id("composer-input")
    box.fill("Look around")
    box.press("Enter")
    dialog = page.get_by_test_id("folder-dialog")
    expect(dialog).to_be_visible()
    expect(box).to_have_value("Look around")
    dialog.get_by_test_id("folder-entry").filter(has_text="projects").click()
    dialog.get_by_test_id("folder-entry").filter(has_text="alpha").click()
    expect(dialog.get_by_test_id("folder-current")).to_contain_text("alpha")
    dialog.get_by_test_id("folder-open").click()
    expect(page.get_by_test_id("assistant-text")).to_have_text("Working in alpha.")
    turn_ends(page)
    wait_idle(page)
    alpha = str(home / "projects" / "alpha")
    first = active(page)
    assert page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id).cwd", first) == alpha

    # with no session selected (none in the URL, none remembered as open last), the welcome
    # offers the last folder used, and New session uses it
    page.evaluate(
        "() => { history.replaceState(null, '', location.pathname + location.search);"
        " localStorage.removeItem('harnessdesk.lastSession'); }"
    )
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    expect(empty.get_by_test_id("welcome-last-folder")).to_have_text("~/projects/alpha")
    expect(empty).not_to_contain_text(str(server.workdir))
    shoot(page, "welcome-last-folder")
    page.get_by_test_id("new-session").click()
    page.wait_for_function(
        "(f) => { const id = window.harnessdesk.app.manager.activeId; return id && id !== f; }", arg=first
    )
    expect(dialog).to_be_hidden()  # not asked: the last folder
    second = active(page)
    assert page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id).cwd", second) == alpha
    sessions = rpc(page, SESSION_LIST, {})["items"]
    assert all(s["cwd"] == alpha for s in sessions), sessions


def test_cancelling_the_folder_question_starts_nothing_and_keeps_the_message(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer, home: Path
) -> None:
    server = make_harness(openai_args(llm.base_url), "cancel")
    page = contexts.warm_page(server.url)
    box = page.get_by_test_id("composer-input")
    box.fill("Do not lose me")
    box.press("Enter")
    dialog = page.get_by_test_id("folder-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_test_id("folder-cancel").click()
    expect(dialog).to_be_hidden()
    expect(box).to_have_value("Do not lose me")
    expect(page.get_by_test_id("empty-state")).to_be_visible()
    assert rpc(page, SESSION_LIST, {})["items"] == []
    assert llm.requests == []


# ---- item 7: approval keys never land in the message and never get lost ------------------------


def test_approval_keys_stay_out_of_the_message_and_are_not_lost(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    page.evaluate(ARM, 60_000)  # the card stays unarmed: what a quick key does before it settles
    llm.enqueue(
        Reply(tool_calls=[tool_call("r1", "bash", command="echo one")]),
        Reply(tool_calls=[tool_call("r2", "bash", command="echo two")]),
        Reply(text="Both ran."),
    )
    send(page, "Run two commands")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-command")).to_contain_text("echo one")
    box = page.get_by_test_id("composer-input")
    # the person just typed in the box: the card does not take the focus; a letter is text
    assert focused(page) == "composer-input"
    page.keyboard.press("a")
    expect(box).to_have_value("a")
    expect(card.get_by_test_id("approval-command")).to_contain_text("echo one")
    expect(card).not_to_have_attribute("data-armed", "true")
    shoot(page, "approval-unarmed")

    # a key reaching a card that has not settled yet goes into the message, with the focus
    card.locator(".card-head").click()
    assert focused(page) == "approval-card"
    page.keyboard.press("y")
    expect(box).to_have_value("ay")
    assert focused(page) == "composer-input"
    expect(card.get_by_test_id("approval-command")).to_contain_text("echo one")

    # Alt+Y answers from the message box, and the draft stays as it was
    page.keyboard.press("Alt+y")
    expect(card.get_by_test_id("approval-command")).to_contain_text("echo two")
    expect(box).to_have_value("ay")
    assert focused(page) == "composer-input"

    # a settled card with the focus answers a bare key
    page.evaluate(ARM, 0)
    box.fill("")
    card.locator(".card-head").click()
    expect(card).to_have_attribute("data-armed", "true")
    shoot(page, "approval-armed")
    page.keyboard.press("n")
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Both ran.")
    turn_ends(page)
    wait_idle(page)
    tools = page.get_by_test_id("tool-card")
    expect(tools.nth(0).get_by_test_id("tool-result")).to_have_text("one")
    expect(tools.nth(1)).to_have_attribute("data-status", "rejected")
    expect(box).to_have_value("")
    sent = [m.get("content") for r in llm.requests for m in r["messages"] if m.get("role") == "user"]
    assert "ay" not in sent and "a" not in sent
    page.evaluate(ARM, 700)


# ---- item 9: safer defaults ----------------------------------------------------------------------


def test_delete_focuses_cancel_archive_offers_undo_and_a_fork_says_so(
    page: Page, llm: ScriptedLlmServer
) -> None:
    fresh_session(page)
    llm.enqueue(Reply(text="Beds of four."))
    send(page, "Plan the vegetable beds")
    turn_ends(page)
    wait_idle(page)
    parent = active(page)
    page.wait_for_function("(id) => !!window.harnessdesk.app.manager.summaries.get(id)?.title", arg=parent)
    title = str(page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id).title", parent))

    # a fork's title ends in "(fork)": not two identical rows
    page.get_by_test_id("fork-turn").click()
    page.wait_for_function("(p) => window.harnessdesk.app.manager.activeId !== p", arg=parent)
    child = active(page)
    expect(session_item(page, child).get_by_test_id("session-title").first).to_have_text(f"{title} (fork)")
    expect(page.get_by_test_id("session-heading")).to_have_text(f"{title} (fork)")
    listed = {s["sessionId"]: s.get("title") for s in rpc(page, SESSION_LIST, {})["items"]}
    assert listed[child] == f"{title} (fork)" and listed[parent] == title

    # delete: Cancel has the focus, so Enter keeps the session
    session_item(page, child).first.hover()
    session_item(page, child).first.get_by_test_id("session-delete").first.click()
    dialog = page.get_by_test_id("delete-dialog")
    expect(dialog.get_by_test_id("delete-dialog-cancel")).to_be_focused()
    shoot(page, "delete-dialog")
    page.keyboard.press("Enter")
    expect(dialog).to_have_count(0)
    assert child in {s["sessionId"] for s in rpc(page, SESSION_LIST, {})["items"]}

    # archive: a toast offers Undo, and the open archived session says so
    session_item(page, child).first.hover()
    session_item(page, child).first.get_by_test_id("session-archive").first.click()
    note = page.get_by_test_id("archived-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("This session is archived.")
    undo = page.get_by_test_id("toast-undo-archive")
    expect(undo).to_be_visible()
    shoot(page, "archived")
    undo.click()
    expect(note).to_be_hidden()
    assert rpc(page, WORKSPACE_LIST, {})["archivedSessionIds"] == []
    # archived again, the note's own Unarchive brings it back too
    session_item(page, child).first.hover()
    session_item(page, child).first.get_by_test_id("session-archive").first.click()
    expect(note).to_be_visible()
    note.get_by_test_id("archived-note-unarchive").click()
    expect(note).to_be_hidden()
    assert rpc(page, WORKSPACE_LIST, {})["archivedSessionIds"] == []


# ---- item 10: the git branch and changed files in the header -------------------------------------


def test_header_shows_the_branch_and_changed_files_after_each_turn(
    page: Page, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    repo = tmp_path / "garden"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "spring-beds")
    git(repo, "config", "user.email", "t@example.invalid")
    git(repo, "config", "user.name", "Test")
    (repo / "README.md").write_text("garden\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "start")
    workspace = rpc(page, WORKSPACE_CREATE, {"path": str(repo)})["workspace"]
    page.evaluate("(wid) => window.harnessdesk.app.newSession(wid)", workspace["workspaceId"])
    header = page.get_by_test_id("git-status")
    expect(header.get_by_test_id("git-branch")).to_have_text("spring-beds")
    expect(header).to_have_attribute("data-changed", "0")
    expect(header.get_by_test_id("git-changed")).to_have_text("✓")

    llm.enqueue(
        Reply(tool_calls=[tool_call("w1", "write_file", path="beds.md", content="# beds\n")]),
        Reply(text="Wrote beds.md."),
    )
    send(page, "Write the beds plan")
    card = page.get_by_test_id("approval-card")
    card.get_by_test_id("approval-allow-once").click()
    turn_ends(page)
    wait_idle(page)
    assert (repo / "beds.md").read_text() == "# beds\n"
    expect(header).to_have_attribute("data-changed", "1")  # refreshed after the turn
    expect(header.get_by_test_id("git-changed")).to_have_text("±1")
    expect(header).to_have_attribute("title", re.compile("on spring-beds, 1 changed file"))
    shoot(page, "git-header")

    # a session in a folder that is not a repository shows no git line
    plain = tmp_path / "plain"
    plain.mkdir()
    other = rpc(page, WORKSPACE_CREATE, {"path": str(plain)})["workspace"]
    page.evaluate("(wid) => window.harnessdesk.app.newSession(wid)", other["workspaceId"])
    expect(page.get_by_test_id("session-empty")).to_be_visible()
    expect(header).to_be_hidden()


def test_retry_replaces_the_failed_message_instead_of_a_second_bubble(
    page: Page, llm: ScriptedLlmServer
) -> None:
    fresh_session(page)
    llm.enqueue(Reply(status=400, error_message="the model refused the request"))
    send(page, "Sketch the greenhouse")
    expect(page.get_by_test_id("turn-error")).to_be_visible()
    wait_idle(page)
    llm.enqueue(Reply(text="A lean-to greenhouse."))
    page.get_by_test_id("retry-turn").click()
    expect(page.get_by_test_id("assistant-text").last).to_have_text("A lean-to greenhouse.")
    turn_ends(page, 2)
    wait_idle(page)
    expect(page.get_by_test_id("msg-user")).to_have_count(1)  # one bubble, not two
    expect(page.get_by_test_id("msg-user")).to_have_text("Sketch the greenhouse")
    expect(page.get_by_test_id("retried-attempt")).to_have_count(1)
    expect(page.get_by_test_id("turn-error")).to_have_count(0)
    expect(page.get_by_test_id("turn-error-retried")).to_contain_text("it was retried below")
    shoot(page, "retried")
    page.reload()  # derived from the history: the same after a reload
    expect(page.get_by_test_id("msg-user")).to_have_count(1)
    expect(page.get_by_test_id("retried-attempt")).to_have_count(1)
