"""Helpers for the browser tests: a `harnessdesk serve` subprocess and page-level actions.

`HarnessServer` runs the real CLI (`harnessdesk serve`, forked from a warm interpreter) on its
own data dir with the session cwd set to a work dir, reads the one-time URL from its first
stdout line and can be killed and started again on the same port with the same `--token-file`
(so a page's stored token stays valid across a restart).
"""

from __future__ import annotations

import atexit
import base64
import collections
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Any

from playwright.sync_api import (
    Browser,
    BrowserContext,
    CDPSession,
    ConsoleMessage,
    Frame,
    Locator,
    Page,
    Position,
    ViewportSize,
    expect,
)
from playwright.sync_api import Error as PlaywrightError

from contract.methods import AnyMethod
from tests.support.warm_cli import Forked, WarmCli

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"HarnessDesk listening on (http://127\.0\.0\.1:(\d+)/\?token=\S+)")
START_TIMEOUT = 30.0
MODEL = "scripted-small"

VIEWPORT: ViewportSize = {"width": 1280, "height": 800}
CHROMIUM = "/usr/bin/chromium"
"""The full browser: the benches and anything that shows a window run it."""
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
SUITE_CHROMIUM = os.environ.get(
    "HARNESSDESK_TEST_CHROMIUM", HEADLESS_SHELL if os.access(HEADLESS_SHELL, os.X_OK) else CHROMIUM
)
"""What the browser tests drive: the same Chromium built as its headless shell (Debian
`chromium-headless-shell`, what Playwright itself runs for headless tests) when it is installed,
the full browser otherwise (docs/decisions/the-suites-headless-shell.md)."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--process-per-site",
    "--disable-features=SpareRendererForSitePerProcess",
]
"""`--process-per-site`: every page of a site shares one renderer process, as long as one of
them stays open; the warm context keeps one open (`keep_renderer`)."""


_warm: WarmCli | None = None


def warm_cli(env: dict[str, str]) -> WarmCli:
    """The test process's warm interpreter for `harnessdesk serve` (tests/support/warm_cli.py):
    each start is a fresh fork that runs what the binary runs, without importing the app again
    (docs/decisions.md, "Servers forked from a warm interpreter")."""
    global _warm
    if _warm is None:
        _warm = WarmCli(env)
        atexit.register(_warm.close)
    return _warm


class HarnessServer:
    """One `harnessdesk serve` process; `start()` / `kill()` / `restart()` keep port and token."""

    def __init__(
        self, root: Path, provider_args: list[str], port: int = 0, env: dict[str, str] | None = None
    ) -> None:
        self.root = root
        self.env = env or {}
        """Variables set for the server over this process's own."""
        self.data_dir = root / "data"
        self.workdir = root / "work"
        """The host's cwd, hence every new session's cwd."""
        self.token_file = root / "token"
        self.provider_args = provider_args
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = port
        """0 until the first start (any free port) unless one is asked for."""
        self.url = ""
        self.proc: Forked | None = None
        self.starts = 0

    def command(self) -> list[str]:
        """What is run (forked from the warm interpreter, which runs exactly this: `start()`)."""
        return [
            sys.executable,
            "-m",
            "desktop",
            "serve",
            "--data-dir",
            str(self.data_dir),
            "--port",
            str(self.port),
            "--token-file",
            str(self.token_file),
            *self.provider_args,
        ]

    def start(self) -> str:
        """Start and wait for the listening line; returns the one-time URL."""
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.starts += 1
        out = self.root / f"serve-{self.starts}.out"
        err = self.root / f"serve-{self.starts}.err"
        env = {k: v for k, v in os.environ.items() if k != "HARNESSDESK_API_KEY"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        env.update(self.env)
        out.write_bytes(b"")
        err.write_bytes(b"")  # (the child truncates them again: both exist before it runs)
        self.proc = warm_cli(env).start(self.command()[3:], self.workdir, env, out, err)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            match = LISTENING.search(out.read_text(errors="replace"))
            if match:
                self.url = match.group(1)
                self.port = int(match.group(2))
                return self.url
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"harnessdesk serve did not start:\n{err.read_text(errors='replace')[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: the host vanishes mid-stream, like a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def restart(self) -> str:
        self.stop()
        return self.start()

    def stderr(self) -> str:
        path = self.root / f"serve-{self.starts}.err"
        return path.read_text(errors="replace") if path.exists() else ""


def openai_args(base_url: str) -> list[str]:
    return ["--provider", "openai-compatible", "--base-url", base_url, "--model", MODEL]


DEV_VALIDATE_SCRIPT = "globalThis.HARNESSDESK_DEV_VALIDATE = true;"
"""Run before the page's own scripts: the web client checks every value it receives against the
contract, as HARNESSDESK_DEV_VALIDATE=1 makes the host check what it sends (docs/architecture.md,
"Clients")."""

VALUE_MISMATCH = "the value does not fit the contract"
"""What the client logs (console.error) for a value that fails that check."""


STORAGE_KINDS = ",".join(
    [
        *("cookies", "local_storage", "indexeddb", "cache_storage", "service_workers"),
        *("file_systems", "shared_storage", "storage_buckets"),
    ]
)
"""What `Storage.clearDataForOrigin` wipes between two tests in the module's warm context:
everything a page can keep, except the HTTP cache (the point of keeping the context)."""


def new_context(browser: Browser, **options: object) -> BrowserContext:
    options.setdefault("viewport", VIEWPORT)
    # English unless a test asks for another language: the tests find elements by their English
    # words, and the page follows navigator.languages (docs/decisions.md, "Languages")
    options.setdefault("locale", "en-US")
    context = browser.new_context(**options)  # type: ignore[arg-type]
    context.add_init_script(DEV_VALIDATE_SCRIPT)
    return context


CONSOLE_KEPT = 30


class Contexts:
    """Browser contexts opened by one test; uncaught page errors, frames the client dropped
    because they did not fit the generated contract, and values that did not fit it, fail the
    test at teardown.

    `warm_page()` opens the test's first page in the warm context (docs/decisions.md, "One warm
    browser context per module"): a context whose HTTP and code caches outlive the test, but
    whose storage (localStorage, IndexedDB, cookies, ...) is wiped when the test ends, so each
    test still starts as a first visit would, minus the cost of fetching and compiling 136
    modules again. `new_page()` gives a context of its own (second windows, other options, a
    first load)."""

    def __init__(self, browser: Browser, warm: BrowserContext | None = None) -> None:
        self.browser = browser
        self.warm = warm
        self.contexts: list[BrowserContext] = []
        self.page_errors: list[str] = []
        self.warm_origins: set[str] = set()
        self.pages: list[Page] = []
        """Every page the test opened: what a failed test's report describes (diagnosis.py)."""
        self.console: collections.deque[str] = collections.deque(maxlen=CONSOLE_KEPT)
        """The last lines the pages logged, for the same report."""

    def new_page(self, url: str | None = None, *, browser: Browser | None = None, **options: object) -> Page:
        """`browser`: another than the suite's (the full Chromium: `full_browser`)."""
        context = new_context(browser or self.browser, **options)
        self.contexts.append(context)
        return self._open(context.new_page(), url)

    def warm_page(self, url: str) -> Page:
        """The test's page in the warm context (a context of its own when there is none)."""
        if self.warm is None:
            return self.new_page(url)
        assert own_pages(self.warm) == [], "the warm context still has a page of an earlier test"
        keep_renderer(self.warm, url)
        page = self.warm.new_page()
        page.on("framenavigated", lambda frame: self._visited(page, frame))
        return self._open(page, url)

    def _visited(self, page: Page, frame: Frame) -> None:
        origin = origin_of(frame.url) if frame == page.main_frame else None
        if origin:
            self.warm_origins.add(origin)

    def _open(self, page: Page, url: str | None) -> Page:
        self.pages.append(page)
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        page.on("console", self._on_console)
        if url is not None:
            open_app(page, url)
        return page

    def _on_console(self, message: ConsoleMessage) -> None:
        self.console.append(f"{message.type}: {message.text[:300]}")
        if message.type == "warning" and ": dropped a frame" in message.text:
            self.page_errors.append(message.text)
        if message.type == "error" and VALUE_MISMATCH in message.text:
            self.page_errors.append(message.text)

    def close(self) -> None:
        for context in self.contexts:
            with contextlib.suppress(Exception):
                context.close()
        if self.warm is not None:
            wipe(self.warm, self.warm_origins)


def origin_of(url: str) -> str | None:
    match = re.match(r"(https?://[^/?#]+)", url)
    return match.group(1) if match else None


_keepers: dict[int, Page] = {}
"""Per warm context (by id), the page that keeps its renderer process alive."""


def keep_renderer(context: BrowserContext, url: str) -> Page:
    """The context's keeper: a page that shows one static file (no script runs in it) of the
    app's site, open while the context lives, so the renderer process the test pages share stays
    up between tests instead of being started again, with a cold V8 and Blink, for each page
    (docs/decisions.md, "One renderer process per warm context")."""
    keeper = _keepers.get(id(context))
    if keeper is None or keeper.is_closed() or keeper.context is not context:
        keeper = context.new_page()
        keeper.goto(f"{origin_of(url)}/favicon.svg")
        _keepers[id(context)] = keeper
        context.on("close", lambda _: _forget(context))
    return keeper


def _forget(context: BrowserContext) -> None:
    _keepers.pop(id(context), None)


def own_pages(context: BrowserContext) -> list[Page]:
    """The context's pages, its keeper aside."""
    keeper = _keepers.get(id(context))
    return [page for page in context.pages if page is not keeper]


def wipe(context: BrowserContext, origins: set[str]) -> None:
    """Close the context's pages (its keeper aside), wipe what `origins` stored and drop the
    routes a test set, so the next test's page starts on a clean slate; the HTTP cache and the
    renderer process stay."""
    origins = origins | {o for o in (origin_of(p.url) for p in own_pages(context)) if o}
    for page in own_pages(context):
        with contextlib.suppress(Exception):
            page.close()
    keeper = _keepers.get(id(context))
    blank = context.new_page() if keeper is None else None
    try:
        target = keeper or blank
        assert target is not None  # one of the two is a page
        cdp = context.new_cdp_session(target)
        for origin in origins:
            cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": STORAGE_KINDS})
        cdp.detach()
    finally:
        if blank is not None:
            blank.close()
    context.clear_cookies()
    context.clear_permissions()
    # A route a test set on the context turns request interception on for every later page,
    # and Playwright turns the HTTP cache off while it is on: the streak's next tests would
    # fetch every module again (docs/decisions.md, "One warm browser context per module").
    context.unroute_all(behavior="ignoreErrors")


# ---- page actions ----------------------------------------------------------------------------


def open_app(page: Page, url: str) -> Page:
    """Open the one-time URL and wait until the UI is connected."""
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("data-connection", "connected")
    return page


def ensure_folder(page: Page) -> None:
    """With no session open and no workspace yet, New session and Enter ask for a folder
    (docs/decisions.md, "Review and context"): register the host's folder first, as a person who
    opened it before would have."""
    # "connected" can show before host.describe has answered: the host's folder comes from it
    page.wait_for_function("() => window.harnessdesk.app.manager.hostInfo !== null", timeout=30_000)
    page.evaluate(
        """async () => {
            const {client, app} = window.harnessdesk;
            if (app.manager.activeId || app.workspaces.items.length) return;
            const r = await client.call("workspace.create", {path: app.manager.hostInfo.cwd});
            if (!r.ok) throw new Error(r.error.message);
            app.workspaces.upsert(r.value.workspace);
        }"""
    )


def new_session(page: Page) -> str:
    """Click New session; returns the id of the (blank, active) session."""
    ensure_folder(page)
    before = page.evaluate("() => window.harnessdesk.app.manager.activeId")
    page.get_by_test_id("new-session").click()
    page.wait_for_function(
        "(before) => { const id = window.harnessdesk.app.manager.activeId; return id && id !== before; }",
        arg=before,
    )
    sid = str(page.evaluate("() => window.harnessdesk.app.manager.activeId"))
    expect(page.get_by_test_id("session-empty")).to_be_visible()
    return sid


def fresh_session(page: Page) -> str:
    """A new, empty session is active (even when the current one is already blank)."""
    active = page.evaluate("() => window.harnessdesk.app.manager.activeId")
    if active:
        blank = page.evaluate(
            "(id) => !!window.harnessdesk.app.manager.summaries.get(id)?.blank && "
            "window.harnessdesk.app.manager.active.fold.items.length === 0",
            active,
        )
        if blank:
            return str(active)
    return new_session(page)


def send(page: Page, text: str) -> None:
    ensure_folder(page)
    box = page.get_by_test_id("composer-input")
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")


def turn_ends(page: Page, count: int = 1) -> Locator:
    """The conversation's turn-end rows; waits until there are `count` of them."""
    ends = page.get_by_test_id("turn-end")
    expect(ends).to_have_count(count)
    return ends


def wait_idle(page: Page) -> None:
    """The running indicators are all gone."""
    expect(page.get_by_test_id("working-indicator")).to_be_hidden()
    expect(page.get_by_test_id("session-running-badge")).to_be_hidden()
    expect(page.get_by_test_id("composer-stop")).to_be_hidden()


def tool_call(call_id: str, name: str, **arguments: Any) -> tuple[str, str, str]:
    return (call_id, name, json.dumps(arguments))


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The `role: tool` messages of one recorded chat request."""
    return [m for m in request.get("messages", []) if m.get("role") == "tool"]


def shoot(page: Page, name: str) -> Path:
    """tests/screenshots/`name`.png (focus blurred, no caret, animations off): the one screenshot
    preamble of the browser modules."""
    shots = ROOT / "tests" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => document.activeElement?.blur?.()")
    return snap(page, shots / f"{name}.png")


STILL = """() => {
  const undo = [];
  for (const el of document.querySelectorAll("input,textarea,[contenteditable]")) {
    const before = [el.style.getPropertyValue("caret-color"), el.style.getPropertyPriority("caret-color")];
    el.style.setProperty("caret-color", "transparent", "important");
    undo.push(() => el.style.setProperty("caret-color", before[0], before[1]));
  }
  for (const animation of document.getAnimations()) {
    if (!animation.effect || animation.playbackRate === 0) continue;
    try {
      if (Number.isFinite(animation.effect.getComputedTiming().endTime)) animation.finish();
      else { animation.cancel(); undo.push(() => animation.play()); }
    } catch {}
  }
  document.documentElement.getBoundingClientRect();
  window.__snapDone = () => { for (const f of undo) try { f(); } catch {} delete window.__snapDone; };
}"""
"""What Playwright's `animations="disabled", caret="hide"` do before a shot: no caret, finite
animations at their end, endless ones stopped (and played again after)."""


_sessions: weakref.WeakKeyDictionary[Page, CDPSession] = weakref.WeakKeyDictionary()
"""Per page, the CDP session its screenshots are taken through (one, not one per shot)."""


def capture(page: Page) -> str:
    """The page's viewport as a base64 PNG (Chromium's fast encoder)."""
    params = {"format": "png", "optimizeForSpeed": True}
    cdp = _sessions.get(page)
    if cdp is not None:
        with contextlib.suppress(PlaywrightError):  # detached (the page went elsewhere): anew
            return str(cdp.send("Page.captureScreenshot", params)["data"])
    cdp = _sessions[page] = page.context.new_cdp_session(page)
    return str(cdp.send("Page.captureScreenshot", params)["data"])


def snap(page: Page, path: Path | str) -> Path:
    """A screenshot of the page's viewport to `path`, still (`STILL`), as PNG encoded by
    Chromium's fast path (`optimizeForSpeed`): the picture `page.screenshot(animations="disabled",
    caret="hide")` takes, with less of Chromium's CPU spent compressing it
    (docs/decisions/the-suites-shared-setups.md)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.evaluate(STILL)
    try:
        data = capture(page)
    finally:
        with contextlib.suppress(Exception):
            page.evaluate("() => window.__snapDone?.()")
    path.write_bytes(base64.b64decode(data))
    return path


def rpc(page: Page, method: AnyMethod, payload: dict[str, object]) -> Any:
    """Call a method (its handle) through the page's own client; the call must succeed (its
    value, as the page's wire JSON)."""
    result = page.evaluate("([m, p]) => window.harnessdesk.client.call(m, p)", [method.key, payload])
    assert isinstance(result, dict) and result["ok"], result
    return result["value"]


def session_item(page: Page, sid: str) -> Locator:
    """The sidebar row of session `sid`."""
    return page.locator(f'[data-testid="session-item"][data-session-id="{sid}"]')


def group(page: Page, title: str) -> Locator:
    """The sidebar group of the workspace titled `title`."""
    return page.get_by_test_id("workspace-group").filter(
        has=page.get_by_test_id("workspace-title").get_by_text(title, exact=True)
    )


def allow(page: Page, tool: str) -> None:
    """Allow once the approval card of `tool` (the next one may follow at once)."""
    card = page.locator(f"[data-testid=approval-card][data-tool-name='{tool}']")
    expect(card).to_have_count(1)
    rpc_id = card.get_attribute("data-rpc-id")
    card.get_by_test_id("approval-allow-once").click()
    expect(page.locator(f"[data-testid=approval-card][data-rpc-id='{rpc_id}']")).to_have_count(0)


def click_through_redraw(page: Page, target: Locator, redraw: str) -> None:
    """A person's click on `target` with the view under it redrawn between the press and the
    release (`redraw`: a page script; a frame from the host does this on a busy machine). The
    browser sends a click only when both land on one element."""
    box = target.bounding_box()
    assert box is not None, "the element to press is not shown"
    at: Position = {"x": min(12, box["width"] / 2), "y": box["height"] / 2}  # row tools sit at the end
    target.click(trial=True, position=at)  # scrolled into view and still, as a real click waits for
    box = target.bounding_box()
    assert box is not None, "the element to press is not shown"
    page.mouse.move(box["x"] + at["x"], box["y"] + at["y"])
    page.mouse.down()
    page.evaluate(redraw)
    page.mouse.up()


def wait_for_call(
    page: Page, predicate: str, arg: object = None, timeout: float = 30.0, every: float = 0.2
) -> Any:
    """Poll an async page script until it answers something truthy (its answer), at most
    `timeout` seconds. `page.wait_for_function` cannot do this: it takes the Promise an async
    script returns as a truthy answer and passes at once, however the call turns out."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        last = page.evaluate(predicate, arg)
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the page never answered truthy in {timeout:g} s (last: {last!r}):\n{predicate}"
            )
        page.wait_for_timeout(every * 1000)
