"""Remote hosts in the window (docs/decisions.md, "Remote hosts"), in Chromium against a real
`harnessdesk serve` whose ssh reaches a real OpenSSH server on loopback: Settings → Remote hosts
(a ~/.ssh/config entry picked, Test connection, the host-key confirmation with the fingerprint),
the host's group in the sidebar, the remote's folders in the folder picker, a turn with an
approval there, and the rows saying "reconnecting" while the ssh connection is gone."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from contract.methods import PERMISSION_SET, REMOTE_DISCONNECT
from host.engine.workspaces.remotes.bootstrap import BASE, RUN
from tests.browser.support import (
    Contexts,
    HarnessServer,
    allow,
    click_through_redraw,
    openai_args,
    rpc,
    session_item,
    shoot,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer
from tests.support.sshd import Sshd

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]
CONNECT_MS = 300_000
"""The first connection brings and installs the server there."""


@pytest.fixture(scope="module")
def sshd() -> Iterator[Sshd]:
    root = Path(tempfile.mkdtemp(prefix="hd-sshd-", dir="/var/tmp"))
    try:
        with Sshd.start(root, set_env={"HARNESSDESK_DEV_VALIDATE": "1"}) as server:
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


def masters(port: int) -> list[int]:
    """The local ssh masters connected to the test's sshd."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"ssh") and b"ControlMaster=yes" in argv and b"testbox" in argv:
            found.append(int(entry))
    return found


def test_a_remote_host_from_settings_to_a_turn_and_back_after_a_drop(
    sshd: Sshd,
    llm: ScriptedLlmServer,
    contexts: Contexts,
    make_harness: Callable[..., HarnessServer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(sshd.client_home))  # the serve's ssh reads this ~/.ssh
    sshd.forget()
    server = make_harness(openai_args(llm.base_url))
    page = contexts.new_page(server.url)
    page.locator("#open-settings").click()
    section = page.get_by_test_id("settings-remote-hosts")
    expect(section).to_be_visible()
    options = section.locator("datalist option")
    expect(options).to_have_count(1)
    assert options.first.get_attribute("value") == "testbox"  # ~/.ssh/config's entry, to pick
    section.get_by_test_id("remote-target").fill("testbox")
    section.get_by_test_id("remote-add").click()
    row = section.get_by_test_id("remote-host")
    expect(row.get_by_test_id("remote-state")).to_have_attribute("data-state", "disconnected")

    row.get_by_test_id("remote-test").click()
    # ssh, then ssh-keyscan of the key it refused: seconds on a loaded machine
    expect(row.get_by_test_id("remote-note")).to_contain_text("not known yet", timeout=120_000)

    # the list drawn again between the press and the release (a host's state changed): it lands
    redraw = "() => window.harnessdesk.app.settings.remoteHosts.render()"
    click_through_redraw(page, row.get_by_test_id("remote-connect"), redraw)
    dialog = page.get_by_test_id("host-key-dialog")
    expect(dialog.get_by_test_id("host-key-fingerprint")).to_have_text(sshd.fingerprint)
    expect(dialog.get_by_test_id("host-key-dialog-cancel")).to_be_visible()
    dialog.get_by_test_id("host-key-trust").click()
    expect(row.get_by_test_id("remote-state")).to_have_attribute(
        "data-state", "connected", timeout=CONNECT_MS
    )
    page.get_by_test_id("settings-close").click()

    # the host's group in the sidebar; a session there in a folder the remote lists
    group = page.get_by_test_id("remote-group")
    expect(group.get_by_test_id("remote-group-state")).to_have_attribute("data-state", "connected")
    group.get_by_test_id("remote-new-session").click()
    picker = page.get_by_test_id("remote-folder-dialog")
    expect(picker.get_by_test_id("folder-title")).to_contain_text("testbox")
    expect(picker.get_by_test_id("folder-current")).to_have_attribute("title", str(sshd.home))
    picker.get_by_test_id("folder-new").click()
    picker.get_by_test_id("folder-new-name").fill("proj")
    picker.get_by_test_id("folder-new-create").click()
    expect(picker.get_by_test_id("folder-current")).to_have_attribute("title", str(sshd.home / "proj"))
    picker.get_by_test_id("folder-open").click()
    page.wait_for_function("() => !!window.harnessdesk.app.manager.activeId")
    sid = str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))
    expect(group.locator(f'[data-testid="session-item"][data-session-id="{sid}"]')).to_be_visible()

    rpc(page, PERMISSION_SET, {"sessionId": sid, "preset": "workspace-write"})  # every command asks
    llm.enqueue(
        Reply(tool_calls=[("c1", "bash", json.dumps({"command": "id -un > who.txt"}))]),
        Reply(text="done there"),
    )
    box = page.get_by_test_id("composer-input")
    box.fill("who runs this?")
    box.press("Enter")
    allow(page, "bash")
    expect(page.get_by_test_id("turn-end")).to_have_count(1, timeout=60_000)
    expect(page.get_by_test_id("conversation")).to_contain_text("done there")
    assert (sshd.home / "proj" / "who.txt").read_text().strip() == sshd.user
    shoot(page, "remote-host-session")

    # the ssh connection dies: the rows say so, then the host is back by itself
    for pid in masters(sshd.port):
        os.kill(pid, signal.SIGKILL)
    expect(group.get_by_test_id("remote-group-state")).to_have_attribute("data-state", "reconnecting")
    expect(session_item(page, sid).get_by_test_id("session-note")).to_have_text("reconnecting")
    expect(group.get_by_test_id("remote-group-state")).to_have_attribute(
        "data-state", "connected", timeout=60_000
    )
    expect(session_item(page, sid).get_by_test_id("session-note")).to_have_count(0)
    llm.enqueue(Reply(text="still here"))
    box.fill("again")
    box.press("Enter")
    expect(page.get_by_test_id("turn-end")).to_have_count(2, timeout=60_000)
    expect(page.get_by_test_id("conversation")).to_contain_text("still here")
    rpc(
        page,
        REMOTE_DISCONNECT,
        {"hostId": page.evaluate("() => window.harnessdesk.app.remotes.items[0].hostId")},
    )


def test_the_window_opened_for_a_remote_path_connects_it_and_opens_a_session_there(
    sshd: Sshd,
    llm: ScriptedLlmServer,
    contexts: Contexts,
    make_harness: Callable[..., HarnessServer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What `harnessdesk --remote testbox PATH` has the window do (desktop/shell.py: `#remote=`)."""
    monkeypatch.setenv("HOME", str(sshd.client_home))
    sshd.trust()
    (sshd.home / "repo").mkdir(exist_ok=True)
    server = make_harness(openai_args(llm.base_url))
    page = contexts.new_page(f"{server.url}#remote=testbox&path={sshd.home / 'repo'}")
    page.wait_for_function(
        "() => { const s = window.harnessdesk.app.manager.active; return !!s; }", timeout=CONNECT_MS
    )
    sid = str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))
    summary = page.evaluate("(id) => window.harnessdesk.app.manager.summaries.get(id)", sid)
    assert summary["cwd"] == str(sshd.home / "repo") and summary["hostId"]
    group = page.get_by_test_id("remote-group")
    expect(group.get_by_test_id("remote-group-state")).to_have_attribute("data-state", "connected")
    expect(session_item(page, sid)).to_be_visible()
    rpc(page, REMOTE_DISCONNECT, {"hostId": summary["hostId"]})


PASSPHRASE = "correct horse battery staple"


@pytest.fixture(scope="module")
def locked_sshd(sshd: Sshd) -> Iterator[Sshd]:
    """A remote whose login key has a passphrase, and no bubblewrap there: the account of `sshd`
    behind an sshd of its own, so the server an earlier test's first connection installed there
    is reused (installing is that test's subject, not this one's). Whatever ran there before is
    stopped first, so the connection starts a server of its own, with this sshd's environment."""
    subprocess.run(["pkill", "-KILL", "-u", sshd.user], capture_output=True)
    shutil.rmtree(sshd.home / BASE / RUN, ignore_errors=True)
    root = Path(tempfile.mkdtemp(prefix="hd-sshd-", dir="/var/tmp"))
    env = {"HARNESSDESK_SANDBOX": "none", "HARNESSDESK_DEV_VALIDATE": "1"}
    try:
        with Sshd.start(root, set_env=env, user=sshd.user, passphrase=PASSPHRASE) as server:
            server.trust()
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_ssh_asks_for_the_key_passphrase_in_a_dialog_of_the_window(
    locked_sshd: Sshd,
    llm: ScriptedLlmServer,
    contexts: Contexts,
    make_harness: Callable[..., HarnessServer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SSH_ASKPASS reaches the page: ssh's own prompt in a password field; Cancel fails the login,
    the passphrase connects, and nothing of it is kept. The row says the remote has no sandbox."""
    monkeypatch.setenv("HOME", str(locked_sshd.client_home))
    server = make_harness(openai_args(llm.base_url))
    page = contexts.new_page(server.url)
    page.locator("#open-settings").click()
    section = page.get_by_test_id("settings-remote-hosts")
    section.get_by_test_id("remote-target").fill(locked_sshd.target)
    section.get_by_test_id("remote-add").click()
    row = section.get_by_test_id("remote-host")

    row.get_by_test_id("remote-connect").click()
    dialog = page.get_by_test_id("remote-secret-dialog")
    expect(dialog).to_contain_text("passphrase", timeout=CONNECT_MS)
    expect(dialog.get_by_test_id("remote-secret-input")).to_have_attribute("type", "password")
    dialog.get_by_test_id("remote-secret-cancel").click()
    expect(dialog).to_have_count(0)
    expect(row.get_by_test_id("remote-state")).to_have_attribute("data-state", "failed", timeout=60_000)
    expect(page.get_by_test_id("settings-message")).to_contain_text("Permission denied")

    row.get_by_test_id("remote-connect").click()
    dialog = page.get_by_test_id("remote-secret-dialog")
    expect(dialog.get_by_test_id("remote-secret-input")).to_be_focused(timeout=CONNECT_MS)
    dialog.get_by_test_id("remote-secret-input").fill(PASSPHRASE)
    shoot(page, "remote-host-passphrase")
    dialog.get_by_test_id("remote-secret-ok").click()
    expect(dialog).to_have_count(0)
    expect(row.get_by_test_id("remote-state")).to_have_attribute(
        "data-state", "connected", timeout=CONNECT_MS
    )
    expect(row.get_by_test_id("remote-no-sandbox")).to_be_visible()
    for path in server.data_dir.rglob("*"):
        if path.is_file():
            assert PASSPHRASE.encode() not in path.read_bytes(), path
    rpc(
        page,
        REMOTE_DISCONNECT,
        {"hostId": page.evaluate("() => window.harnessdesk.app.remotes.items[0].hostId")},
    )
