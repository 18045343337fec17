"""The Terminal pane in the desktop window (pywebview over WebKitGTK, under Xvfb) with the real
host behind the bridge (docs/decisions.md, "Terminal and files"): the pane opens the login shell
in the session's folder, real X key events type into xterm.js, the output is read back from the
page, and closing the window leaves no shell, and nothing the shell started, running (the
process table is checked)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from host.procs.tree import table
from tests.desktop import x11
from tests.desktop.support import AppFactory, gui_test

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]

BUFFER = "(() => { const v = window.harnessdesk.app.terminalPane.active; return v ? v.text() : ''; })()"


@pytest.fixture(autouse=True)
def shell_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shells start in a home of their own: this machine's ~/.bashrc is not what is tested,
    and a shell ended while it starts must not leave that file's state behind (a pyenv rehash
    killed midway left its lock, and every later login shell waited a minute)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    return home


def wait_until(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


@gui_test
def test_the_window_runs_a_terminal_and_closing_it_ends_every_shell(apps: AppFactory, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    app = apps.launch("--webui", str(ROOT / "webui"), "--real-host", "--provider", "local")
    page = app.page()
    wait_until(lambda: page.evaluate("document.documentElement.dataset.connection === 'connected'"))
    sid = page.evaluate(
        "(async () => { const {client, app} = window.harnessdesk;"
        f" const r = await client.call('session.create', {{cwd: {json.dumps(str(folder))}}});"
        " if (!r.ok) throw new Error(r.error.message); return r.value.sessionId; })()"
    )
    wait_until(lambda: page.evaluate(f"window.harnessdesk.app.manager.summaries.has({json.dumps(sid)})"))
    page.evaluate(f"(window.harnessdesk.app.open({json.dumps(sid)}), true)")
    x11.xdotool(app.display, "windowfocus", "--sync", str(app.window()))
    x11.xdotool(app.display, "key", "ctrl+grave")  # Ctrl+`: the terminal, focused
    wait_until(lambda: page.evaluate("!!window.harnessdesk.app.terminalPane.active"))
    wait_until(lambda: page.evaluate("document.activeElement?.classList.contains('xterm-helper-textarea')"))
    x11.xdotool(
        app.display,
        "type",
        "--delay",
        "15",
        "sleep 1000 & a=$!; f=.s-$$; setsid sh -c 'echo $$ > '$f'; exec sleep 1001' & "
        "while [ ! -s $f ]; do sleep 0.05; done; echo pids:$$:$a:$(cat $f):$(pwd):end",
    )
    x11.xdotool(app.display, "key", "Return")
    try:
        found = wait_until(lambda: re.search(r"pids:(\d+):(\d+):(\d+):(\S+):end", page.evaluate(BUFFER)))
    except AssertionError:
        raise AssertionError(f"no pids line; the terminal holds:\n{page.evaluate(BUFFER)[-1500:]}") from None
    pids = {int(p) for p in found.groups()[:3]}
    assert found.group(4) == str(folder.resolve())  # the session's folder
    assert pids <= set(table()), "the shell and its processes run"
    assert page.evaluate("window.harnessdesk.app.terminalPane.active.term.buffer.active.length") > 0

    assert app.close_window(60) == 0
    wait_until(lambda: not pids & set(table()), timeout=30)
    assert not any(p for p in pids if os.path.exists(f"/proc/{p}"))
