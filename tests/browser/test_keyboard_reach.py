"""Every action reachable from the keyboard (issue 46, deliverable 3): the main screens walked
with Tab only — the sidebar and its rows, the header, the composer, an approval card, a finished
turn with its tool card, Settings, the shortcuts sheet, the shield's dialog, the find bar, search,
the terminal and files panes — each interactive element reached by Tab (or inside a
roving-tabindex group Tab reached), shown when focused, with a focus ring and a name
(tests/browser/keyboard_audit.py). Dialogs and menus open with Enter and close with Escape, the
focus going back to what opened them."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from contract.methods import WORKSPACE_CREATE
from tests.browser.keyboard_audit import LISTENERS, audit
from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    new_context,
    open_app,
    rpc,
    send,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.git_repos import make_repo
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

FOCUSED = "() => document.activeElement?.dataset?.testid ?? document.activeElement?.id ?? null"

HEADING = ("session-heading", "jump-latest")
"""The session's title in the header: its double-click is the mouse's shortcut for Rename, which
the keyboard has as F2 on the session's row in the sidebar (and the row's pencil button). Latest
shows only while the view is away from the newest message: Tab through the log brings the view
there, so the walk may pass where it stood hidden (Ctrl+End does what it does)."""

ANSWER = "Wrote it. Then:\n\n1. run the tests\n2. commit\n\n```python\nprint('hi')\n```"


def audited_page(contexts: Contexts, harness: HarnessServer) -> Page:
    """A page of its own whose pointer listeners are recorded from its first script on."""
    context = new_context(contexts.browser)
    contexts.contexts.append(context)
    context.add_init_script(LISTENERS)
    page = context.new_page()
    page.on("pageerror", lambda exc: contexts.page_errors.append(str(exc)))
    return open_app(page, harness.url)


def press_on(page: Page, testid: str, key: str = "Enter") -> None:
    """Focus `testid` with the keyboard's own means (focus(), as Tab would land) and press `key`."""
    page.get_by_test_id(testid).first.focus()
    page.keyboard.press(key)


def test_every_action_on_the_main_screens_is_reached_by_tab_and_named(
    contexts: Contexts, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    page = audited_page(contexts, harness)
    found: dict[str, list[str]] = {}
    fresh_session(page)
    found["blank session"] = audit(page, allowed=HEADING).problems
    details = page.get_by_test_id("preset-details").first  # a preset's details, from the blank session
    details.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("preset-viewer")).to_be_visible()
    found["preset details"] = audit(page, allowed=HEADING).problems
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("preset-viewer")).to_be_hidden()
    expect(details).to_be_focused()

    llm.enqueue(
        Reply(tool_calls=[tool_call("r1", "write_file", path="reach.txt", content="reached\n")]),
        Reply(text=ANSWER),
    )
    send(page, "Write reach.txt")
    card = page.get_by_test_id("approval-card")
    expect(card).to_be_visible()
    page.wait_for_function(f"() => ({FOCUSED})() === 'approval-card'")
    found["approval card"] = audit(page, allowed=HEADING).problems
    box = page.get_by_test_id("composer-input")
    box.fill("then the docs")  # at once: a slow "n" typed in a quiet box would answer the card
    box.press("Enter")  # a turn runs: the message waits in the queue
    expect(page.get_by_test_id("queue-item")).to_have_count(1)
    found["queue"] = audit(page, allowed=HEADING).problems
    press_on(page, "queue-remove")
    expect(page.get_by_test_id("queue-item")).to_have_count(0)
    card.focus()
    expect(card).to_have_attribute("data-armed", "true")
    page.keyboard.press("y")
    turn_ends(page, 1)
    expect(page.get_by_test_id("assistant-text").last).to_contain_text("commit")
    main = audit(page, allowed=HEADING)
    found["finished turn"] = main.problems
    assert main.count > 20, main  # the walk saw the page (sidebar, header, turn, composer)
    assert any("composer-input" in r for r in main.reached), main.reached

    # a tool card opened by Enter on its summary: what it holds
    details = page.get_by_test_id("tool-card").first.locator("details")
    details.evaluate("(d) => { d.open = false; }")
    page.get_by_test_id("tool-toggle").first.focus()
    page.keyboard.press("Enter")
    expect(details).to_have_attribute("open", "")
    found["tool card open"] = audit(page, allowed=HEADING).problems

    # a question card: its options and its field by Tab, answered by Space and Enter
    questions = [
        {"id": "lang", "question": "Which language?", "options": [{"label": "Python"}, {"label": "Rust"}]},
        {"id": "name", "question": "What should it be called?"},
    ]
    llm.enqueue(Reply(tool_calls=[tool_call("q1", "ask_user", questions=questions)]), Reply(text="Noted."))
    send(page, "Ask me")
    question = page.get_by_test_id("question-card")
    expect(question).to_be_visible()
    found["question card"] = audit(page, allowed=HEADING).problems
    question.locator('[data-testid="question-option"][data-label="Rust"] input').focus()
    page.keyboard.press("Space")
    question.get_by_test_id("question-custom").last.focus()
    page.keyboard.type("moonbeam")
    question.get_by_test_id("question-submit").focus()
    page.keyboard.press("Enter")
    turn_ends(page, 2)
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Noted.")

    # Settings: Enter opens it, Tab walks it, Escape closes it, the focus comes back
    press_on(page, "open-settings")
    expect(page.get_by_test_id("settings-dialog")).to_be_visible()
    expect(page.get_by_test_id("settings-dialog").get_by_test_id("catalogue-entry").first).to_be_visible()
    found["settings"] = audit(page, limit=600, allowed=HEADING).problems
    for card_id in ("provider-card-local", "provider-card-deepseek"):  # each card opened by Enter
        page.get_by_test_id(card_id).locator("summary").focus()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id(card_id).get_by_test_id("provider-save")).to_be_visible()
    found["settings, cards open"] = audit(page, limit=600, allowed=HEADING).problems
    press_on(page, "library-add-file")  # a GGUF file from this computer: the page's file browser
    picker = page.locator("dialog[open]").last
    expect(picker).not_to_have_attribute("data-testid", "settings-dialog")
    found["file browser"] = audit(page, allowed=HEADING).problems
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("library-add-file")).to_be_focused()
    press_on(page, "settings-add-endpoint")  # a new endpoint's card, its fields
    found["settings, new endpoint"] = audit(page, limit=600, allowed=HEADING).problems
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("settings-dialog")).to_be_hidden()
    assert page.evaluate(FOCUSED) == "open-settings"

    # the shortcuts sheet: `?` from the conversation
    page.get_by_test_id("conversation").focus()
    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcuts-dialog")).to_be_visible()
    found["shortcuts sheet"] = audit(page, allowed=HEADING).problems
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("shortcuts-dialog")).to_be_hidden()

    # the shield's dialog
    press_on(page, "permissions-toggle")
    expect(page.get_by_test_id("permissions-dialog")).to_be_visible()
    found["permissions"] = audit(page, allowed=HEADING).problems
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("permissions-dialog")).to_be_hidden()
    assert page.evaluate(FOCUSED) == "permissions-toggle"

    # the find bar (Ctrl+F) with a hit, and search (Ctrl+K) with results
    page.get_by_test_id("conversation").focus()
    page.keyboard.press("Control+f")
    expect(page.get_by_test_id("find-input")).to_be_focused()
    page.keyboard.type("commit")
    expect(page.get_by_test_id("find-count")).not_to_have_text("")
    found["find bar"] = audit(page, allowed=HEADING).problems
    page.keyboard.press("Escape")
    page.keyboard.press("Control+k")
    expect(page.get_by_test_id("search-input")).to_be_focused()
    page.keyboard.type("reach")
    expect(page.get_by_test_id("search-more").or_(page.locator(".result").first)).to_be_visible()
    found["search"] = audit(page, allowed=HEADING).problems
    page.keyboard.press("Escape")

    # the files pane: one Tab stop for the tree, the arrows inside it, a folder opened by → keeps
    # the focus, Enter on a file opens the viewer
    folder = harness.workdir / "keys-dir"
    folder.mkdir(exist_ok=True)
    (folder / "inside.txt").write_text("inside\n")
    press_on(page, "files-toggle")
    entry = lambda path: page.locator(f"[data-testid=files-entry][data-path='{path}']")  # noqa: E731
    expect(entry("keys-dir")).to_be_visible()
    assert (
        page.evaluate(
            "() => [...document.querySelectorAll('[role=treeitem]')].filter((r) => r.tabIndex === 0).length"
        )
        == 1
    )
    page.get_by_test_id("files-entry").first.focus()
    page.keyboard.press("End")
    page.keyboard.press("Home")
    expect(page.get_by_test_id("files-entry").first).to_be_focused()
    entry("keys-dir").focus()
    page.keyboard.press("ArrowRight")  # opens the folder: the tree is drawn again, the focus stays
    expect(entry("keys-dir/inside.txt")).to_be_visible()
    expect(entry("keys-dir")).to_be_focused()
    page.keyboard.press("ArrowRight")  # into it
    expect(entry("keys-dir/inside.txt")).to_be_focused()
    page.keyboard.press("ArrowLeft")  # back to its folder
    expect(entry("keys-dir")).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("file-viewer")).to_be_visible()
    found["file viewer"] = audit(page, allowed=HEADING).problems
    press_on(page, "file-viewer-back")
    expect(entry("keys-dir")).to_be_visible()
    entry("keys-dir").focus()
    page.keyboard.press("ArrowLeft")  # closes it
    expect(entry("keys-dir/inside.txt")).to_have_count(0)
    expect(entry("keys-dir")).to_be_focused()
    press_on(page, "terminal-toggle")
    expect(page.get_by_test_id("terminal-tab").first).to_be_visible()
    found["files and terminal"] = audit(page, allowed=HEADING).problems
    press_on(page, "terminal-new")  # a second tab: one Tab stop for both, the arrows between them
    tabs = page.get_by_test_id("terminal-tab")
    expect(tabs).to_have_count(2)
    assert (
        page.evaluate(
            "() => [...document.querySelectorAll('[role=tab]')].filter((b) => b.tabIndex === 0).length"
        )
        == 1
    )
    tabs.first.focus()
    page.keyboard.press("ArrowRight")
    expect(tabs.last).to_be_focused()
    page.keyboard.press("Home")
    expect(tabs.first).to_be_focused()
    page.keyboard.press("ArrowLeft")  # round to the last
    expect(tabs.last).to_be_focused()
    page.keyboard.press("Enter")
    expect(tabs.last).to_have_attribute("aria-selected", "true")
    shell = page.locator(".term-view:not([hidden]) .xterm-helper-textarea")
    shell.focus()
    page.keyboard.press("Tab")  # the shell's (completion): the focus stays
    expect(shell).to_be_focused()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")  # Esc, then Tab: out of the terminal
    expect(shell).not_to_be_focused()
    assert page.evaluate(
        "() => !document.querySelector('#terminal-pane .term-view')?.contains(document.activeElement)"
    )
    press_on(page, "terminal-hide")
    press_on(page, "files-hide")

    wrong = {screen: problems for screen, problems in found.items() if problems}
    assert not wrong, "\n".join(f"{screen}:\n  " + "\n  ".join(p) for screen, p in wrong.items())


def test_a_git_folders_header_menu_changes_and_revert_by_keyboard(
    contexts: Contexts, harness: HarnessServer, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    page = audited_page(contexts, harness)
    repo = make_repo(tmp_path / "keys-repo")
    workspace = rpc(page, WORKSPACE_CREATE, {"path": str(repo)})["workspace"]
    page.evaluate("(wid) => window.harnessdesk.app.newSession(wid)", workspace["workspaceId"])
    expect(page.get_by_test_id("worktree-panel")).to_be_visible()
    found: dict[str, list[str]] = {"blank session in a repository": audit(page, allowed=HEADING).problems}
    llm.enqueue(
        Reply(tool_calls=[tool_call("g1", "write_file", path="a.txt", content="one\nTWO\nthree\n")]),
        Reply(text="Changed a.txt."),
    )
    send(page, "Change a.txt")
    page.get_by_test_id("approval-card").get_by_test_id("approval-allow-once").click()
    ends = turn_ends(page, 1)
    wait_idle(page)
    expect(page.get_by_test_id("git-status")).to_have_attribute("data-changed", "1")
    found["git session"] = audit(page, allowed=HEADING).problems

    # the branch menu: ↓ opens it on its first item, Escape closes it back to its button
    button = page.get_by_test_id("worktree-menu")
    expect(button).to_be_visible()
    button.focus()
    page.keyboard.press("ArrowDown")
    items = page.get_by_test_id("worktree-menu-items")
    expect(items).to_be_visible()
    expect(page.get_by_test_id("worktree-move")).to_be_focused()
    page.keyboard.press("ArrowUp")  # round to the last, which is the first while it is the only one
    page.keyboard.press("End")
    expect(page.get_by_test_id("worktree-move")).to_be_focused()
    page.keyboard.press("Escape")
    expect(items).to_be_hidden()
    expect(button).to_be_focused()
    page.keyboard.press("Enter")  # Enter opens it too, on its first item
    expect(page.get_by_test_id("worktree-move")).to_be_focused()
    page.keyboard.press("Tab")  # and Tab leaves it closed
    expect(items).to_be_hidden()
    assert page.evaluate(FOCUSED) != "worktree-move"

    # the Changes view
    press_on(page, "changes-toggle")
    expect(page.get_by_test_id("changes-panel")).to_be_visible()
    expect(page.get_by_test_id("changes-panel")).to_contain_text("a.txt")
    found["changes view"] = audit(page, allowed=HEADING).problems
    press_on(page, "changes-toggle")

    # Revert: its dialog by Enter, walked, Escape gives the focus back
    revert = ends.last.get_by_test_id("revert-turn")
    revert.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_test_id("revert-dialog")
    expect(dialog).to_be_visible()
    found["revert dialog"] = audit(page, allowed=HEADING).problems
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(revert).to_be_focused()

    wrong = {screen: problems for screen, problems in found.items() if problems}
    assert not wrong, "\n".join(f"{screen}:\n  " + "\n  ".join(p) for screen, p in wrong.items())


MOUSE_ONLY = """() => {
  const bar = document.createElement("div");
  bar.id = "mouse-only";
  bar.innerHTML = `<button type="button" data-testid="nameless"><svg aria-hidden="true"></svg></button>
    <span data-testid="clicky-span">Open</span>
    <span class="hover-only"><button type="button" data-testid="hover-only">Hidden</button></span>
    <button type="button" data-testid="ringless">Ringless</button>`;
  bar.querySelector("[data-testid=clicky-span]").addEventListener("click", () => {});
  bar.querySelector(".hover-only").style.opacity = "0"; // (the page's CSP refuses style attributes)
  bar.querySelector("[data-testid=ringless]").style.setProperty("outline", "none", "important");
  document.getElementById("composer").prepend(bar);
}"""


def test_the_audit_finds_what_only_a_mouse_could_use(contexts: Contexts, harness: HarnessServer) -> None:
    """The walk is no check that cannot fail: a nameless button, a span only a click opens, a
    button shown only on hover and one without a focus ring are each named."""
    page = audited_page(contexts, harness)
    fresh_session(page)
    assert audit(page, allowed=HEADING).problems == []
    page.evaluate(MOUSE_ONLY)
    problems = audit(page, allowed=HEADING).problems
    page.evaluate("() => document.getElementById('mouse-only').remove()")
    assert any(p.startswith("no accessible name: button[nameless]") for p in problems), problems
    assert any(p.startswith("not reached by Tab: span[clicky-span]") for p in problems), problems
    assert any(p.startswith("focused but not shown: button[hover-only]") for p in problems), problems
    assert any(p.startswith("no focus ring: button[ringless]") for p in problems), problems
    assert len(problems) == 4, problems
