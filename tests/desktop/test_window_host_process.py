"""The window's host in a child process (docs/decisions/window-host-process.md), for real: the
window under Xvfb starts `harnessdesk serve --window` on a private Unix socket and the bridge
forwards to it. Closing the window leaves no child behind; a child that dies gives the page one
clear "host failed" answer and the window keeps answering.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.desktop.support import App, AppFactory, descendants, gui_test, listening_tcp
from tests.desktop.test_window_real_host import RPC
from tests.support.scripted_llm import Reply, ScriptedLlmServer

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]


def wait_until(predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


def cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def host_children(app: App) -> list[int]:
    """The window's host processes: `serve --window` below the window's process."""
    return [pid for pid in descendants(app.pid) if "serve" in cmdline(pid) and "--window" in cmdline(pid)]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")


def picker_kind(page: Any) -> str:
    """A native host refuses the in-page browser's listing and names the picker it serves."""
    return str(page.evaluate("rpc('host.listDirectory', {}).then(() => 'browse', e => e.message)"))


CHILD = {"HARNESSDESK_WINDOW_HOST": "child"}


def provider(llm: ScriptedLlmServer) -> list[str]:
    return ["--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "scripted-small"]


@gui_test
def test_the_host_runs_in_a_child_the_bridge_forwards_to_and_closing_leaves_none(
    apps: AppFactory, scripted_llm: ScriptedLlmServer
) -> None:
    scripted_llm.reset()
    scripted_llm.enqueue(Reply(text="hello from the child", chunk_size=3, delay=0.01))
    app = apps.launch("--real-host", "--serve", *provider(scripted_llm), env=CHILD)
    page = app.page()
    page.evaluate(RPC)
    (child,) = wait_until(lambda: host_children(app))
    # the engine is in the child: the window's process never opened the store
    assert not any("harnessdesk.db" in os.readlink(f) for f in Path(f"/proc/{app.pid}/fd").iterdir()
                   if os.path.islink(f))  # fmt: skip
    # the folder dialog is still the window's (asked over the child's channel): `native`
    assert '"capability":"native"' in picker_kind(page)
    sid = page.evaluate("rpc('session.create', {}).then(v => v.sessionId)")
    prompt = "rpc('session.prompt', {sessionId: %s, mode: 'queue', content: [{type: 'text', text: 'hi'}]})"
    page.evaluate(prompt % json.dumps(sid))
    wait_until(lambda: "child" in page.evaluate("JSON.stringify(window.mux)"))  # streamed through it
    history = page.evaluate(f"rpc('session.history', {{sessionId: {json.dumps(sid)}}})")
    assert "hello from the child" in json.dumps(history)
    # the bridge's refusals are its own, unchanged
    refused = page.evaluate("harnessdeskBridge.fetch('/not-api').then(r => r.status, e => 'error: ' + e)")
    assert refused == "error: TypeError: harnessdeskBridge: the bridge serves only /api/* of this app" or (
        refused == 404
    ), refused

    # `--serve`: the child serves the loopback site itself; the window's process listens on nothing
    match = re.match(
        r"^HarnessDesk listening on (http://127\.0\.0\.1:(\d+))/\?token=(\S+)$", app.stdout().splitlines()[0]
    )
    assert match, app.stdout()
    assert int(match.group(2)) in {port for _, port in listening_tcp([child])}
    assert not listening_tcp([app.pid])
    envelope = {"type": "client-request", "rpcId": "b1", "method": "session.list", "payload": {}}
    bearer = {"authorization": f"Bearer {match.group(3)}"}
    listed = httpx.post(f"{match.group(1)}/api/session.list", json=envelope, headers=bearer)
    assert listed.status_code == 200 and sid in listed.text

    assert app.close_window(60) == 0
    assert not alive(child)
    assert not host_children(app)


@gui_test
def test_a_host_child_that_dies_gives_the_page_one_clear_error_and_the_window_keeps_answering(
    apps: AppFactory, scripted_llm: ScriptedLlmServer
) -> None:
    app = apps.launch("--webui", str(ROOT / "webui"), "--real-host", *provider(scripted_llm), env=CHILD)
    page = app.page()
    wait_until(lambda: page.evaluate("document.documentElement.dataset.connection === 'connected'"))
    (child,) = wait_until(lambda: host_children(app))
    os.kill(child, signal.SIGKILL)
    # the page's stream ends, its reconnect hears "host failed": one message, no retry loop
    wait_until(lambda: page.evaluate("document.documentElement.dataset.connection === 'failed'"))
    cards = page.evaluate("[...document.querySelectorAll('#overlay .state-card')].map(c => c.dataset.testid)")
    assert cards == ["host-failed-state"], cards
    reason = page.evaluate("document.querySelector('[data-testid=host-failed-reason]').textContent")
    assert reason.startswith("the host process stopped (exit code -9)"), reason
    # a call now is answered at once, with the marker, not left hanging
    answer = page.evaluate(
        "harnessdeskBridge.fetch('/api/session.list', {method: 'POST', body: '{}'})"
        ".then(async r => [r.status, r.headers.get('x-harnessdesk-host'), await r.text()])"
    )
    assert answer[:2] == [503, "failed"] and answer[2].startswith("the host process stopped"), answer
    assert page.evaluate("1 + 1") == 2  # the window itself still answers
    assert app.close_window(60) == 0
    assert "Traceback" not in app.stderr()


@gui_test
def test_the_in_process_host_is_the_default(apps: AppFactory, scripted_llm: ScriptedLlmServer) -> None:
    """Without `HARNESSDESK_WINDOW_HOST=child` the host runs in the window's process: no child."""
    app = apps.launch("--real-host", *provider(scripted_llm))
    page = app.page()
    page.evaluate(RPC)
    assert '"capability":"native"' in picker_kind(page)
    assert not host_children(app)
    assert app.close_window(60) == 0
