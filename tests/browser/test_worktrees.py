"""Worktree sessions in the page (issue 41, items 1 and 2; docs/decisions.md, "Worktree
sessions"): a real `harnessdesk serve` on a folder that is a git repository, the real page in
Chromium, the scripted provider. New session offers "In a new worktree" (remembered per
workspace), names the branch after the first prompt and asks whether the checkout's uncommitted
changes come along; the row and the header show the branch and its state; the header's menu
applies the work to the checkout, discards the worktree, moves a local session to a new one,
merges the branch into its base (refused while the worktree is dirty, with the files named) and
removes the worktree keeping its branch, each after one confirmation."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from contract.methods import SESSION_LIST
from tests.browser.i18n_screens import english_on_screen
from tests.browser.support import (
    Contexts,
    HarnessServer,
    allow,
    new_session,
    openai_args,
    rpc,
    send,
    session_item,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.git_repos import branches, commit_all, git, make_repo, worktree_paths
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def summary(page: Page, sid: str) -> dict[str, Any]:
    items = rpc(page, SESSION_LIST, {})["items"]
    return dict(next(s for s in items if s["sessionId"] == sid))


def active(page: Page) -> str:
    return str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))


def menu(page: Page, item: str, dialog: str) -> None:
    """Pick `item` in the header's worktree menu and confirm its dialog."""
    page.get_by_test_id("worktree-menu").click()
    page.get_by_test_id(item).click()
    page.get_by_test_id(f"{item}-confirm").click()
    expect(page.get_by_test_id(dialog)).to_have_count(0)


@pytest.fixture
def repo_server(make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer) -> HarnessServer:
    server = make_harness(openai_args(llm.base_url))
    make_repo(server.workdir)  # the host's folder: the page's sessions work there
    return server


def test_new_session_in_a_worktree_named_from_the_first_prompt(
    contexts: Contexts, repo_server: HarnessServer, llm: ScriptedLlmServer
) -> None:
    repo = repo_server.workdir
    (repo / "b.txt").write_text("changed in the checkout\n")
    page = contexts.warm_page(repo_server.url)
    new_session(page)
    panel = page.get_by_test_id("worktree-panel")
    expect(panel).to_be_visible()
    option = panel.get_by_test_id("worktree-option")
    expect(option).not_to_be_checked()
    option.check()
    expect(panel.get_by_test_id("worktree-base")).to_have_value("main")
    page.get_by_test_id("composer-input").fill("Fix the login bug, please")
    expect(panel.get_by_test_id("worktree-branch")).to_have_value("fix-the-login-bug-please")
    llm.enqueue(Reply(text="On it."))
    page.get_by_test_id("composer-input").press("Enter")
    dialog = page.get_by_test_id("worktree-carry-dialog")
    expect(dialog).to_contain_text("1 uncommitted change")
    dialog.get_by_test_id("worktree-carry").click()
    turn_ends(page)
    wait_idle(page)
    sid = active(page)
    row = summary(page, sid)
    tree = Path(row["cwd"])
    assert row["worktree"]["branch"] == "fix-the-login-bug-please" and worktree_paths(repo) == [str(tree)]
    assert (tree / "b.txt").read_text() == "changed in the checkout\n", "the change came along"
    expect(page.get_by_test_id("worktree-branch-label")).to_have_text("fix-the-login-bug-please")
    expect(page.get_by_test_id("worktree-state")).to_have_text("•")  # uncommitted: the carried change
    mark = session_item(page, sid).get_by_test_id("session-worktree")
    expect(mark).to_have_attribute("data-branch", "fix-the-login-bug-please")

    page.get_by_test_id("open-settings").click()  # Settings → Undo: the worktree's disk use
    space = page.get_by_test_id("settings-dialog").get_by_test_id("settings-ns-undo")
    expect(space.get_by_test_id("undo-worktrees-total")).to_contain_text(
        re.compile(r"^Worktrees: [\d.]+ [KMG]B in 1 worktree$")
    )
    expect(space.get_by_test_id("undo-worktree-list")).to_contain_text(f"{tree} (fix-the-login-bug-please)")
    page.keyboard.press("Escape")
    subprocess.run(["git", "-C", str(repo), "branch", "side"], check=True)
    new_session(page)  # the choice is remembered for this folder
    expect(page.get_by_test_id("worktree-option")).to_be_checked()
    start = page.get_by_test_id("worktree-start")
    expect(start.locator("option")).to_have_text(
        [
            "on a new branch",
            f"in the worktree {tree} (fix-the-login-bug-please)",
            "on the existing branch side",
        ]
    )  # a branch checked out somewhere is offered as its worktree only
    start.select_option(label=f"in the worktree {tree} (fix-the-login-bug-please)")
    expect(page.get_by_test_id("worktree-branch")).to_be_hidden()
    llm.enqueue(Reply(text="Here too."))
    send(page, "Look at it as well")
    turn_ends(page)
    second = active(page)
    assert second != sid and summary(page, second)["cwd"] == str(tree), "started in the existing worktree"
    assert branches(repo) == ["fix-the-login-bug-please", "main", "side"]


def test_the_hand_off_menu_applies_discards_moves_merges_and_removes(
    contexts: Contexts, repo_server: HarnessServer, llm: ScriptedLlmServer
) -> None:
    repo = repo_server.workdir
    page = contexts.warm_page(repo_server.url)
    new_session(page)
    page.get_by_test_id("worktree-option").check()
    llm.enqueue(
        Reply(tool_calls=[tool_call("w1", "write_file", path="a.txt", content="by the agent\n")]),
        Reply(text="Done."),
    )
    send(page, "Rewrite a")
    allow(page, "write_file")
    turn_ends(page)
    wait_idle(page)
    sid = active(page)
    tree = Path(summary(page, sid)["cwd"])
    assert (tree / "a.txt").read_text() == "by the agent\n" and (
        repo / "a.txt"
    ).read_text() != "by the agent\n"
    expect(page.get_by_test_id("worktree-branch-label")).to_have_text("rewrite-a")

    menu(page, "worktree-apply", "worktree-apply-dialog")
    expect(page.get_by_test_id("toasts")).to_contain_text("Applied: 1 file changed in your checkout.")
    assert (repo / "a.txt").read_text() == "by the agent\n"

    page.get_by_test_id("worktree-menu").click()
    expect(page.get_by_test_id("worktree-merge")).to_have_text("Merge into main")
    page.get_by_test_id("worktree-discard").click()
    expect(page.get_by_test_id("worktree-discard-dialog")).to_contain_text("rewrite-a")
    page.get_by_test_id("worktree-discard-confirm").click()
    expect(page.get_by_test_id("toasts")).to_contain_text("Discarded; the session continues")
    expect(page.get_by_test_id("worktree-branch-label")).to_have_text("Worktree")  # a local session now
    assert not tree.exists() and "rewrite-a" not in branches(repo) and summary(page, sid)["cwd"] == str(repo)
    expect(session_item(page, sid).get_by_test_id("session-worktree")).to_have_count(0)

    menu(page, "worktree-move", "worktree-move-dialog")  # the checkout's change moves with it
    expect(page.get_by_test_id("toasts")).to_contain_text("Moved to ")
    expect(page.get_by_test_id("worktree-state")).to_have_text("•")
    moved = summary(page, sid)
    assert moved["worktree"] is not None and Path(moved["cwd"]) != repo
    assert (Path(moved["cwd"]) / "a.txt").read_text() == "by the agent\n"
    assert (
        subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True
        ).stdout
        == ""
    )

    # Merge refuses while the worktree holds uncommitted changes and names them; committed, the
    # branch's commit joins main in the checkout; then the worktree goes and its branch stays
    branch = moved["worktree"]["branch"]
    menu(page, "worktree-merge", "worktree-merge-dialog")
    expect(page.get_by_test_id("toasts")).to_contain_text("The worktree has uncommitted changes (a.txt)")
    commit_all(Path(moved["cwd"]), "the agent's rewrite")
    menu(page, "worktree-merge", "worktree-merge-dialog")
    expect(page.get_by_test_id("toasts")).to_contain_text(f"Merged {branch} into main.")
    assert git(repo, "log", "-1", "--format=%s", "main") == "the agent's rewrite"
    assert (repo / "a.txt").read_text() == "by the agent\n" and git(repo, "status", "--porcelain") == ""
    menu(page, "worktree-remove", "worktree-remove-dialog")
    expect(page.get_by_test_id("toasts")).to_contain_text("The worktree is removed; the session continues")
    assert not Path(moved["cwd"]).exists() and branch in branches(repo)
    assert summary(page, sid)["cwd"] == str(repo) and worktree_paths(repo) == []
    expect(page.get_by_test_id("worktree-branch-label")).to_have_text("Worktree")


FOREIGN = ("修复登录", "work", "main")
"""What the person wrote (the prompt), the folder's name and the branch: theirs, not ours."""


def test_the_worktree_views_in_chinese_show_no_english(
    contexts: Contexts, repo_server: HarnessServer, llm: ScriptedLlmServer
) -> None:
    """New session's worktree offer, the carry question, the header's menu and its dialogs in a
    zh-CN page: every word from the catalogue (branch names and paths are the person's)."""
    repo = repo_server.workdir
    (repo / "b.txt").write_text("changed in the checkout\n")
    page = contexts.new_page(repo_server.url, locale="zh-CN")
    new_session(page)
    panel = page.get_by_test_id("worktree-panel")
    panel.get_by_test_id("worktree-option").check()
    page.locator(".worktree-panel details").evaluate_all("(els) => els.forEach((d) => (d.open = true))")
    page.get_by_test_id("composer-input").fill("修复登录")
    assert english_on_screen(page, FOREIGN) == []
    llm.enqueue(Reply(text="好的。"))
    page.get_by_test_id("composer-input").press("Enter")
    dialog = page.get_by_test_id("worktree-carry-dialog")
    expect(dialog).to_be_visible()
    assert english_on_screen(page, FOREIGN) == []
    dialog.get_by_test_id("worktree-carry").click()
    turn_ends(page)
    wait_idle(page)
    theirs = (*FOREIGN, summary(page, active(page))["worktree"]["branch"])  # the host named it
    page.get_by_test_id("worktree-menu").click()
    expect(page.get_by_test_id("worktree-apply")).to_be_visible()
    assert english_on_screen(page, theirs) == []
    page.get_by_test_id("worktree-discard").click()
    expect(page.get_by_test_id("worktree-discard-dialog")).to_be_visible()
    assert english_on_screen(page, theirs) == []
