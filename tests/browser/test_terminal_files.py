"""The Terminal and Files panes as a person uses them (issue 44; docs/decisions.md, "Terminal and
files"), in headless Chromium against a real `harnessdesk serve`: Ctrl+` opens a terminal in the
session's folder running the login shell; what is typed runs and its output is read back from the
page (xterm.js's buffer and the rows it draws): `echo`, exit codes, `stty size` after the pane is
resized, `vim` opening (the alternate screen) and quitting; "Send to agent" quotes a selection
in the message box; a reload replays the scrollback; the Files pane lists the folder with git's
marks, follows a file created in the terminal, and opens files in the viewer (highlighted, line
numbers, a binary said, an image shown), from where a file is attached to the message.
Screenshots: tests/screenshots/panes-*.png."""

from __future__ import annotations

import base64
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from contract.methods import SESSION_CREATE, TERMINAL_LIST
from tests.browser.streak import stable_port
from tests.browser.support import HarnessServer, fresh_session, openai_args, rpc, shoot
from tests.support.scripted_llm import ScriptedLlmServer

pytestmark = pytest.mark.browser

BUFFER = """() => {
  const view = window.harnessdesk.app.terminalPane.active;
  return view ? view.text() : "";
}"""
ROWS = (
    "() => document.querySelector('[data-testid=terminal-view]:not([hidden]) .xterm-rows')?.textContent ?? ''"
)
SIZE_HELD = """() => {
  const t = window.harnessdesk.app.terminalPane.active.term;
  const seen = window.__sizeSeen ?? (window.__sizeSeen = { size: "", polls: 0 });
  const size = `${t.rows} ${t.cols}`;
  if (size === seen.size) seen.polls += 1;
  else Object.assign(seen, { size, polls: 0 });
  return seen.polls >= 5;
}"""
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture(scope="module")
def harness(
    tmp_path_factory: pytest.TempPathFactory, llm_server: ScriptedLlmServer
) -> Iterator[HarnessServer]:
    """The module's `harnessdesk serve`, its shells in a home of their own: this machine's
    ~/.bashrc is not what is tested, and a shell ended while it starts must not leave that
    file's state behind (a pyenv rehash killed midway left its lock)."""
    root = tmp_path_factory.mktemp("harness")
    (root / "home").mkdir()
    home = {"HOME": str(root / "home")}
    server = HarnessServer(root, openai_args(llm_server.base_url), port=stable_port("module"), env=home)
    server.start()
    yield server
    server.stop()


def wait_text(page: Page, needle: str, script: str = BUFFER) -> None:
    try:
        page.wait_for_function(f"(n) => ({script})().includes(n)", arg=needle, timeout=30_000)
    except Exception as exc:
        raise AssertionError(
            f"{needle!r} not shown; the terminal holds:\n{page.evaluate(BUFFER)[-800:]}"
        ) from exc


def type_line(page: Page, text: str) -> None:
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def open_terminal(page: Page) -> None:
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+Backquote")
    expect(page.get_by_test_id("terminal-pane")).to_be_visible()
    expect(page.get_by_test_id("terminal-tab")).not_to_have_count(0)
    expect(page.locator("[data-testid=terminal-view]:not([hidden]) .xterm-rows")).to_be_visible()
    type_line(page, "echo sh''ell-ready")
    wait_text(page, "shell-ready")


def test_a_terminal_runs_the_login_shell_in_the_session_folder(page: Page, harness: HarnessServer) -> None:
    fresh_session(page)
    open_terminal(page)
    type_line(page, "pwd; echo an''swer=$((6*7))")
    wait_text(page, "answer=42")
    wait_text(page, "answer=42", ROWS)  # drawn on the page, not only parsed
    assert str(harness.workdir.resolve()) in page.evaluate(BUFFER)
    type_line(page, "false; echo code=$?; (exit 5); echo code=$?")
    wait_text(page, "code=5")
    assert "code=1" in page.evaluate(BUFFER)
    type_line(page, "printf '\\033[38;5;196mred256\\033[0m \\033[38;2;0;200;0mgreen24\\033[0m\\n'")
    wait_text(page, "red256 green24")
    wait_text(page, "red256 green24", ROWS)
    colours = page.evaluate(
        """() => [...document.querySelectorAll("[data-testid=terminal-view]:not([hidden]) .xterm-rows span")]
            .filter((s) => !s.textContent.includes("printf"))
            .filter((s) => s.textContent.includes("red256") || s.textContent.includes("green24"))
            .map((s) => getComputedStyle(s).color)"""
    )
    # the 256-colour class (a rule in xterm's own style element) and the 24-bit colour (a style
    # set by script) both apply under the page's CSP
    assert "rgb(255, 0, 0)" in colours and "rgb(0, 200, 0)" in colours, colours

    # find in the scrollback (Ctrl+Shift+F): the search addon selects the match
    page.keyboard.press("Control+Shift+KeyF")
    find = page.get_by_test_id("terminal-find-input")
    expect(find).to_be_focused()
    find.fill("answer=4")
    page.wait_for_function(
        "() => window.harnessdesk.app.terminalPane.active.term.getSelection() === 'answer=4'"
    )
    find.press("Escape")
    expect(page.get_by_test_id("terminal-find-bar")).to_be_hidden()

    # a link printed by a program opens on a click (the web-links addon)
    page.locator("[data-testid=terminal-view]:not([hidden]) .xterm").click()
    type_line(page, "clear; echo see https://example.com/lin''ked here")
    wait_text(page, "see https://example.com/linked here", ROWS)
    page.evaluate(
        "() => { window.__opened = []; window.open = (u) => { window.__opened.push(u); return null; }; }"
    )
    row = page.locator(
        "[data-testid=terminal-view]:not([hidden]) .xterm-rows > div",
        has_text="see https://example.com/linked",
    ).last
    box = row.bounding_box()
    assert box is not None
    cols = page.evaluate("() => window.harnessdesk.app.terminalPane.active.term.cols")
    cell = box["width"] / cols
    x = box["x"] + (len("see ") + 5) * cell
    y = box["y"] + box["height"] / 2
    page.mouse.move(x - cell, y)
    page.mouse.move(x, y)
    page.mouse.click(x, y)
    page.wait_for_function("() => window.__opened.length > 0")
    assert page.evaluate("() => window.__opened") == ["https://example.com/linked"]

    # a resize reaches the shell: the pane is made taller with its grip's keys
    before = page.evaluate("() => window.harnessdesk.app.terminalPane.active.term.rows")
    grip = page.get_by_test_id("terminal-grip")
    grip.focus()
    for _ in range(4):
        grip.press("Shift+ArrowUp")
    page.wait_for_function("(b) => window.harnessdesk.app.terminalPane.active.term.rows > b", arg=before)
    # Each key press is a layout and a fit of its own (a ResizeObserver), so the rows grow in
    # steps: wait until they have held for half a second, and ask again if the shell's answer
    # was taken while the last size was still on its way to the terminal.
    page.wait_for_function(SIZE_HELD, polling=100, timeout=30_000)
    page.locator("[data-testid=terminal-view]:not([hidden]) .xterm").click()
    shown = ""
    for _ in range(5):
        cols, rows = page.evaluate(
            "() => { const t = window.harnessdesk.app.terminalPane.active.term; return [t.cols, t.rows]; }"
        )
        shown = f"{rows} {cols}"
        type_line(page, "clear; stty size")
        try:
            page.wait_for_function(f"(n) => ({BUFFER})().includes(n)", arg=shown, timeout=5_000)
            break
        except Exception:
            continue
    else:
        raise AssertionError(f"{shown!r} not shown; the terminal holds:\n{page.evaluate(BUFFER)[-800:]}")
    shoot(page, "panes-terminal-1280")


@pytest.mark.skipif(
    shutil.which("vim") is None and shutil.which("vi") is None, reason="no vim on this machine"
)
def test_vim_opens_and_quits_and_send_to_agent_quotes_a_selection(page: Page, harness: HarnessServer) -> None:
    fresh_session(page)
    open_terminal(page)
    editor = "vim" if shutil.which("vim") else "vi"
    type_line(page, f"{editor} -u NONE notes.txt")
    page.wait_for_function(
        "() => window.harnessdesk.app.terminalPane.active.term.buffer.active.type === 'alternate'",
        timeout=30_000,
    )
    page.keyboard.type("ihello from vim")
    page.keyboard.press("Escape")
    type_line(page, ":wq")
    page.wait_for_function(
        "() => window.harnessdesk.app.terminalPane.active.term.buffer.active.type === 'normal'",
        timeout=30_000,
    )
    assert (harness.workdir / "notes.txt").read_text() == "hello from vim\n"
    type_line(page, "echo vim-ex''ited=$?")
    wait_text(page, "vim-exited=0")

    type_line(page, "echo FAILED test_thing; echo 'assert 1 == 2'")
    wait_text(page, "assert 1 == 2")
    page.evaluate("() => window.harnessdesk.app.terminalPane.active.term.selectAll()")
    send = page.get_by_test_id("terminal-send")
    expect(send).to_be_enabled()
    send.click()
    value = page.get_by_test_id("composer-input").input_value()
    assert "> FAILED test_thing" in value and "> assert 1 == 2" in value
    page.get_by_test_id("composer-input").fill("")


def test_a_reload_replays_the_scrollback_and_close_ends_the_shell(page: Page, harness: HarnessServer) -> None:
    sid = fresh_session(page)
    open_terminal(page)
    type_line(page, "echo before-re''load-$((2+2))")
    wait_text(page, "before-reload-4")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    page.wait_for_function("(s) => window.harnessdesk.app.manager.activeId === s", arg=sid)
    expect(page.get_by_test_id("terminal-pane")).to_be_visible()  # the layout is remembered
    wait_text(page, "before-reload-4")  # replayed from the host's scrollback
    expect(page.get_by_test_id("terminal-tab")).to_have_count(1)
    page.get_by_test_id("terminal-new").click()
    expect(page.get_by_test_id("terminal-tab")).to_have_count(2)
    listed = rpc(page, TERMINAL_LIST, {"sessionId": sid})["items"]
    assert len(listed) == 2 and all(t["alive"] for t in listed)
    page.get_by_test_id("terminal-close").first.click()
    expect(page.get_by_test_id("terminal-tab")).to_have_count(1)
    assert len(rpc(page, TERMINAL_LIST, {"sessionId": sid})["items"]) == 1

    # the stream reconnects while the shell is printing: what it printed meanwhile is shown
    page.locator("[data-testid=terminal-view]:not([hidden]) .xterm").click()
    type_line(page, "sleep 1; echo after-re''connect-$((3+3))")
    page.evaluate("() => window.harnessdesk.app.connection.reconnect('test')")
    wait_text(page, "after-reconnect-6")

    # a shell starts only when the person asks: not on a session switch, nor on a reload, with
    # the pane open
    other = rpc(page, SESSION_CREATE, {"cwd": str(harness.workdir)})["sessionId"]
    page.wait_for_function("(s) => window.harnessdesk.app.manager.summaries.has(s)", arg=other)
    page.evaluate("(s) => window.harnessdesk.app.open(s)", other)
    page.wait_for_function("(s) => window.harnessdesk.app.manager.activeId === s", arg=other)
    expect(page.get_by_test_id("terminal-note")).to_be_visible()
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    page.wait_for_function("(s) => window.harnessdesk.app.manager.activeId === s", arg=other)
    expect(page.get_by_test_id("terminal-note")).to_be_visible()
    assert rpc(page, TERMINAL_LIST, {"sessionId": other})["items"] == []
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+Backquote")  # the pane is open, the focus elsewhere: start one
    expect(page.get_by_test_id("terminal-tab")).to_have_count(1)
    expect(page.get_by_test_id("terminal-note")).to_be_hidden()
    assert len(rpc(page, TERMINAL_LIST, {"sessionId": other})["items"]) == 1
    page.keyboard.press("Control+Backquote")  # focused: hides it
    page.keyboard.press("Control+Backquote")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_files_pane_lists_marks_follows_and_shows_files(page: Page, harness: HarnessServer) -> None:
    work = harness.workdir
    project = work / "proj"
    (project / "src").mkdir(parents=True, exist_ok=True)
    (project / ".gitignore").write_text("*.log\n")
    (project / "src" / "main.py").write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(3000)))
    (project / "tracked.txt").write_text("one\n")
    env = {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "HOME": str(work),
        "PATH": "/usr/bin:/bin",
    }
    for args in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.email=t@x", "-c", "user.name=t", "commit", "-qm", "s"],
    ):
        subprocess.run(["git", "-C", str(project), *args], check=True, env=env, capture_output=True)
    (project / "tracked.txt").write_text("two\n")
    (project / "debug.log").write_text("noise\n")
    (project / "blob.bin").write_bytes(b"\0\1\2" * 50)
    (project / "dot.png").write_bytes(PNG)
    created = rpc(page, SESSION_CREATE, {"cwd": str(project)})
    page.wait_for_function("(s) => window.harnessdesk.app.manager.summaries.has(s)", arg=created["sessionId"])
    page.evaluate("(s) => window.harnessdesk.app.open(s)", created["sessionId"])
    page.wait_for_function("(s) => window.harnessdesk.app.manager.activeId === s", arg=created["sessionId"])

    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+Shift+KeyE")
    pane = page.get_by_test_id("files-pane")
    expect(pane).to_be_visible()
    page.keyboard.press("Control+Shift+KeyG")  # the review: the Changes view
    expect(page.get_by_test_id("changes-panel")).to_be_visible()
    page.keyboard.press("Control+Shift+KeyG")
    expect(page.get_by_test_id("changes-panel")).to_be_hidden()
    entry = lambda path: pane.locator(f"[data-testid=files-entry][data-path='{path}']")  # noqa: E731
    expect(entry("tracked.txt")).to_have_attribute("data-git", "modified")
    expect(entry("src")).to_be_visible()
    expect(entry("debug.log")).to_have_count(0)  # ignored: hidden until asked
    pane.get_by_test_id("files-show-ignored").check()
    expect(entry("debug.log")).to_have_attribute("data-git", "ignored")
    pane.get_by_test_id("files-show-ignored").uncheck()
    expect(entry("debug.log")).to_have_count(0)

    # a file made in the terminal shows in the tree (the folder's watch)
    open_terminal(page)
    type_line(page, "echo made > from-terminal.txt")
    expect(entry("from-terminal.txt")).to_have_attribute("data-git", "untracked", timeout=15_000)

    entry("src").click()
    expect(entry("src/main.py")).to_be_visible()
    pane.get_by_test_id("files-filter").fill("main")
    expect(pane.get_by_test_id("files-entry")).to_have_count(2)  # src and src/main.py
    pane.get_by_test_id("files-filter").fill("")
    entry("src/main.py").click()
    viewer = page.get_by_test_id("file-viewer")
    expect(viewer).to_be_visible()
    expect(viewer.get_by_test_id("file-viewer-meta")).to_have_text("2,000 of 6,000 lines")
    expect(viewer.locator(".file-code .hljs-keyword").first).to_have_text("def")
    assert viewer.locator(".file-gutter").first.inner_text().split("\n")[:3] == ["1", "2", "3"]
    body = viewer.get_by_test_id("file-viewer-body")
    body.evaluate("(b) => { b.scrollTop = b.scrollHeight; b.dispatchEvent(new Event('scroll')); }")
    expect(viewer.get_by_test_id("file-viewer-meta")).to_have_text("4,000 of 6,000 lines")
    shoot(page, "panes-files-viewer-1280")
    viewer.get_by_test_id("file-viewer-attach").click()
    expect(page.locator("[data-testid=context-chip][data-path='src/main.py']")).to_have_count(1)
    viewer.get_by_test_id("file-viewer-back").click()

    entry("blob.bin").click()
    expect(viewer.get_by_test_id("file-viewer-binary")).to_be_visible()
    viewer.get_by_test_id("file-viewer-back").click()
    entry("dot.png").click()
    expect(viewer.get_by_test_id("file-viewer-image")).to_be_visible()
    assert viewer.get_by_test_id("file-viewer-image").evaluate("(img) => img.naturalWidth") == 1

    page.set_viewport_size({"width": 800, "height": 800})  # narrow: the pane is a drawer
    box = pane.bounding_box()
    assert box is not None and box["x"] + box["width"] >= 799
    shoot(page, "panes-drawer-800")
    page.set_viewport_size({"width": 1280, "height": 800})
