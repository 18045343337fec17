"""`harnessdesk import FILE.zip --cwd DIR` while the window runs (docs/decisions.md, "Import in
the app"): the archive goes to the window's host over the instance channel, the window shows the
session under DIR's workspace, and a broken archive is one line with nothing imported. The host
is the real one; the window is a real pywebview window under Xvfb.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.desktop.support import AppFactory, gui_test
from tests.desktop.test_window_folders import active, connected, launch, wait_until
from tests.security.test_imported_archives import forged_log
from tests.support.scripted_llm import ScriptedLlmServer

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]


def cli_import(archive: Path, cwd: Path, data_dir: Path) -> subprocess.CompletedProcess[str]:
    """The real command line, in a process of its own (as a person runs it in a terminal)."""
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    command = ["import", str(archive), "--cwd", str(cwd), "--data-dir", str(data_dir)]
    return subprocess.run(
        [sys.executable, "-m", "desktop", *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@gui_test
def test_the_cli_hands_an_import_to_the_running_window(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    first, target = tmp_path / "first", tmp_path / "target"
    first.mkdir()
    target.mkdir()
    archive = tmp_path / "handed.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("session.jsonl", forged_log("s-handed", "/"))
    app = launch(apps, scripted_llm, str(first))
    page = connected(app)
    wait_until(lambda: active(page), what="the window opens on PATH's session")

    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip at all")
    refused = cli_import(broken, target, app.data_dir)
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.strip().splitlines()) == 1 and "not a readable zip archive" in refused.stderr

    handed = cli_import(archive, target, app.data_dir)
    assert handed.returncode == 0, handed.stderr
    assert handed.stdout.split() == ["s-handed"]  # imported by the window's host, not refused
    shown = wait_until(
        lambda: (a := active(page)) and a["sessionId"] == "s-handed" and a, what="the window shows it"
    )
    assert shown["cwd"] == shown["workspace"] == str(target)  # under DIR's workspace, never "/"

    again = cli_import(archive, target, app.data_dir)
    assert again.returncode == 2 and "session s-handed is already here" in again.stderr
    listed = page.evaluate("window.harnessdesk.client.call('session.list', {}).then(r => r.value.items)")
    assert sum(1 for s in listed if s["sessionId"] == "s-handed") == 1
    assert app.close_window() == 0
