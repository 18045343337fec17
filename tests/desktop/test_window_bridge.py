"""The window's fetch bridge, driven from the page (real app, real WebKitGTK, Xvfb)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.desktop import x11
from tests.desktop.support import App, AppFactory, gui_test

pytestmark = [pytest.mark.gui, pytest.mark.timeout(180)]


class SharedApp:
    """The module's one window: these tests each ask something of the bridge and change nothing
    the next one reads (docs/decisions/the-suites-shared-setups.md), so they share the app
    instead of starting one each; it is started again if it died (an abort: `gui_test`)."""

    def __init__(self, factory: AppFactory, opened: Path) -> None:
        self.factory = factory
        self.opened = opened
        """Where the module's stand-in system browser writes the URLs it is asked to open."""
        self.browser = opened.with_name("browser.sh")
        self.browser.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
        self.browser.chmod(0o755)
        self.app: App | None = None

    def get(self) -> App:
        if self.app is None or self.app.proc.poll() is not None:
            self.factory.stop_all()
            self.app = self.factory.launch(env={"BROWSER": f"{self.browser} %s"})
        return self.app

    def stop_all(self) -> None:
        """What `gui_test` calls after an abort: the next `get()` starts it again."""
        self.factory.stop_all()
        self.app = None


@pytest.fixture(scope="module")
def apps(display: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedApp]:
    root = tmp_path_factory.mktemp("bridge")
    shared = SharedApp(AppFactory(display, root), root / "opened.txt")
    yield shared
    shared.stop_all()


POST_JSON = """
harnessdeskBridge.fetch("/api/echo?x=1", {
  method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(%s),
}).then(async r => ({status: r.status, type: r.headers.get("content-type"), json: await r.json()}))
"""


@gui_test
def test_bridge_is_injected_before_the_app_boots(apps: SharedApp) -> None:
    app = apps.get()
    page = app.page()
    boot = page.evaluate("window.bootState")
    # the bridge is there before the page's first script; pywebview's own API comes when WebKit
    # reports the load finished, which may be before or after the page's module ran
    assert boot["bridgeAtBoot"] == "object"
    assert page.evaluate("location.href") == "harnessdesk://app/index.html"
    assert page.evaluate(
        "new Promise(r => window.bridgeReady ? r(true) : addEventListener("
        "'harnessdeskbridgeready', () => r(true)))"
    )


@gui_test
def test_unary_json_and_binary_bodies(apps: SharedApp) -> None:
    page = apps.get().page()
    reply = page.evaluate(POST_JSON % json.dumps({"text": "héllo 🙂", "n": 1}))
    assert reply["status"] == 200
    assert reply["type"] == "application/json"
    echoed = reply["json"]
    assert echoed["method"] == "POST" and echoed["path"] == "/api/echo" and echoed["query"] == "x=1"
    assert json.loads(echoed["body"]) == {"text": "héllo 🙂", "n": 1}
    assert echoed["window"] == {"client": "window", "carrier": "bridge"}  # marks privileged origin

    sent = page.evaluate(
        """harnessdeskBridge.fetch("/api/echo", {method: "PUT", body: new Uint8Array([0xff, 0, 0xfe])})
           .then(r => r.json()).then(j => j.bodyLength)"""
    )
    assert sent == 3  # not valid UTF-8: crossed as base64
    got = page.evaluate(
        """harnessdeskBridge.fetch("/api/binary").then(r => r.arrayBuffer())
           .then(b => Array.from(new Uint8Array(b)).every((v, i) => v === i % 256) && b.byteLength)"""
    )
    assert got == 1024


@gui_test
def test_sse_stream_arrives_in_order_with_split_frames_rejoined(apps: SharedApp) -> None:
    page = apps.get().page()
    result = page.evaluate(
        """harnessdeskBridge.fetch("/api/events.split?n=300", {headers: {accept: "text/event-stream"}})
           .then(r => testHelpers.readSse(r).then(x => ({status: r.status,
             type: r.headers.get("content-type"), ...x})))"""
    )
    assert result["status"] == 200
    assert result["type"].startswith("text/event-stream")
    assert [e["i"] for e in result["events"]] == list(range(300))
    assert all(e["text"] == f"héllo 🙂 {e['i']}" for e in result["events"])
    assert result["chunks"] < 300  # batched: far fewer pushes than the 600 ASGI messages


@gui_test
def test_cancel_from_the_page_cancels_the_host_task(apps: SharedApp) -> None:
    app = apps.get()
    page = app.page()
    # ReadableStream.cancel() (what a reader does when it stops early)
    count = page.evaluate(
        """harnessdeskBridge.fetch("/api/events.forever?tag=reader")
           .then(r => testHelpers.readSse(r, {limit: 3})).then(x => x.events.length)"""
    )
    assert count == 3
    app.wait_log("closed reader")
    # The fetch's AbortSignal, on a stream
    aborted = page.evaluate(
        """(async () => {
             const ctl = new AbortController();
             const r = await harnessdeskBridge.fetch("/api/events.forever?tag=signal", {signal: ctl.signal});
             const reader = r.body.getReader();
             await reader.read();
             ctl.abort();
             try { while (!(await reader.read()).done); return "ended"; } catch (e) { return e.name; }
           })()"""
    )
    assert aborted == "AbortError"
    app.wait_log("closed signal")
    # The AbortSignal on a unary call still running on the host
    page.evaluate(
        """window.ctl = new AbortController();
           window.call = harnessdeskBridge.fetch("/api/slow?tag=unary", {method: "POST", body: "{}",
             headers: {"content-type": "application/json"}, signal: ctl.signal})
             .then(() => "resolved", e => e.name); 1"""
    )
    app.wait_log("started unary")
    assert page.evaluate("ctl.abort(), window.call") == "AbortError"
    app.wait_log("cancelled unary")


@gui_test
def test_only_api_paths_of_this_app_are_served(apps: SharedApp) -> None:
    page = apps.get().page()
    statuses = page.evaluate(
        """Promise.all(["/index.html", "/api/../main.js", "/apix"].map(u =>
             harnessdeskBridge.fetch(u).then(r => r.status)))"""
    )
    assert statuses == [404, 404, 404]
    foreign = page.evaluate(
        """harnessdeskBridge.fetch("https://example.org/api/echo").then(() => "served", e => e.name)"""
    )
    assert foreign == "TypeError"
    # Python refuses too, whatever the JS half is told
    direct = page.evaluate(
        """Promise.all(["http://example.org/api/echo", "//example.org/api/echo", "/api/x/../../y"]
             .map(url => pywebview.api.bridge_fetch({id: "d", url, method: "GET", headers: []})
             .then(r => r.status)))"""
    )
    assert direct == [404, 404, 404]
    # The page's own fetch cannot reach the API: the scheme handler answers /api/* with 404
    plain = page.evaluate("""fetch("/api/echo").then(r => "status " + r.status, e => e.name)""")
    assert plain == "status 404"


@gui_test
def test_no_listening_socket_for_the_api(apps: SharedApp) -> None:
    app = apps.get()
    page = app.page()
    assert page.evaluate(POST_JSON % "{}")["status"] == 200  # the API works…
    # …and the app and its children listen on no TCP socket at all
    assert app.listening_tcp() == set()


@gui_test
def test_external_links_open_in_the_system_browser(apps: SharedApp) -> None:
    opened = apps.opened
    page = apps.get().page()
    page.evaluate("document.getElementById('external').click()")
    deadline = time.monotonic() + 20  # the browser command runs in a process of its own
    while not (opened.exists() and opened.read_text().strip()):
        assert time.monotonic() < deadline, "the system browser was never asked to open the link"
        time.sleep(0.05)
    assert page.evaluate("location.href") == "harnessdesk://app/index.html"
    assert opened.read_text().split() == ["https://example.org/"]


def answer_save_dialog(display: str, text: str | None) -> None:
    """Type a path into the GTK save dialog and press Return (None: press Escape)."""
    deadline = time.monotonic() + 20
    while not (found := x11.find_windows(display, "^Save file$")):
        assert time.monotonic() < deadline, "no save dialog"
        time.sleep(0.1)
    env = {**os.environ, "DISPLAY": display}
    subprocess.run(["xdotool", "windowfocus", "--sync", str(found[0])], env=env, check=True)
    if text is not None:  # GTK preselects the suggested name without its extension: replace it all
        subprocess.run(["xdotool", "key", "ctrl+a"], env=env, check=True)
        subprocess.run(["xdotool", "type", "--delay", "5", text], env=env, check=True)
    subprocess.run(["xdotool", "key", "Return" if text is not None else "Escape"], env=env, check=True)


@gui_test
def test_export_downloads_go_through_the_native_save_dialog(apps: SharedApp, tmp_path: Path) -> None:
    app = apps.get()
    page = app.page()
    page.evaluate("window.dl = harnessdeskBridge.download('/api/session.export?sessionId=s1'); 1")
    target = tmp_path / "export.zip"
    answer_save_dialog(app.display, str(target))
    result = page.evaluate("window.dl")
    assert result == {"ok": True, "status": 200, "path": str(target), "bytes": 4 + 256 * 64}
    assert target.read_bytes()[:4] == b"PK\x03\x04" and not target.with_name("export.zip.part").exists()
    # a plain link to the export is intercepted the same way; Escape cancels without a file
    page.evaluate(
        """(() => { const a = document.createElement("a"); a.href = "/api/session.export?sessionId=s2";
           a.textContent = "export"; document.body.append(a); a.click(); return 1; })()"""
    )
    answer_save_dialog(app.display, None)
    assert page.evaluate("harnessdeskBridge.download('/api/nope').then(r => r.status)") == 404
    assert page.evaluate("location.href") == "harnessdesk://app/index.html"


@gui_test
def test_permission_requests_are_denied_without_crashing_the_window(apps: SharedApp) -> None:
    """Every permission request is denied by the app (none is ever shown to the user)."""
    app = apps.get()
    page = app.page()
    outcome = page.evaluate(
        "Promise.all([Notification.requestPermission(),"
        " navigator.mediaDevices.getUserMedia({audio: true}).then(() => 'granted', e => e.name)])"
    )
    assert outcome[0] == "denied"
    assert outcome[1] in {"NotAllowedError", "NotFoundError", "OverconstrainedError"}  # no device here
    time.sleep(0.5)
    assert app.proc.poll() is None  # the window is still up…
    assert page.evaluate(POST_JSON % "{}")["status"] == 200  # …and its bridge still answers
