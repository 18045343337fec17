"""Window lifecycle: clean close, single instance, remembered geometry, `--serve`, screenshot."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import httpx
import pytest

from tests.desktop import x11
from tests.desktop.hostapp import GATE
from tests.desktop.support import ROOT, AppFactory, gui_test

pytestmark = [pytest.mark.gui, pytest.mark.timeout(180)]
URL_LINE = re.compile(r"^HarnessDesk listening on http://127\.0\.0\.1:(\d+)/\?token=([\w-]{20,})$")


@gui_test
def test_closing_the_window_cancels_streams_shuts_the_host_down_and_exits_0(apps: AppFactory) -> None:
    app = apps.launch()
    page = app.page()
    page.evaluate(
        """harnessdeskBridge.fetch("/api/events.forever?tag=open").then(r => {
             window.openReader = r.body.getReader(); return window.openReader.read(); }).then(() => 1)"""
    )
    page.evaluate(
        """harnessdeskBridge.fetch("/api/slow?tag=pending", {method: "POST", body: "{}",
             headers: {"content-type": "application/json"}}); 1"""
    )
    app.wait_log("started open")
    app.wait_log("started pending")
    assert app.close_window() == 0
    log = app.host_log()
    assert "closed open" in log and "cancelled pending" in log and log[-1] == "shutdown"
    assert log.index("closed open") < log.index("shutdown")
    saved = json.loads((app.data_dir / "window.json").read_text())
    assert saved["width"] >= 720 and saved["height"] >= 480
    assert not (app.data_dir / "instance.json").exists()


@gui_test
def test_second_launch_focuses_the_first_and_exits_without_a_host(apps: AppFactory) -> None:
    first = apps.launch()
    first.page()
    started = time.monotonic()
    second = apps.launch(data_dir=first.data_dir)
    assert second.wait(30) == 0
    assert f"(pid {first.pid}); focused its window" in second.stdout()
    assert time.monotonic() - started < 15
    assert len(x11.find_windows(first.display, "^HarnessDesk$")) == 1
    assert first.proc.poll() is None
    assert "shutdown" not in first.host_log()  # the second built no host and stopped none
    assert first.close_window() == 0
    assert first.host_log().count("shutdown") == 1


@gui_test
def test_size_is_remembered_and_kept_above_the_minimum(apps: AppFactory, tmp_path: Path) -> None:
    data = tmp_path / "geometry"
    data.mkdir()
    (data / "window.json").write_text(json.dumps({"width": 900, "height": 640, "x": 20, "y": 30}))
    app = apps.launch(data_dir=data)
    app.page()
    assert x11.window_geometry(app.display, app.window()) == (900, 640)
    assert app.close_window() == 0
    (data / "window.json").write_text(json.dumps({"width": 300, "height": 200}))
    app = apps.launch(data_dir=data)
    app.page()
    assert x11.window_geometry(app.display, app.window()) == (720, 480)
    assert app.close_window() == 0


@gui_test
def test_serve_prints_the_url_and_a_browser_reaches_the_same_host(apps: AppFactory) -> None:
    app = apps.launch("--serve")
    page = app.page()
    line = app.stdout().splitlines()[0]
    match = URL_LINE.match(line)
    assert match, line
    port, token = int(match.group(1)), match.group(2)
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
        assert client.post("/api/echo", json={}).status_code == 401  # the fence holds
        echoed = client.post("/api/echo", json={"a": 1}, headers={"authorization": f"Bearer {token}"})
        assert echoed.status_code == 200
        assert echoed.json()["window"] is None  # a browser is never marked as the window
    assert {p for _, p in app.listening_tcp()} == {port}  # the loopback server only
    marked = page.evaluate("harnessdeskBridge.fetch('/api/echo').then(r => r.json()).then(j => j.window)")
    assert marked == {"client": "window", "carrier": "bridge"}
    assert app.close_window() == 0


@gui_test
def test_screenshot_of_the_window(apps: AppFactory) -> None:
    """The real webui/ on the real host when both exist (else the test page); look at the PNG."""
    webui = ROOT / "webui"
    args = ("--webui", str(webui), "--real-host") if (webui / "index.html").is_file() else ()
    app = apps.launch(*args)
    page = app.page()
    page.evaluate("new Promise(r => setTimeout(r, 2500))")
    shot = x11.screenshot(app.display, ROOT / "tests" / "screenshots" / "desktop-window.png")
    assert shot.stat().st_size > 1000
    assert page.evaluate("location.protocol") == "harnessdesk:"
    assert app.close_window() == 0


@gui_test
def test_the_window_opens_while_the_host_is_built_and_waiting_calls_are_answered_after(
    apps: AppFactory, tmp_path: Path
) -> None:
    """The host is built on its own thread: with its build held, the window appears and the
    page's bridge is up; a call made meanwhile waits and is answered once the host exists."""
    data_dir = tmp_path / "gated"
    data_dir.mkdir()
    (data_dir / GATE).write_text("", encoding="utf-8")
    app = apps.launch(data_dir=data_dir)
    app.window()
    page = app.page()
    page.evaluate(
        """window.early = "waiting"; harnessdeskBridge.fetch("/api/echo", {method: "POST", body: "early",
             headers: {"content-type": "application/json"}}).then(r => r.json())
             .then(b => { window.early = b.body; }); 1"""
    )
    assert (data_dir / GATE).exists() and page.evaluate("window.early") == "waiting"
    (data_dir / GATE).unlink()
    deadline = time.monotonic() + 60
    while page.evaluate("window.early") == "waiting":
        assert time.monotonic() < deadline, "the waiting call was never answered"
        time.sleep(0.05)
    assert page.evaluate("window.early") == "early"
    assert app.close_window() == 0
    assert app.host_log()[-1] == "shutdown"
    # not while GTK starts: the host's build waited for the window
    assert app.host_log()[0] == "build started, window created: True"
