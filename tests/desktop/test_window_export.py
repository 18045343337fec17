"""Export in the real window (issue 46, item 7): the native save dialog takes the file, and the
page then says where it went, the path, with "Show in folder", which hands the folder to the
desktop's file manager (the real `xdg-open`, its default application for folders a recorder
named by a per-test XDG configuration). The host is the real one; the window is pywebview's
under Xvfb.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.desktop.support import AppFactory, gui_test
from tests.desktop.test_window_bridge import answer_save_dialog
from tests.desktop.test_window_folders import active, connected, wait_until
from tests.support.scripted_llm import ScriptedLlmServer

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]


def recorder_desktop(root: Path) -> dict[str, str]:
    """The environment of a desktop whose default application for folders records its arguments
    in `root/opened.txt`."""
    (root / "data" / "applications").mkdir(parents=True)
    (root / "config").mkdir()
    recorder = root / "recorder.sh"
    recorder.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" >> {root / 'opened.txt'}\n")
    recorder.chmod(0o755)
    (root / "data" / "applications" / "recorder.desktop").write_text(
        f"[Desktop Entry]\nType=Application\nName=Recorder\nExec={recorder} %f\nMimeType=inode/directory;\n"
    )
    defaults = "[Default Applications]\ninode/directory=recorder.desktop\n"
    (root / "config" / "mimeapps.list").write_text(defaults)
    return {
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_DATA_DIRS": f"{root / 'data'}:/usr/local/share:/usr/share",  # GTK reads its own there
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_CURRENT_DESKTOP": "",
        "DESKTOP_SESSION": "",
    }


@gui_test
def test_export_says_where_it_saved_and_shows_the_folder(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    project, saved = tmp_path / "project", tmp_path / "exports"
    project.mkdir()
    saved.mkdir()
    desktop = tmp_path / "xdg"
    app = apps.launch(
        "--webui",
        str(Path(__file__).resolve().parents[2] / "webui"),
        "--real-host",
        "--provider",
        "openai-compatible",
        "--base-url",
        scripted_llm.base_url,
        "--model",
        "m",
        str(project),
        env=recorder_desktop(desktop),
    )
    page = connected(app)
    wait_until(lambda: active(page), what="the window opens on PATH's session")
    assert page.evaluate("window.harnessdesk.app.canOpenPath()") is True
    page.evaluate("document.querySelector('[data-testid=export-session]').click()")
    target = saved / "tea.zip"
    answer_save_dialog(app.display, str(target))
    wait_until(lambda: target.exists(), what="the archive is written")
    toast = wait_until(
        lambda: page.evaluate(
            "[...document.querySelectorAll('[data-testid=toast]')].map((t) => t.textContent).join('|')"
        ),
        what="the page says where it saved",
    )
    assert f"Exported to {target}" in toast
    page.evaluate("document.querySelector('[data-testid=export-show-folder]').click()")
    log = desktop / "opened.txt"
    deadline = time.monotonic() + 20  # xdg-open starts the application in a process of its own
    while not (log.exists() and log.read_text().strip()):
        assert time.monotonic() < deadline, "the folder was never handed to the file manager"
        time.sleep(0.1)
    assert log.read_text().split("\n")[0] == str(saved)
    assert app.close_window() == 0
