"""End to end with the real host (`build_host` → `host.api.open_host`) behind the window's bridge.

The only fake is at the network edge: the scripted OpenAI-compatible server stands in for the
LLM. A prompt streams through the bridge into the store; closing the window mid-turn leaves
that turn ended `aborted {by: "disposed"}` in SQLite; `--serve` shows a browser the same host.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path

import httpx
import pytest

from desktop.rendering import has_render_node
from tests.desktop import x11
from tests.desktop.support import AppFactory, gui_test
from tests.support.scripted_llm import Reply, ScriptedLlmServer
from tests.support.shadows import SHADOW_TOKENS, blur_radii

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]

RPC = """
window.rpc = async (method, payload) => {
  const r = await harnessdeskBridge.fetch("/api/" + method, {method: "POST",
    headers: {"content-type": "application/json"},
    body: JSON.stringify({type: "client-request", rpcId: "r" + Math.random(), method, payload})});
  const body = await r.json();
  if (!body.result.ok) throw new Error(JSON.stringify(body.result));
  return body.result.value;
};
window.mux = [];
harnessdeskBridge.fetch("/api/events.mux").then(async r => {
  const reader = r.body.getReader(); const dec = new TextDecoder(); let buf = "";
  for (;;) { const {value, done} = await reader.read(); if (done) break;
    buf += dec.decode(value, {stream: true}); let cut;
    while ((cut = buf.indexOf("\\n\\n")) >= 0) { const block = buf.slice(0, cut); buf = buf.slice(cut + 2);
      for (const line of block.split("\\n"))
        if (line.startsWith("data: ")) window.mux.push(JSON.parse(line.slice(6))); } }
});
1
"""


def turn_ends(data_dir: Path, sid: str) -> list[dict[str, object]]:
    with sqlite3.connect(data_dir / "harnessdesk.sqlite3") as db:
        rows = db.execute(
            "SELECT json FROM events WHERE session_id = ? AND type = 'turn/end' ORDER BY seq", (sid,)
        ).fetchall()
    return [json.loads(r[0]) for r in rows]


def wait_until(predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


@gui_test
def test_prompt_streams_through_the_bridge_and_close_aborts_the_running_turn(
    apps: AppFactory, scripted_llm: ScriptedLlmServer
) -> None:
    scripted_llm.reset()
    scripted_llm.enqueue(
        Reply(text="hello from the window", chunk_size=3, delay=0.01),
        Reply(text="this answer never finishes " * 5, chunk_size=4, delay=0.01, hang_after=3),
    )
    provider = [
        "--provider",
        "openai-compatible",
        "--base-url",
        scripted_llm.base_url,
        "--model",
        "scripted-small",
    ]
    app = apps.launch("--real-host", "--serve", *provider)
    page = app.page()
    page.evaluate(RPC)
    sid = page.evaluate("rpc('session.create', {}).then(v => v.sessionId)")
    prompt = "rpc('session.prompt', {sessionId: %s, mode: 'queue', content: [{type: 'text', text: %s}]})"
    page.evaluate(prompt % (json.dumps(sid), json.dumps("say hello")))
    wait_until(lambda: turn_ends(app.data_dir, sid))
    mux = page.evaluate("JSON.stringify(window.mux)")
    assert sid in mux and "hel" in mux  # live frames for this session crossed the bridge
    history = page.evaluate(f"rpc('session.history', {{sessionId: {json.dumps(sid)}}})")
    assert "hello from the window" in json.dumps(history)

    # a browser joining through --serve sees the window's session
    match = re.match(
        r"^HarnessDesk listening on (http://127\.0\.0\.1:\d+)/\?token=(\S+)$", app.stdout().splitlines()[0]
    )
    assert match
    envelope = {"type": "client-request", "rpcId": "b1", "method": "session.list", "payload": {}}
    listed = httpx.post(
        f"{match.group(1)}/api/session.list",
        json=envelope,
        headers={"authorization": f"Bearer {match.group(2)}"},
    )
    assert listed.status_code == 200 and sid in listed.text

    page.evaluate(prompt % (json.dumps(sid), json.dumps("now a long answer")))
    wait_until(lambda: len(scripted_llm.requests) >= 2)
    wait_until(lambda: "this" in page.evaluate("JSON.stringify(window.mux)"))  # the turn is streaming
    assert app.close_window(60) == 0
    ends = turn_ends(app.data_dir, sid)
    assert len(ends) == 2
    assert ends[0]["data"]["reason"] == {"kind": "completed"}  # type: ignore[index]
    assert ends[1]["data"]["reason"] == {"kind": "aborted", "by": "disposed"}, ends[1]  # type: ignore[index]


@gui_test
def test_a_user_types_a_prompt_in_the_window_and_the_answer_streams_in(
    apps: AppFactory, scripted_llm: ScriptedLlmServer
) -> None:
    """Through the real web UI with real key events, as a person would; the answer grows live."""
    answer = "Paris is the capital of France."
    scripted_llm.reset()
    scripted_llm.enqueue(Reply(text=answer, chunk_size=2, delay=0.05))
    provider = ["--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m"]
    app = apps.launch("--webui", str(ROOT / "webui"), "--real-host", *provider)
    page = app.page()
    wait_until(lambda: page.evaluate("document.documentElement.dataset.connection === 'connected'"))
    # with no folder yet Enter asks for one (docs/decisions.md, "Review and context"): this person
    # opened the launch folder before
    page.evaluate(
        "(async () => { const {client, app} = window.harnessdesk;"
        " const r = await client.call('workspace.create', {path: app.manager.hostInfo.cwd});"
        " if (!r.ok) throw new Error(r.error.message);"
        " app.workspaces.upsert(r.value.workspace); return true; })()"
    )
    x11.xdotool(app.display, "windowfocus", "--sync", str(app.window()))  # no window manager: as a click
    page.evaluate("document.querySelector('[data-testid=composer-input]').focus()")
    x11.xdotool(app.display, "type", "--delay", "20", "What is the capital of France?")
    x11.xdotool(app.display, "key", "Return")
    lengths: list[int] = []

    def finished() -> bool:
        text = page.evaluate(
            "[...document.querySelectorAll('[data-testid=msg-assistant]')].map(e => e.textContent).join('')"
        )
        lengths.append(len(text))
        return answer in text

    wait_until(finished)
    assert any(0 < n < len(answer) for n in lengths), lengths  # seen part-way: it streamed
    # every stylesheet applied (served with its type: nosniff refuses a typeless one)
    assert page.evaluate("[...document.styleSheets].every(s => s.cssRules.length > 0)")
    # the page came with its module preload list (host/server/preload.py) and WebKit honours it
    assert page.evaluate("document.querySelectorAll('link[rel=modulepreload]').length") > 100
    assert page.evaluate("document.createElement('link').relList.supports('modulepreload')")
    # painted without a GPU (Xvfb has none): shadows drawn without blur, which WebKitGTK would
    # paint again every frame (docs/decisions/cheap-scroll-frames.md)
    software = not has_render_node()
    painted = page.evaluate("document.documentElement.dataset.paint ?? null")
    assert painted == ("software" if software else None)
    shadow = page.evaluate(SHADOW_TOKENS)
    assert blur_radii(shadow) and (max(blur_radii(shadow)) == 0) == software, shadow
    x11.screenshot(app.display, ROOT / "tests" / "screenshots" / "desktop-window-answer.png")
    assert app.proc.poll() is None
    assert app.listening_tcp() == set()  # still no API socket


@gui_test
def test_a_browser_joins_the_windows_sessions_through_serve(
    apps: AppFactory, scripted_llm: ScriptedLlmServer
) -> None:
    """`harnessdesk --serve`: Chromium opens the one-time URL and lists the window's session."""
    from playwright.sync_api import expect, sync_playwright

    from tests.browser.support import CHROMIUM, CHROMIUM_ARGS

    scripted_llm.reset()
    scripted_llm.enqueue(Reply(text="answered in the window"))
    provider = ["--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m"]
    app = apps.launch("--webui", str(ROOT / "webui"), "--real-host", "--serve", *provider)
    page = app.page()
    page.evaluate(RPC)
    sid = page.evaluate("rpc('session.create', {}).then(v => v.sessionId)")
    prompt = "rpc('session.prompt', {sessionId: %s, mode: 'queue', content: [{type: 'text', text: 'hi'}]})"
    page.evaluate(prompt % json.dumps(sid))
    wait_until(lambda: turn_ends(app.data_dir, sid))
    url = app.stdout().splitlines()[0].removeprefix("HarnessDesk listening on ")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            tab = browser.new_page(locale="en-US")
            tab.goto(url)
            assert "token" not in tab.url  # the one-time link redirected to a clean address
            item = tab.locator(f'[data-testid="session-item"][data-session-id="{sid}"]')
            expect(item).to_be_visible(timeout=15_000)
            item.get_by_test_id("session-open").click()
            answer = tab.get_by_test_id("msg-assistant")
            expect(answer).to_contain_text("answered in the window", timeout=15_000)
        finally:
            browser.close()


@gui_test
def test_a_host_that_cannot_start_shows_one_message_in_the_window(apps: AppFactory) -> None:
    """The window opens while the host is built; a real host that cannot be built (here an
    unknown --provider) leaves the window open with one clear message, not a spinner forever and
    not a retry loop. Closing it ends with that reason in one line and exit 2."""
    app = apps.launch("--webui", str(ROOT / "webui"), "--real-host", "--provider", "no-such-route")
    page = app.page()
    wait_until(lambda: page.evaluate("document.documentElement.dataset.connection === 'failed'"))
    cards = page.evaluate(
        "[...document.querySelectorAll('#overlay .state-card')]"
        ".map(c => c.dataset.testid + ': ' + c.innerText)"
    )
    assert len(cards) == 1 and cards[0].startswith("host-failed-state: HarnessDesk could not start"), cards
    reason = page.evaluate("document.querySelector('[data-testid=host-failed-reason]').textContent")
    assert reason.startswith("unknown provider 'no-such-route'"), reason
    x11.screenshot(app.display, ROOT / "tests" / "screenshots" / "desktop-host-failed.png")
    assert page.evaluate("document.documentElement.dataset.connection") == "failed"  # no retry since
    assert app.close_window() == 2
    ours = [line for line in app.stderr().splitlines() if line.startswith("harnessdesk:")]
    assert ours == [f"harnessdesk: the host could not start: {reason}"]
    assert "Traceback" not in app.stderr()
