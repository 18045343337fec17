"""`harnessdesk --remote TARGET PATH` in the real window under Xvfb (docs/decisions.md, "Remote
hosts"): the window connects that host over the system's ssh to a real OpenSSH server on
loopback (a user of its own, key authentication), brings the server there and opens a session in
PATH on it. The host is the app's own; the LLM is the scripted server.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.desktop.support import AppFactory, gui_test
from tests.desktop.test_window_folders import ROOT, connected, wait_until
from tests.support.scripted_llm import ScriptedLlmServer
from tests.support.sshd import Sshd

pytestmark = [pytest.mark.gui, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def sshd() -> Iterator[Sshd]:
    root = Path(tempfile.mkdtemp(prefix="hd-sshd-", dir="/var/tmp"))  # a remote sandbox hides /tmp
    try:
        with Sshd.start(root) as server:
            server.trust()
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


@gui_test
def test_harnessdesk_remote_opens_the_window_on_a_session_in_path_there(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, sshd: Sshd
) -> None:
    repo = sshd.home / "repo"
    repo.mkdir(exist_ok=True)
    shutil.chown(repo, sshd.user, sshd.user)
    provider = ["--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m"]
    app = apps.launch(
        "--webui",
        str(ROOT / "webui"),
        "--real-host",
        *provider,
        "--remote",
        "testbox",  # the ~/.ssh/config entry of the person's home (HOME below)
        str(repo),
        env={"HOME": str(sshd.client_home)},
    )
    page = connected(app)
    summary = wait_until(
        lambda: page.evaluate(
            "(() => { const m = window.harnessdesk.app.manager;"
            " return m.activeId ? m.summaries.get(m.activeId) : null; })()"
        ),
        timeout=300,  # the first connection installs the server there
        what="a session on the remote host",
    )
    assert summary["cwd"] == str(repo) and summary["hostId"]
    hosts = page.evaluate("window.harnessdesk.client.call('remote.list', {}).then(r => r.value.items)")
    assert [(h["hostId"], h["target"], h["state"]) for h in hosts] == [
        (summary["hostId"], "testbox", "connected")
    ]
    page.evaluate(f"window.harnessdesk.client.call('remote.disconnect', {{hostId: '{summary['hostId']}'}})")
