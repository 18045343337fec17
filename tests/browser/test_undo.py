"""Diffs, undo, the rejection note and export names as a person sees them (issue 18 items 1, 2, 5
and 9), with screenshots at 800 and 1600 px in the light and dark themes in tests/screenshots/
(`undo-<state>-<width>-<theme>.png`, for a person to look at; each state is asserted first)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser import shots
from tests.browser.support import (
    HarnessServer,
    fresh_session,
    send,
    tool_call,
    tool_messages,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


CONTRAST = """(sel) => {
  // WCAG contrast of the first `sel` element's text against what is painted under it
  const parse = (c) => {
    const n = c.match(/[\\d.]+/g).map(Number);
    const srgb = c.startsWith("color(");
    const [r, g, b] = srgb ? n.slice(0, 3).map((v) => v * 255) : n.slice(0, 3);
    return [r, g, b, n.length > 3 ? n[3] : 1];
  };
  const el = document.querySelector(sel);
  const layers = [];
  for (let node = el; node; node = node.parentElement) {
    const bg = parse(getComputedStyle(node).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  let under = [255, 255, 255];
  for (const [r, g, b, a] of layers.reverse()) {
    under = [r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a)];
  }
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const [a, b] = [lum(parse(getComputedStyle(el).color)), lum(under)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def shoot_all(page: Page, state: str, readable: tuple[str, ...] = ()) -> None:
    """Screenshots of `state` at each width and theme; `readable` selectors must keep a text
    contrast of at least 4.5:1 (WCAG AA) in both themes."""

    def contrast(theme: str) -> None:
        for selector in readable:
            ratio = page.evaluate(CONTRAST, selector)
            assert ratio >= 4.5, f"{selector} in {theme}: contrast {ratio:.2f}"

    shots.shoot_all(page, state, prefix="undo", check=contrast)


def write(call_id: str, path: str, content: str) -> tuple[str, str, str]:
    return tool_call(call_id, "write_file", path=path, content=content)


def allow(page: Page, which: str = "approval-allow-once") -> None:
    card = page.get_by_test_id("approval-card")
    expect(card).to_be_visible()
    card.get_by_test_id(which).click()
    expect(card).to_have_count(0)


def test_an_overwrite_shows_a_diff_on_the_approval_and_the_tool_card(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    old = [f"line {n}" for n in range(1, 61)]
    (harness.workdir / "config.txt").write_text("\n".join(old) + "\n")
    new = [f"LINE {n}" if 20 <= n < 40 else f"line {n}" for n in range(1, 61)]
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("w1", "write_file", path="config.txt", content="\n".join(new) + "\n")]),
        Reply(text="Upper-cased lines 20 to 39."),
    )
    send(page, "Upper-case lines 20 to 39 of config.txt")
    card = page.get_by_test_id("approval-card")
    diff = card.get_by_test_id("approval-diff")
    expect(diff.get_by_test_id("diff-file")).to_have_text("config.txt")
    expect(diff.get_by_test_id("diff-stat")).to_have_text("+20\u221220")  # a minus sign
    expect(diff.locator(".diff-del .diff-text").first).to_have_text("line 20")
    expect(diff.locator(".diff-add .diff-text").first).to_have_text("LINE 20")
    expect(diff.get_by_test_id("diff-new")).to_have_count(0)
    expect(card.get_by_test_id("approval-content")).to_have_count(0)  # not the whole file as added
    toggle = diff.get_by_test_id("diff-toggle")  # 46 rows: folded
    expect(toggle).to_have_text("Show all 47 lines")
    shoot_all(
        page, "approval-diff", (".approval-card .diff-del .diff-text", ".approval-card .diff-add .diff-text")
    )
    toggle.click()
    expect(toggle).to_have_text("Show less")
    allow(page)
    turn_ends(page)
    tool = page.get_by_test_id("tool-card").last
    expect(tool.get_by_test_id("tool-diff").locator(".diff-add")).to_have_count(20)
    expect(tool.get_by_test_id("tool-result")).to_contain_text("Overwrote config.txt")
    shoot_all(page, "tool-diff", (".tool-card .diff-add .diff-text", ".tool-card .diff-hunk .diff-text"))
    page.reload()  # the diff comes back with the history
    expect(
        page.get_by_test_id("tool-card").last.get_by_test_id("tool-diff").locator(".diff-del")
    ).to_have_count(20)


def test_revert_a_turn_then_fork_with_the_files_restored(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    work = harness.workdir
    (work / "app.py").write_text("print('v0')\n")
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("a", "write_file", path="app.py", content="print('v1')\n")]),
        Reply(text="v1"),
    )
    send(page, "Make it v1")
    allow(page, "approval-allow-always")  # file tools in this folder stop asking
    turn_ends(page, 1)
    calls = [
        tool_call("b", "write_file", path="app.py", content="print('v2')\n"),
        tool_call("c", "write_file", path="NOTES.md", content="# notes\n"),
    ]
    llm.enqueue(Reply(tool_calls=calls), Reply(text="v2 and notes"))
    send(page, "Make it v2 and add notes")
    ends = turn_ends(page, 2)
    wait_idle(page)
    line = ends.nth(1).get_by_test_id("turn-files")
    expect(line).to_contain_text("Changed 2 files:")
    expect(line).to_contain_text("app.py, NOTES.md")
    shoot_all(page, "turn-files", (".turn-files .files-list",))

    line.get_by_test_id("revert-turn").click()
    dialog = page.get_by_test_id("revert-dialog")
    expect(dialog.get_by_test_id("revert-files").get_by_test_id("diff-file")).to_have_text(
        ["app.py", "NOTES.md"]
    )
    expect(dialog.get_by_test_id("revert-dialog-cancel")).to_be_focused()  # destructive: Cancel first
    shoot_all(page, "revert-dialog")
    dialog.get_by_test_id("revert-confirm").click()
    restored = page.get_by_test_id("restored-row")
    expect(restored).to_contain_text("Reverted this turn's file changes")
    expect(restored.locator("li")).to_have_text(
        ["NOTES.md — removed (it did not exist before)", "app.py — restored"]
    )
    expect(ends.nth(1).get_by_test_id("turn-files")).to_contain_text("Reverted: 2 files put back")
    expect(ends.nth(1).get_by_test_id("revert-turn")).to_have_count(0)
    assert (work / "app.py").read_text() == "print('v1')\n" and not (work / "NOTES.md").exists()
    shoot_all(page, "reverted", (".restored-row li",))

    # a file changed outside the app since: refused, with the file named, nothing written
    (work / "app.py").write_text("print('mine')\n")
    ends.nth(0).get_by_test_id("revert-turn").click()
    page.get_by_test_id("revert-confirm").click()
    toast = page.get_by_test_id("toast").last
    expect(toast).to_contain_text("Nothing was restored: app.py was changed outside HarnessDesk since")
    shoot_all(page, "revert-refused")
    assert (work / "app.py").read_text() == "print('mine')\n"

    # a later turn changes it again; forking from the first turn offers to restore it
    (work / "app.py").write_text("print('v1')\n")
    llm.enqueue(
        Reply(tool_calls=[tool_call("d", "write_file", path="app.py", content="print('v3')\n")]),
        Reply(text="v3"),
    )
    send(page, "Make it v3")
    turn_ends(page, 3)
    wait_idle(page)
    parent = page.evaluate("() => window.harnessdesk.app.manager.activeId")
    page.get_by_test_id("turn-end").first.get_by_test_id("fork-turn").click()
    fork = page.get_by_test_id("fork-dialog")
    expect(fork.get_by_test_id("fork-files").locator("li")).to_have_text(["app.py — restored"])
    expect(fork.get_by_test_id("fork-keep-files")).to_be_focused()  # keeping the files is the default
    shoot_all(page, "fork-dialog")
    fork.get_by_test_id("fork-restore-files").click()
    page.wait_for_function("(p) => window.harnessdesk.app.manager.activeId !== p", arg=parent)
    expect(page.get_by_test_id("restored-row")).to_contain_text("Files restored for a fork at this point")
    assert (work / "app.py").read_text() == "print('v1')\n"
    page.reload()  # the record is in the history
    expect(page.get_by_test_id("restored-row")).to_contain_text("app.py — restored")


def test_the_revert_dialog_lists_what_shell_commands_changed_with_diffs_and_puts_it_back(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    work = harness.workdir
    (work / "notes.txt").write_text("colour\n")
    (work / "old.txt").write_text("keep me\n")
    (work / "fmt.py").write_text(
        "import pathlib\np = pathlib.Path('app.py')\np.write_text(p.read_text().replace('  ', '    '))\n"
    )
    (work / "app.py").write_text("if x:\n  y()\n")
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("s1", "bash", command="sed -i 's/colour/color/' notes.txt")]),
        Reply(tool_calls=[tool_call("s2", "bash", command="rm old.txt")]),
        Reply(tool_calls=[tool_call("s3", "bash", command="python3 fmt.py")]),
        Reply(text="Tidied."),
    )
    send(page, "Tidy up with sed, rm and the formatter")
    for call_id in ("s1", "s2", "s3"):  # the next card can appear the moment one is answered
        expect(page.locator(f'[data-testid="tool-card"][data-call-id="{call_id}"]')).to_be_visible()
        page.get_by_test_id("approval-card").get_by_test_id("approval-allow-once").click()
        expect(page.locator(f'[data-testid="tool-card"][data-call-id="{call_id}"]')).to_contain_text("done")
    ends = turn_ends(page, 1)
    wait_idle(page)
    line = ends.nth(0).get_by_test_id("turn-files")
    expect(line).to_contain_text("Changed 3 files:")
    line.get_by_test_id("revert-turn").click()
    dialog = page.get_by_test_id("revert-dialog")
    files = dialog.get_by_test_id("revert-files")
    expect(files.get_by_test_id("diff-file")).to_have_text(["notes.txt", "old.txt", "app.py"])
    notes = files.locator("[data-path='notes.txt']")
    expect(notes.locator(".diff-del .diff-text")).to_have_text(["colour"])
    expect(notes.locator(".diff-add .diff-text")).to_have_text(["color"])
    expect(files.locator("[data-path='old.txt'] .diff-del .diff-text")).to_have_text(["keep me"])
    expect(files.locator("[data-path='app.py'] .diff-add .diff-text")).to_have_text(["    y()"])
    shoot_all(page, "revert-dialog-shell", (".revert-files .diff-del .diff-text",))
    dialog.get_by_test_id("revert-confirm").click()
    expect(page.get_by_test_id("restored-row").locator("li")).to_have_count(3)
    assert (work / "notes.txt").read_text() == "colour\n" and (work / "old.txt").read_text() == "keep me\n"
    assert (work / "app.py").read_text() == "if x:\n  y()\n"


def test_settings_shows_the_space_undo_uses_and_frees_it(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    (harness.workdir / "data.txt").write_text("x" * 200_000)
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("s1", "bash", command="echo short > data.txt")]), Reply(text="ok")
    )
    send(page, "Shorten data.txt")
    allow(page)
    turn_ends(page, 1)
    wait_idle(page)
    page.get_by_test_id("open-settings").click()
    dialog = page.get_by_test_id("settings-dialog")
    space = dialog.get_by_test_id("settings-ns-undo").get_by_test_id("undo-space")
    expect(space.get_by_test_id("undo-space-total")).to_contain_text("of 5.0 GB in 1 folder")
    folders = space.get_by_test_id("undo-space-folders").locator(
        "li"
    )  # the module's host: earlier tests' turns too
    expect(folders).to_contain_text([re.compile(r"^.*/work — [\d.]+ [KMG]B, [1-9]\d* turns? revertable$")])
    space.scroll_into_view_if_needed()
    shoot_all(page, "settings-space", ("[data-testid=undo-space-total]",))
    space.get_by_test_id("undo-free-space").click()
    page.get_by_test_id("undo-free-confirm").click()
    expect(dialog.get_by_test_id("settings-message")).to_contain_text("Freed ")
    expect(space.get_by_test_id("undo-space-total")).to_have_text("Space used: 0 KB of 5.0 GB")
    expect(space.get_by_test_id("undo-free-space")).to_be_disabled()


def test_reject_with_a_note_for_the_agent(page: Page, harness: HarnessServer, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("r1", "write_file", path="test_app.py", content="assert True\n")]),
        Reply(text="Understood, I will leave the tests alone."),
    )
    send(page, "Add a test")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-content")).to_have_text("assert True")  # a new file: its lines
    pending = page.get_by_test_id("tool-card").last
    expect(pending.get_by_test_id("tool-diff").get_by_test_id("diff-new")).to_have_text("new file")
    card.get_by_test_id("approval-note-toggle").click()
    note = "Don't add tests yet; fix the bug first."
    card.get_by_test_id("approval-note").fill(note)
    expect(card.get_by_test_id("approval-reject")).to_have_text("Reject with noteN")  # N: its hotkey
    shoot_all(page, "reject-note", ("[data-testid=approval-note]",))
    card.get_by_test_id("approval-reject").click()
    turn_ends(page)
    rejected = page.get_by_test_id("tool-card").last
    expect(rejected.get_by_test_id("tool-reject-note")).to_have_text(f"Your note to the agent: {note}")
    shoot_all(page, "rejected-with-note", ("[data-testid=tool-reject-note]",))
    assert tool_messages(llm.requests[-1])[0]["content"].endswith(f"Their note: {note}")
    assert not (harness.workdir / "test_app.py").exists()


def test_export_is_named_after_the_title_and_date(page: Page, llm: ScriptedLlmServer) -> None:
    sid = fresh_session(page)
    llm.enqueue(Reply(text="Looking into it."))
    send(page, "Fix the login bug: users/admins")
    turn_ends(page)
    wait_idle(page)
    expect(page.get_by_test_id("export-session")).to_be_visible()
    shoot_all(page, "export")
    with page.expect_download() as download:
        page.get_by_test_id("export-session").click()
    updated = page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id).updatedAt", sid)
    day = datetime.fromtimestamp(updated / 1000).strftime("%Y-%m-%d")
    assert download.value.suggested_filename == f"Fix-the-login-bug-users-admins-{day}.zip"


def test_a_step_without_snapshots_is_said_on_its_turn_and_a_file_replaced_by_a_link_reverts(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    """Issue 40, item 6: a real git holding the snapshot repository's lock keeps a step from
    being recorded, and the turn says so (not a silent "no files"); once it is killed the lock
    it leaves is cleared, and a file the next turn replaced by a symlink is in the Revert dialog
    with its earlier content and comes back as a file."""
    work = harness.workdir
    (work / "notes.txt").write_text("colour\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("not the agent's\n")
    fresh_session(page)

    def shell_turn(call_id: str, command: str, count: int) -> Locator:
        llm.enqueue(Reply(tool_calls=[tool_call(call_id, "bash", command=command)]), Reply(text="Done."))
        send(page, f"run {call_id}")
        allow(page)
        ends = turn_ends(page, count)
        wait_idle(page)
        return ends.nth(count - 1)

    shell_turn("s1", "echo one > one.txt", 1)  # the folder's snapshot repository now exists
    key = hashlib.sha256(os.fsencode(os.path.realpath(work))).hexdigest()[:24]
    git_dir = harness.data_dir / "snapshots" / key / "git"
    env = {
        "PATH": os.environ["PATH"],
        "GIT_DIR": str(git_dir),
        "GIT_WORK_TREE": str(work),
        "HOME": str(git_dir),
    }
    git = subprocess.Popen(["git", "update-index", "-z", "--add", "--stdin"], stdin=subprocess.PIPE, env=env)
    try:
        for _ in range(500):  # update-index takes the lock first, then waits for paths
            if (git_dir / "index.lock").exists():
                break
            time.sleep(0.02)
        assert (git_dir / "index.lock").exists()
        blind = shell_turn("s2", "echo two > two.txt", 2)
        note = blind.get_by_test_id("turn-unrecorded")
        expect(note).to_contain_text(f"Not recorded: another git (pid {git.pid}) is still writing")
        expect(note).to_contain_text("cannot be reverted")
        expect(blind.get_by_test_id("revert-turn")).to_have_count(0)
        shoot_all(page, "turn-unrecorded", (".turn-unrecorded span",))
    finally:
        git.kill()  # killed mid-write: its lock stays behind for the next step to clear
        git.wait(10)

    linked = shell_turn("s3", f"ln -sf {outside} notes.txt", 3)
    expect(linked.get_by_test_id("turn-unrecorded")).to_have_count(0)
    line = linked.get_by_test_id("turn-files")
    expect(line).to_contain_text("Changed 1 file:")
    line.get_by_test_id("revert-turn").click()
    dialog = page.get_by_test_id("revert-dialog")
    files = dialog.get_by_test_id("revert-files")
    expect(files.get_by_test_id("diff-replaced")).to_have_text("replaced by a link")
    expect(files.locator(".diff-del .diff-text")).to_have_text(["colour"])
    expect(files.get_by_test_id("diff-note")).to_have_text(
        f"The file was replaced by a symlink to {outside}; its earlier content is shown,"
        " and Revert puts it back."
    )
    shoot_all(page, "revert-dialog-link", (".revert-files .diff-note",))
    dialog.get_by_test_id("revert-confirm").click()
    expect(page.get_by_test_id("restored-row").last).to_contain_text("notes.txt — restored")
    assert not (work / "notes.txt").is_symlink() and (work / "notes.txt").read_text() == "colour\n"
    assert outside.read_text() == "not the agent's\n"
