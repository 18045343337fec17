"""Small UX fixes (issue 31, the uxfix round): where the focus lands after a revert in the
Changes view, the welcome's words about the permission mode and Import, and a queued message's
attached files surviving an edit. Screenshots at 800 and 1100 px: tests/screenshots/uxfix-*.png."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from contract.methods import HOST_DESCRIBE, SESSION_LIST, SETTINGS_MUTATE
from tests.browser.shots import SHOTS
from tests.browser.support import (
    VIEWPORT,
    Contexts,
    HarnessServer,
    allow,
    click_through_redraw,
    fresh_session,
    openai_args,
    rpc,
    send,
    snap,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

SEDS = "sed -i 's/colour/color/' notes.txt; echo z >> zeta.txt"
LINES = "".join(f"line {i}\n" for i in range(1, 41))


def shoot(page: Page, name: str, blur: bool = False) -> None:
    """`uxfix-<name>-<width>.png` at 800 and 1100 px (the focus ring stays unless `blur`)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if blur:
        page.evaluate("() => document.activeElement?.blur?.()")
    for width in (800, 1100):
        page.set_viewport_size({"width": width, "height": 760})
        snap(page, SHOTS / f"uxfix-{name}-{width}.png")
    page.set_viewport_size(VIEWPORT)


def focused(page: Page) -> dict[str, str | None]:
    """What has the focus: its test id, and its file's path and hunk's place in the Changes view."""
    return dict(
        page.evaluate(
            """() => { const el = document.activeElement;
                const file = el.closest("[data-testid=changes-file]");
                const hunk = el.closest("[data-testid=changes-hunk]");
                const hunks = file ? [...file.querySelectorAll("[data-testid=changes-hunk]")] : [];
                return {tag: el.tagName, testid: el.dataset.testid ?? null, path: file?.dataset.path ?? null,
                        hunk: hunk ? String(hunks.indexOf(hunk)) : null}; }"""
        )
    )


def confirm_hunk(page: Page) -> None:
    """Revert hunk's question, by keyboard: Cancel has the focus; Tab, then Enter reverts."""
    dialog = page.get_by_test_id("changes-revert-hunk-dialog")
    expect(dialog.get_by_test_id("changes-revert-hunk-dialog-cancel")).to_be_focused()
    page.keyboard.press("Tab")
    expect(dialog.get_by_test_id("changes-revert-hunk-confirm")).to_be_focused()
    page.keyboard.press("Enter")


def test_after_a_revert_the_focus_stays_in_the_changes_view(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    work = harness.workdir
    (work / "big.txt").write_text(LINES)
    (work / "notes.txt").write_text("colour\n")
    (work / "zeta.txt").write_text("zeta\n")
    fresh_session(page)
    edit = lambda cid, old, new: tool_call(cid, "edit_file", path="big.txt", old_string=old, new_string=new)  # noqa: E731
    llm.enqueue(
        Reply(tool_calls=[edit("f1", "line 2\n", "line two\n")]),
        Reply(tool_calls=[edit("f2", "line 20\n", "line twenty\n")]),
        Reply(tool_calls=[edit("f3", "line 38\n", "line thirty-eight\n")]),
        Reply(tool_calls=[tool_call("b1", "bash", command=SEDS)]),
        Reply(text="Three edits and two seds."),
    )
    send(page, "Edit big.txt in three places, then fix notes.txt and zeta.txt")
    for tool in ("edit_file", "edit_file", "edit_file", "bash"):
        allow(page, tool)
    turn_ends(page)
    wait_idle(page)
    page.get_by_test_id("changes-toggle").click()
    panel = page.get_by_test_id("changes-panel")
    files = panel.get_by_test_id("changes-file")
    expect(files.get_by_test_id("changes-file-name")).to_have_text(["big.txt", "notes.txt", "zeta.txt"])
    big = files.nth(0)
    expect(big.get_by_test_id("changes-hunk")).to_have_count(3)

    # the middle hunk, by keyboard: the focus goes to the hunk that took its place
    big.get_by_test_id("changes-hunk").nth(1).get_by_test_id("changes-revert-hunk").focus()
    page.keyboard.press("Enter")
    confirm_hunk(page)  # Revert hunk asks once, Cancel focused (issue 42, item 5)
    expect(big.get_by_test_id("changes-hunk")).to_have_count(2)
    expect(big.get_by_test_id("changes-hunk").nth(1).get_by_test_id("changes-revert-hunk")).to_be_focused()
    assert focused(page) == {"tag": "BUTTON", "testid": "changes-revert-hunk", "path": "big.txt", "hunk": "1"}
    assert "line 20\n" in (work / "big.txt").read_text()
    shoot(page, "changes-after-hunk")
    # the last hunk: the one before it now
    page.keyboard.press("Enter")
    confirm_hunk(page)  # Revert hunk asks once, Cancel focused (issue 42, item 5)
    expect(big.get_by_test_id("changes-hunk")).to_have_count(1)
    expect(big.get_by_test_id("changes-hunk").nth(0).get_by_test_id("changes-revert-hunk")).to_be_focused()
    # the file's only hunk: the file goes from the list, the next file's name has the focus
    page.keyboard.press("Enter")
    confirm_hunk(page)  # Revert hunk asks once, Cancel focused (issue 42, item 5)
    expect(files).to_have_count(2)
    expect(files.nth(0).get_by_test_id("changes-file-name")).to_have_text("notes.txt")
    expect(files.nth(0).get_by_test_id("changes-file-name")).to_be_focused()
    assert (work / "big.txt").read_text() == LINES

    # Revert file, by keyboard through its dialog (Cancel is focused first)
    page.keyboard.press("Tab")  # from the file's name to its Revert file button
    expect(files.nth(0).get_by_test_id("changes-revert-file")).to_be_focused()
    page.keyboard.press("Enter")
    dialog = page.get_by_test_id("changes-revert-dialog")
    expect(dialog.get_by_test_id("changes-revert-dialog-cancel")).to_be_focused()
    page.keyboard.press("Tab")
    expect(dialog.get_by_test_id("changes-revert-confirm")).to_be_focused()
    page.keyboard.press("Enter")
    expect(files).to_have_count(1)
    expect(files.nth(0).get_by_test_id("changes-file-name")).to_be_focused()  # zeta.txt, now at its place
    assert focused(page)["path"] == "zeta.txt"
    assert (work / "notes.txt").read_text() == "colour\n"
    shoot(page, "changes-after-file")
    # the last file: nothing is left to review, the focus is on the way out
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(dialog.get_by_test_id("changes-revert-dialog-cancel")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(panel.get_by_test_id("changes-empty")).to_be_visible()
    expect(panel.get_by_test_id("changes-close")).to_be_focused()
    assert (work / "zeta.txt").read_text() == "zeta\n"
    page.keyboard.press("Enter")
    expect(panel).to_be_hidden()


def test_the_welcome_words_the_mode_new_sessions_start_in_and_offers_import(
    contexts: Contexts,
    make_harness: Callable[..., HarnessServer],
    llm: ScriptedLlmServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first start: the welcome says what the agent may do in the default mode as it applies on
    this machine (Auto with the sandbox, Ask without one, whatever Settings chose), never "only
    with your approval" when that is not so; and it names Import for an exported archive."""
    monkeypatch.setenv("HARNESSDESK_SANDBOX", "")  # this server probes bubblewrap for real
    sandboxed = make_harness(openai_args(llm.base_url), "sandboxed")
    page = contexts.warm_page(sandboxed.url)
    mode = page.get_by_test_id("welcome-mode")
    if rpc(page, HOST_DESCRIBE, {})["newSessionMode"]["value"] != "auto":
        pytest.skip("bubblewrap cannot run here: Auto is not offered")
    expect(mode).to_have_text(
        "Choose the folder of a project: the agent works there. New sessions start in Auto: it edits"
        " files and runs commands inside that folder on its own, in a sandbox, and asks before anything else."
    )
    expect(mode).not_to_contain_text("only with your approval")
    auto_words = "New sessions start in Auto: it edits files and runs commands inside that folder on its own"
    expect(page.get_by_test_id("onboarding-mode")).to_contain_text(auto_words)  # the notice says the same
    note = page.get_by_test_id("welcome-import-note")
    expect(note).to_contain_text(
        "Have a session exported as an archive (.zip)? Drop it on the window or import it."
    )
    shoot(page, "welcome-auto", blur=True)
    with page.expect_file_chooser() as chooser:
        note.get_by_test_id("welcome-import").click()
    assert not chooser.value.is_multiple()  # the Import button's own file dialog

    ops = [{"op": "set", "path": ["defaultPreset"], "value": "read-only"}]
    rpc(page, SETTINGS_MUTATE, {"ns": "permission", "ops": ops})
    page.reload()
    expect(mode).to_contain_text(
        "New sessions start in Read-only: it reads and searches, and changes nothing."
    )
    monkeypatch.setenv("HARNESSDESK_SANDBOX", "none")  # a machine without a sandbox: Auto asks like Ask
    plain = make_harness(openai_args(llm.base_url), "plain")
    other = contexts.new_page(plain.url)
    ask_words = (
        "New sessions start in Ask: it reads files freely and asks before every write and every command."
    )
    expect(other.get_by_test_id("welcome-mode")).to_contain_text(ask_words)
    notice = other.get_by_test_id("onboarding-notice")
    expect(notice.get_by_test_id("onboarding-mode")).to_have_text(ask_words)
    expect(notice).not_to_contain_text("without asking")  # no sandbox here: nothing runs unasked
    shoot(other, "welcome-ask", blur=True)


ODD = "  Q3\u202e plan\n<b>draft</b>\u0007  "
"""A forged title: spaces around it, a right-to-left override, a newline, markup, a bell."""


def test_an_imported_title_is_shown_as_stored_in_the_sidebar_and_the_header(
    page: Page, harness: HarnessServer, tmp_path: Path
) -> None:
    entries = []
    for sid, events in (("s-odd-header", []), ("s-odd-event", [("session/title", ODD)])):
        head = {"id": sid, "createdAt": 1, "cwd": "/", "blank": False, "title": ODD, "titleSource": "user"}
        rows = [json.dumps(head)]
        for seq, (etype, title) in enumerate(events):
            data = {"title": title + " again", "source": {"kind": "user"}}
            rows.append(json.dumps({"type": etype, "seq": seq, "time": 1000 + seq, "data": data}))
        entries.append((sid, "\n".join(rows) + "\n"))
    fresh_session(page)
    for sid, log in entries:
        archive = tmp_path / f"{sid}.zip"
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("session.jsonl", log)
        with page.expect_file_chooser() as chooser:
            page.get_by_test_id("import-archive").click()
        chooser.value.set_files(str(archive))
        page.get_by_test_id("import-dialog").get_by_test_id("import-confirm").click()
        page.wait_for_function("(sid) => window.harnessdesk.app.manager.activeId === sid", arg=sid)
        listed = {i["sessionId"]: i for i in rpc(page, SESSION_LIST, {})["items"]}
        stored = listed[sid]["title"]
        assert stored == (
            "Q3 plan <b>draft</b>" + (" again" if "event" in sid else "")
        )  # as the app stores one
        row = page.locator(f'[data-testid=session-item][data-session-id="{sid}"]')
        expect(row.get_by_test_id("session-title")).to_have_text(stored)
        expect(page.get_by_test_id("session-heading")).to_have_text(stored)
        page.reload()
        expect(row.get_by_test_id("session-title")).to_have_text(stored)
        expect(page.get_by_test_id("session-heading")).to_have_text(stored)
    expect(page.get_by_test_id("session-loading")).to_have_count(0)
    shoot(page, "imported-title")


def test_editing_a_queued_message_keeps_its_attached_files_as_chips(
    page: Page, harness: HarnessServer, llm: ScriptedLlmServer
) -> None:
    (harness.workdir / "notes").mkdir(exist_ok=True)
    (harness.workdir / "notes" / "queued_note.txt").write_text("the queued note\n")
    fresh_session(page)
    llm.enqueue(Reply(tool_calls=[tool_call("w1", "bash", command="echo busy")]), Reply(text="Done first."))
    send(page, "Start something")  # the turn waits on its approval card: later input queues
    expect(page.get_by_test_id("approval-card")).to_have_count(1)
    box = page.get_by_test_id("composer-input")
    box.click()
    box.press_sequentially("@queuednote")
    expect(page.get_by_test_id("finder-item").first).to_have_attribute("data-path", "notes/queued_note.txt")
    box.press("Enter")  # attaches
    box.press_sequentially("summarize it")
    box.press("Enter")  # queued behind the running turn
    item = page.get_by_test_id("queue-item")
    expect(item).to_have_count(1)
    expect(item.get_by_test_id("msg-context-chip")).to_have_attribute("data-path", "notes/queued_note.txt")

    item.get_by_test_id("queue-edit").click()
    edit = item.get_by_test_id("queue-edit-input")
    expect(edit).to_be_focused()
    expect(edit).to_have_value("summarize it")  # the words only: the file is a chip, not text
    expect(item.get_by_test_id("context-chip")).to_have_attribute("data-path", "notes/queued_note.txt")
    shoot(page, "queue-edit")
    edit.fill("summarize it in one line")
    edit.press("Enter")
    expect(item.get_by_test_id("queue-edit-input")).to_have_count(0)
    expect(item.locator(".queue-text")).to_have_text("summarize it in one line")
    expect(item.get_by_test_id("msg-context-chip")).to_have_attribute("data-path", "notes/queued_note.txt")
    shoot(page, "queue-edited", blur=True)

    llm.enqueue(Reply(text="One line: the queued note."))
    allow(page, "bash")
    turn_ends(page, 2)
    said = llm.requests[-1]["messages"][-1]["content"]
    assert said.startswith("summarize it in one line\n\nContents of `notes/queued_note.txt`:"), said
    assert "the queued note" in said
    user = page.get_by_test_id("msg-user").last
    expect(user.locator(".user-text")).to_have_text("summarize it in one line")
    expect(user.get_by_test_id("msg-context-chip")).to_have_attribute("data-path", "notes/queued_note.txt")
    wait_idle(page)


def test_a_click_in_the_jobs_panel_and_the_queue_is_not_lost_to_a_redraw_under_it(
    page: Page, llm: ScriptedLlmServer
) -> None:
    """Both lists are drawn again from the host's frames (a job started or ended, the queue
    changed): with ten sessions working that is often, and a redraw between the press and the
    release replaced the button under the pointer, so the browser sent no click."""
    fresh_session(page)
    command = "echo watching files; sleep 1000"
    llm.enqueue(
        Reply(tool_calls=[tool_call("c-w", "bash", command=command, run_in_background=True)]),
        Reply(text="It runs."),
    )
    send(page, "Start the watcher")
    allow(page, "bash")
    turn_ends(page)
    page.get_by_test_id("jobs-toggle").click()
    job = page.get_by_test_id("jobs-panel").get_by_test_id("job-item")
    expect(job).to_have_attribute("data-status", "running")
    redraw_jobs = "() => window.harnessdesk.app.jobsPanel.render()"
    click_through_redraw(page, job.get_by_test_id("job-output-toggle"), redraw_jobs)
    expect(job.get_by_test_id("job-output")).to_contain_text("watching files")

    llm.enqueue(Reply(tool_calls=[tool_call("c-b", "bash", command="echo busy")]), Reply(text="Done."))
    send(page, "Check once more")  # the turn waits on its approval card: later input queues
    expect(page.get_by_test_id("approval-card")).to_have_count(1)
    send(page, "then summarize")
    queued = page.get_by_test_id("queue-item")
    expect(queued).to_have_count(1)
    redraw_queue = "() => window.harnessdesk.app.queue.render()"
    click_through_redraw(page, queued.get_by_test_id("queue-edit"), redraw_queue)
    expect(queued.get_by_test_id("queue-edit-input")).to_be_focused()
    queued.get_by_test_id("queue-edit-input").press("Escape")

    click_through_redraw(page, job.get_by_test_id("job-stop"), redraw_jobs)
    expect(job).to_have_attribute("data-status", "killed")
