"""Workspaces in a browser tab: the in-page folder browser, a session in the chosen folder,
archive and unarchive, delete (after the confirmation that offers Export first), reorder, the
welcome's recent folders. Screenshots of the sidebar and the folder browser go to
`$HARNESSDESK_SHOTS` (default: the test's tmp dir) for a person to look at.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from contract.methods import SESSION_CREATE, SESSION_LIST, SESSION_PROMPT, WORKSPACE_CREATE, WORKSPACE_LIST
from tests.browser.support import (
    Contexts,
    HarnessServer,
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


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The served host's home directory (the folder browser starts there)."""
    root = tmp_path / "home"
    for sub in ("projects/alpha/src", "projects/beta", ".config"):
        (root / sub).mkdir(parents=True)
    (root / "projects" / "notes.txt").write_text("a file, not a folder")
    monkeypatch.setenv("HOME", str(root))
    return Path(os.path.realpath(root))


@pytest.fixture
def served(home: Path, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer) -> HarnessServer:
    return make_harness(openai_args(llm.base_url), "workspaces")


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("HARNESSDESK_SHOTS", tmp_path / "shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def active_id(page: Page, other_than: str | None = None) -> str:
    """The open session's id, once there is one (other than `other_than`) and it is listed."""
    page.wait_for_function(
        """(old) => { const m = window.harnessdesk.app.manager;
            return m.activeId && m.activeId !== old && m.summaries.has(m.activeId); }""",
        arg=other_than,
    )
    return str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))


def choose(page: Page, *names: str) -> None:
    """Open folder… → the in-page browser → walk into `names` → Open this folder."""
    page.get_by_test_id("open-folder").click()
    dialog = page.get_by_test_id("folder-dialog")
    expect(dialog).to_be_visible()
    for name in names:
        dialog.get_by_test_id("folder-entry").filter(has_text=name).click()
        expect(dialog.get_by_test_id("folder-crumb").last).to_have_text(name)
    dialog.get_by_test_id("folder-open").click()
    expect(dialog).to_be_hidden()


def test_pick_a_folder_work_there_archive_and_delete(
    contexts: Contexts, served: HarnessServer, llm: ScriptedLlmServer, home: Path, tmp_path: Path
) -> None:
    page = contexts.warm_page(served.url)
    out = shots(tmp_path)
    # the folder browser: home first, hidden folders behind a toggle, files never listed
    page.get_by_test_id("open-folder").click()
    dialog = page.get_by_test_id("folder-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("folder-current")).to_have_text("~")
    expect(dialog.get_by_test_id("folder-entry")).to_have_text(["projects"])
    dialog.get_by_test_id("folder-show-hidden").check()
    expect(dialog.get_by_test_id("folder-entry")).to_have_text([".config", "projects"])
    dialog.get_by_test_id("folder-show-hidden").uncheck()
    dialog.get_by_test_id("folder-entry").filter(has_text="projects").click()
    expect(dialog.get_by_test_id("folder-entry")).to_have_text(["alpha", "beta"])  # not notes.txt
    # a new folder, made in place and stepped into
    dialog.get_by_test_id("folder-new").click()
    dialog.get_by_test_id("folder-new-name").fill("gamma")
    dialog.get_by_test_id("folder-new-create").click()
    expect(dialog.get_by_test_id("folder-current")).to_have_text("~/projects/gamma")
    assert (home / "projects" / "gamma").is_dir()
    dialog.get_by_test_id("folder-crumb").filter(has_text="projects").click()
    dialog.get_by_test_id("folder-new").click()
    dialog.get_by_test_id("folder-new-name").fill("gamma")
    dialog.get_by_test_id("folder-new-create").click()
    expect(dialog.get_by_test_id("folder-note")).to_contain_text("already exists")
    dialog.get_by_test_id("folder-entry").filter(has_text="alpha").click()
    expect(dialog.get_by_test_id("folder-entry")).to_have_text(["src"])
    snap(page, out / "folder-browser.png")
    dialog.get_by_test_id("folder-open").click()
    expect(dialog).to_be_hidden()

    # a session starts there, in a workspace group named after the folder
    alpha = group(page, "alpha")
    expect(alpha).to_be_visible()
    first = active_id(page)
    summary = page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id)", first)
    assert summary["cwd"] == str(home / "projects" / "alpha")
    llm.enqueue(Reply(text="The sources live in src/."))
    send(page, "Where are the sources?")
    turn_ends(page)
    wait_idle(page)
    expect(alpha.get_by_test_id("session-item")).to_have_count(1)
    assert str(home / "projects" / "alpha") in json.dumps(llm.requests[-1]["messages"][0])
    # New session in the workspace, reusing nothing (the first one has a turn now)
    alpha.get_by_test_id("workspace-toggle").hover()
    alpha.get_by_test_id("workspace-new-session").click()
    second = active_id(page, first)
    llm.enqueue(Reply(text="Noted."))
    send(page, "Second task")
    turn_ends(page)
    wait_idle(page)
    expect(alpha.get_by_test_id("session-item")).to_have_count(2)
    listed = rpc(page, WORKSPACE_LIST, {})
    assert listed["items"][0]["sessionIds"] == [second, first]
    session_item(page, first).hover()
    page.get_by_test_id("sidebar").screenshot(path=str(out / "sidebar.png"))

    # archive: out of the group, into Archived; unarchive brings it back to its slot
    session_item(page, first).hover()  # a row's tools show on hover (or keyboard focus)
    session_item(page, first).get_by_test_id("session-archive").click()
    expect(alpha.get_by_test_id("session-item")).to_have_count(1)
    toggle = page.get_by_test_id("archived-toggle")
    expect(toggle).to_have_text("Archived (1)")
    toggle.click()
    archived = page.get_by_test_id("archived-list")
    expect(archived.get_by_test_id("session-item")).to_have_count(1)
    page.get_by_test_id("sidebar").screenshot(path=str(out / "sidebar-archived.png"))
    archived.get_by_test_id("session-item").hover()
    archived.get_by_test_id("session-unarchive").click()
    expect(toggle).to_be_hidden()
    expect(alpha.get_by_test_id("session-item")).to_have_count(2)
    expect(alpha.get_by_test_id("session-item").nth(1)).to_have_attribute("data-session-id", first)

    # delete: the confirmation offers Export first; Cancel keeps it, Delete removes it
    session_item(page, first).hover()
    session_item(page, first).get_by_test_id("session-delete").click()
    confirm = page.get_by_test_id("delete-dialog")
    expect(confirm).to_be_visible()
    expect(confirm.get_by_test_id("delete-export")).to_be_visible()
    snap(page, out / "delete-confirm.png")
    confirm.get_by_test_id("delete-dialog-cancel").click()
    expect(session_item(page, first)).to_be_visible()
    session_item(page, first).hover()
    session_item(page, first).get_by_test_id("session-delete").click()
    with page.expect_download() as download:
        page.get_by_test_id("delete-export").click()
    assert download.value.suggested_filename.endswith(".zip")
    page.get_by_test_id("delete-confirm").click()
    expect(session_item(page, first)).to_have_count(0)
    ids = [s["sessionId"] for s in rpc(page, SESSION_LIST, {})["items"]]
    assert first not in ids and second in ids


def test_welcome_offers_recent_folders_and_reorder_by_keyboard(
    contexts: Contexts, served: HarnessServer, llm: ScriptedLlmServer, home: Path
) -> None:
    page = contexts.warm_page(served.url)
    beta = str(home / "projects" / "beta")
    workspace = rpc(page, WORKSPACE_CREATE, {"path": beta})["workspace"]
    wid = workspace["workspaceId"]
    made = [rpc(page, SESSION_CREATE, {"workspaceId": wid})["sessionId"] for _ in range(2)]
    for sid in made:
        llm.enqueue(Reply(text="ok"))
        rpc(
            page,
            SESSION_PROMPT,
            {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": f"task {sid}"}]},
        )
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    welcome = page.get_by_test_id("empty-state")
    expect(welcome.get_by_test_id("recent-folder")).to_have_count(1)
    expect(welcome.get_by_test_id("recent-folder")).to_contain_text("beta")
    items = group(page, "beta").get_by_test_id("session-item")
    expect(items).to_have_count(2)
    order = [made[1], made[0]]
    expect(items.nth(0)).to_have_attribute("data-session-id", order[0])
    # Alt+↓ moves the first session one place down (the keyboard's drag)
    items.nth(0).get_by_test_id("session-open").focus()
    page.keyboard.press("Alt+ArrowDown")
    expect(items.nth(0)).to_have_attribute("data-session-id", order[1])
    assert rpc(page, WORKSPACE_LIST, {})["items"][0]["sessionIds"] == [order[1], order[0]]
    # drag the last session onto the top half of the first one: it moves to the top
    items.nth(1).drag_to(items.nth(0), target_position={"x": 20, "y": 4})
    expect(items.nth(0)).to_have_attribute("data-session-id", order[0])
    assert rpc(page, WORKSPACE_LIST, {})["items"][0]["sessionIds"] == order
    # a recent folder starts a new session there
    welcome.get_by_test_id("recent-folder").click()
    sid = active_id(page)
    assert sid not in made
    summary = page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id)", sid)
    assert summary["cwd"] == beta


def test_the_folder_picker_takes_a_typed_path(
    contexts: Contexts, served: HarnessServer, home: Path, tmp_path: Path
) -> None:
    """Issue 31, item 8: type or paste a path (with `~`), Enter, and open it: no clicking down."""
    page = contexts.warm_page(served.url)
    page.get_by_test_id("open-folder").click()
    dialog = page.get_by_test_id("folder-dialog")
    expect(dialog).to_be_visible()
    path = dialog.get_by_test_id("folder-path-input")
    expect(path).to_have_value(str(home))
    path.fill("~/projects/beta")
    path.press("Enter")
    expect(dialog.get_by_test_id("folder-crumb").last).to_have_text("beta")
    expect(path).to_have_value(str(home / "projects" / "beta"))
    path.fill(str(home / "projects" / "nowhere"))
    path.press("Enter")
    expect(dialog.get_by_test_id("folder-note")).not_to_be_empty()
    expect(dialog.get_by_test_id("folder-crumb").last).to_have_text("beta")  # unchanged
    dialog.screenshot(path=str(shots(tmp_path) / "folder-typed-path.png"))
    dialog.get_by_test_id("folder-open").click()
    expect(dialog).to_be_hidden()
    sid = active_id(page)
    cwd = page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id)?.cwd", sid)
    assert cwd == str(home / "projects" / "beta")


HOLD_LISTINGS = """() => {
    const {client} = window.harnessdesk;
    const call = client.call.bind(client);
    let release;
    window.releaseListings = new Promise((done) => { release = done; });
    window.releaseListingsNow = () => release();
    client.call = async (method, ...rest) => {
        if (method === "host.listDirectory") await window.releaseListings;
        return call(method, ...rest);
    };
}"""
"""Hold every `host.listDirectory` until the test says `releaseListingsNow()`."""


def test_new_folder_clicked_while_a_folder_loads_stays_open_and_creates_there(
    contexts: Contexts, served: HarnessServer, home: Path
) -> None:
    """A person who clicks New folder before the folder they stepped to has loaded keeps the
    form (it used to close when the listing landed), and the folder is made where they went."""
    page = contexts.warm_page(served.url)
    page.get_by_test_id("open-folder").click()
    dialog = page.get_by_test_id("folder-dialog")
    dialog.get_by_test_id("folder-entry").filter(has_text="projects").click()
    expect(dialog.get_by_test_id("folder-entry")).to_have_text(["alpha", "beta"])
    page.evaluate(HOLD_LISTINGS)
    dialog.get_by_test_id("folder-entry").filter(has_text="alpha").click()  # held: still projects
    dialog.get_by_test_id("folder-new").click()
    name = dialog.get_by_test_id("folder-new-name")
    expect(name).to_be_visible()
    page.evaluate("() => window.releaseListingsNow()")
    expect(dialog.get_by_test_id("folder-entry")).to_have_text(["src"])
    expect(name).to_be_visible()  # the listing that landed did not close it
    name.fill("delta")
    dialog.get_by_test_id("folder-new-create").click()
    expect(dialog.get_by_test_id("folder-current")).to_have_text("~/projects/alpha/delta")
    assert (home / "projects" / "alpha" / "delta").is_dir()
