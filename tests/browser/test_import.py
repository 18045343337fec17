"""Import in the app (docs/decisions.md, "Import in the app"): a session exported from the window
comes back through the sidebar's Import button and through a drop on the window, lands under
its workspace (or a folder chosen then) and opens; a bad file is one line and imports nothing.
Screenshots at 800/1100/1600 px, light and dark, go to tests/screenshots/ (`import-*`).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from contract.methods import SESSION_CREATE, SESSION_DELETE, SESSION_LIST
from tests.browser.shots import SHOTS
from tests.browser.support import (
    VIEWPORT,
    Contexts,
    HarnessServer,
    ensure_folder,
    group,
    openai_args,
    rpc,
    send,
    session_item,
    snap,
    turn_ends,
    wait_idle,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

WIDTHS = (800, 1100, 1600)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "home"
    (root / "projects" / "elsewhere").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(root))
    return Path(os.path.realpath(root))


@pytest.fixture
def served(home: Path, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer) -> HarnessServer:
    return make_harness(openai_args(llm.base_url), "import")


def shots(page: Page, name: str) -> None:
    """`import-<name>-<width>-<theme>.png` (the focus stays: it is part of what is shown)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 760})
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            snap(page, SHOTS / f"import-{name}-{width}-{theme}.png")
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="light")


def exported_then_deleted(page: Page, llm: ScriptedLlmServer, tmp_path: Path) -> tuple[str, Path]:
    """A session with one turn, exported with the Export button, then deleted for good."""
    ensure_folder(page)
    llm.enqueue(Reply(text="Kept safe in the archive."))
    send(page, "Remember this conversation")
    turn_ends(page)
    wait_idle(page)
    sid = str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))
    with page.expect_download() as info:
        page.get_by_test_id("export-session").click()
    archive = tmp_path / "kept.zip"
    info.value.save_as(archive)
    # the page says what it saved, and under which name (a tab: the browser's downloads)
    toast(page, f"Exported as {info.value.suggested_filename}, in your browser's downloads.")
    rpc(page, SESSION_DELETE, {"sessionId": sid})
    expect(session_item(page, sid)).to_have_count(0)
    return sid, archive


def toast(page: Page, text: str) -> None:
    expect(page.get_by_test_id("toast").filter(has_text=text).first).to_be_visible()


def drop(page: Page, data: bytes, name: str, kind: str, finish: bool = True) -> None:
    """Drag a file over the conversation (and drop it): a real DataTransfer holding a File."""
    page.evaluate(
        """([b64, name, kind, finish]) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const dt = new DataTransfer();
            dt.items.add(new File([bytes], name, {type: kind}));
            const target = document.getElementById("conversation");
            const types = finish ? ["dragenter", "dragover", "drop"] : ["dragenter", "dragover"];
            for (const type of types) {
                const init = {bubbles: true, cancelable: true, dataTransfer: dt};
                target.dispatchEvent(new DragEvent(type, init));
            }
        }""",
        [base64.b64encode(data).decode(), name, kind, finish],
    )


def test_import_by_button_and_by_drop_lands_under_the_workspace(
    contexts: Contexts, served: HarnessServer, llm: ScriptedLlmServer, home: Path, tmp_path: Path
) -> None:
    page = contexts.warm_page(served.url)
    sid, archive = exported_then_deleted(page, llm, tmp_path)
    work = os.path.realpath(served.workdir)

    # the button: the file chooser, then where it goes (the workspace used last), then Import
    with page.expect_file_chooser() as chooser:
        page.get_by_test_id("import-archive").click()
    chooser.value.set_files(str(archive))
    dialog = page.get_by_test_id("import-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("import-target")).to_have_text(Path(work).name)
    expect(dialog.get_by_test_id("import-confirm")).to_be_focused()
    shots(page, "dialog")
    dialog.get_by_test_id("import-confirm").click()
    expect(dialog).to_be_hidden()
    toast(page, "Imported kept.zip")
    page.wait_for_function("(sid) => window.harnessdesk.app.manager.activeId === sid", arg=sid)
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Kept safe in the archive.")
    expect(group(page, Path(work).name).locator(f'[data-session-id="{sid}"]')).to_have_count(1)
    expect(page.get_by_test_id("workspace-group").filter(has_text="Ungrouped")).to_have_count(0)
    summary = page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id)", sid)
    assert summary["cwd"] == work
    shots(page, "imported")

    # the same archive again: it is here already (no raw id): Open it, or Import as a copy
    page.get_by_test_id("import-file").set_input_files(str(archive))
    page.get_by_test_id("import-confirm").click()
    here = page.get_by_test_id("import-exists")
    expect(here).to_contain_text("The session in this archive is already here")
    expect(here).not_to_contain_text(sid)
    expect(here.get_by_test_id("import-exists-copy")).to_be_focused()
    shots(page, "exists")
    rpc(page, SESSION_CREATE, {})  # another session is open meanwhile
    here.get_by_test_id("import-exists-open").click()
    page.wait_for_function("(sid) => window.harnessdesk.app.manager.activeId === sid", arg=sid)
    assert len([s for s in rpc(page, SESSION_LIST, {})["items"] if not s["blank"]]) == 1
    page.get_by_test_id("import-file").set_input_files(str(archive))
    page.get_by_test_id("import-confirm").click()
    page.get_by_test_id("import-exists").get_by_test_id("import-exists-copy").click()
    toast(page, "Imported kept.zip")
    page.wait_for_function("(sid) => ![null, sid].includes(window.harnessdesk.app.manager.activeId)", arg=sid)
    copy = str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Kept safe in the archive.")
    expect(page.get_by_test_id("session-title").filter(has_text="(copy)")).to_have_count(1)
    rpc(page, SESSION_DELETE, {"sessionId": copy})

    # a drop on the window, into a folder chosen then (the in-page folder browser)
    rpc(page, SESSION_DELETE, {"sessionId": sid})
    drop(page, archive.read_bytes(), "kept.zip", "application/zip", finish=False)
    expect(page.locator("body.import-dragging")).to_have_count(1)
    shots(page, "dragging")
    drop(page, archive.read_bytes(), "kept.zip", "application/zip")
    expect(page.locator("body.import-dragging")).to_have_count(0)
    page.get_by_test_id("import-choose").click()
    folders = page.get_by_test_id("folder-dialog")
    expect(folders).to_be_visible()
    folders.get_by_test_id("folder-entry").filter(has_text="projects").click()
    folders.get_by_test_id("folder-entry").filter(has_text="elsewhere").click()
    expect(folders.get_by_test_id("folder-current")).to_have_text("~/projects/elsewhere")
    folders.get_by_test_id("folder-open").click()
    toast(page, "into elsewhere")
    page.wait_for_function("(sid) => window.harnessdesk.app.manager.activeId === sid", arg=sid)
    expect(group(page, "elsewhere").locator(f'[data-session-id="{sid}"]')).to_have_count(1)
    summary = page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id)", sid)
    assert summary["cwd"] == str(home / "projects" / "elsewhere")


def test_files_that_are_not_archives_are_one_line_and_import_nothing(
    contexts: Contexts, served: HarnessServer, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    page = contexts.warm_page(served.url)
    ensure_folder(page)
    drop(page, b"just some notes", "notes.txt", "text/plain")
    toast(page, "notes.txt is not a session archive")
    expect(page.get_by_test_id("import-dialog")).to_have_count(0)

    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"hello, not a zip")
    page.get_by_test_id("import-file").set_input_files(str(fake))
    page.get_by_test_id("import-confirm").click()
    toast(page, "Could not import fake.zip: not a readable zip archive")
    shots(page, "refused")

    empty = tmp_path / "empty.zip"
    empty.write_bytes(b"")
    page.get_by_test_id("import-file").set_input_files(str(empty))
    toast(page, "empty.zip is empty.")
    assert rpc(page, SESSION_LIST, {})["items"] == []
