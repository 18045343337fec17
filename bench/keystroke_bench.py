"""Keystroke → character painted in the composer, on a busy machine: the real window
(pywebview/WebKitGTK under Xvfb) and Chromium side by side in one run (issue 48, goal 2).

    .venv/bin/python bench/keystroke_bench.py [--rounds 5] [--keys 40] [--gap 0.08] [--burners 2]
                                              [--json FILE] [--child] [--variant ...] [--webui-base DIR]

Two Xvfb displays, one per engine, so each keeps its own keyboard focus: on one the real app
(`tests.desktop.launch --webui webui --real-host`, driven over its automation socket), on the
other a headed Chromium (Playwright, Debian's binary) showing the same web UI from
`harnessdesk serve`; both on the scripted provider (idle: nothing streams). First a phrase is
typed with `xdotool type` into each composer and read back (every character, in order). Then, with
`--burners` busy-loop processes the bench starts and stops itself (bench/load.py), `--rounds`
rounds alternate the engines (which goes first alternates too): `--keys` letters typed `--gap`
seconds apart as real X key events, each key's latency from its send to the first painted frame
that shows it (bench/typing_probe.py: one clock per side, their offset measured before).
Goal: p99 ≤ 50 ms in each engine, judged on the rounds' p99s; Chromium is the window's baseline
(the same keys, X server kind and load). No assertions.

The window and each Xvfb start in a session of their own, as Playwright starts Chromium and a
desktop an app and its display server; the burners stay in this process's session. Linux
schedules sessions' groups fairly first, so a window in the burners' session gets a share of
what Chromium gets (docs/decisions/window-keystrokes.md). `--variant NAME:VAR=VALUE,...` adds a
window with other environment variables to the same run (`@session=shared`: beside the burners;
`@root=DIR`: an older checkout's code and page); `--webui-base DIR` a Chromium showing an older
page (its scripts and styles from DIR), for before/after in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import typing_probe as probe  # noqa: E402
from bench.load import Burners, load_now  # noqa: E402
from tests.desktop import driver, x11  # noqa: E402
from tests.support.scripted_llm import ScriptedLlmServer  # noqa: E402

PHRASE = "the quick brown fox jumps over the lazy dog"
WINDOWS = [("window", "inprocess"), ("window-child", "child")]
"""The window as it runs (its host on a thread of its process), and with `--child` also the
window with its host in a child process, side by side (docs/decisions/window-host-process.md)."""
CONNECTED = (
    "new Promise(r => { const t = () => document.documentElement.dataset.connection === 'connected'"
    " ? r(true) : setTimeout(t, 20); t(); })"
)


def window_variants(args: argparse.Namespace) -> list[tuple[str, dict[str, str]]]:
    """The windows to measure: the window as it runs, with `--child` the child host, and each
    `--variant NAME:VAR=VALUE,...` (the same window with those environment variables;
    `@session=shared` starts it in this process's session, with the burners)."""
    out = [(name, {"HARNESSDESK_WINDOW_HOST": host}) for name, host in WINDOWS[: 2 if args.child else 1]]
    for spec in args.variant:
        name, _, pairs = spec.partition(":")
        env = dict(pair.split("=", 1) for pair in pairs.split(",") if pair)
        out.append((name, {"HARNESSDESK_WINDOW_HOST": "inprocess", **env}))
    return out


class Engine:
    """One engine's page: evaluate JS in it, focus its X window, send keys to its display."""

    def __init__(self, name: str, display: str, evaluate: Callable[[str], Any], window: int) -> None:
        self.name, self.display, self.evaluate, self.window = name, display, evaluate, window
        self.keys = probe.XKeys(display)

    def focus(self) -> None:
        x11.xdotool(self.display, "windowfocus", "--sync", str(self.window))

    def close(self) -> None:
        self.keys.close()


def visible_window(display: str, pid: int | None, name: str, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = x11.find_windows(display, name, pid)
        if found:
            return found[-1]
        time.sleep(0.2)
    raise RuntimeError(f"no visible window {name!r} on {display}")


def phrase_check(engine: Engine) -> bool:
    """`xdotool type` a phrase into the composer: is it there whole, in order?"""
    engine.evaluate(probe.HOOK)
    engine.focus()
    x11.xdotool(engine.display, "type", "--delay", "30", PHRASE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if engine.evaluate(probe.TEXT) == PHRASE:
            return True
        time.sleep(0.1)
    return False


def one_round(engine: Engine, index: int, keys: int, gap: float, offset_ms: float) -> dict[str, Any]:
    if not engine.evaluate(probe.HOOK):
        raise RuntimeError(f"{engine.name}: the composer did not take the focus")
    engine.focus()
    text = probe.round_text(index, keys)
    sent = probe.type_keys(engine.keys, text, gap)
    log = probe.wait_painted(engine.evaluate, len(text), timeout=60)
    got = probe.latencies(sent, log, offset_ms)
    typed = engine.evaluate(probe.TEXT)
    return {
        **probe.figures(got["total"]),
        "page_p99": probe.figures(got["page"])["p99"],
        "missing": got["missing"],
        "text_ok": typed == text,
        "samples": [round(x, 2) for x in got["total"]],
    }


def measure(engines: list[Engine], args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for engine in engines:
        whole = phrase_check(engine)
        out[engine.name] = {"phrase_ok": whole, "calibration": probe.calibrate(engine.evaluate), "rounds": []}
    with Burners(args.burners):
        before = load_now()
        for r in range(args.rounds):
            order = engines if r % 2 == 0 else engines[::-1]
            for engine in order:
                offset = out[engine.name]["calibration"]["offset_ms"]
                out[engine.name]["rounds"].append(one_round(engine, r, args.keys, args.gap, offset))
        load = {"burners": args.burners, "before": before, "after": load_now()}
    for engine in engines:
        row = out[engine.name]
        samples = [x for r in row["rounds"] for x in r["samples"]]
        row["all"] = probe.figures(samples)
        missing = sum(r["missing"] for r in row["rounds"])
        wrong = sum(1 for r in row["rounds"] if not r["text_ok"])
        problems = []
        if missing:
            problems.append(f"{missing} keys never painted")
        if wrong:
            problems.append(f"{wrong} rounds' text not as typed")
        if not row["phrase_ok"]:
            problems.append("`xdotool type` phrase not whole")
        row["invalid"] = "; ".join(problems) or None
    return {"engines": out, "load": load, "keys": args.keys, "gap_s": args.gap, "rounds": args.rounds}


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def from_folder(route: Any, *, webui: Path) -> None:
    """Answer a script or style sheet from `webui` (an older checkout's page: `--webui-base`)."""
    path = urlsplit(route.request.url).path.lstrip("/")
    file = (webui / path).resolve()
    if path.endswith((".js", ".css")) and file.is_relative_to(webui) and file.is_file():
        kind = "text/javascript" if path.endswith(".js") else "text/css"
        route.fulfill(status=200, body=file.read_bytes(), headers={"content-type": kind})
    else:
        route.continue_()


def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, HarnessServer, open_app, openai_args

    procs: list[subprocess.Popen[Any]] = []
    engines: list[Engine] = []
    with tempfile.TemporaryDirectory(prefix="keystroke-bench-") as tmp, ScriptedLlmServer() as llm:
        xvfb_chromium, chromium_display = x11.start_xvfb(own_session=True)
        procs.append(xvfb_chromium)
        windows: list[tuple[str, str, subprocess.Popen[Any], Path]] = []
        for name, extra in window_variants(args):
            xvfb_window, window_display = x11.start_xvfb(own_session=True)
            procs.append(xvfb_window)
            sock = Path(tmp) / f"{name}.sock"
            root = Path(extra.get("@root", ROOT))
            cmd = [
                sys.executable,
                "-m",
                "tests.desktop.launch",
                "--webui",
                str(root / "webui"),
                "--real-host",
            ]
            cmd += ["--data-dir", str(Path(tmp) / f"{name}-data"), *openai_args(llm.base_url)]
            app = subprocess.Popen(
                cmd,
                cwd=root,
                env={
                    **os.environ,
                    **driver.window_env(window_display, sock),
                    **{k: v for k, v in extra.items() if not k.startswith("@")},
                },
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                # a session of its own, as Playwright starts Chromium and a desktop launcher an
                # app: the burners (this process's children) are not in its scheduling group
                start_new_session=extra.get("@session") != "shared",
            )
            procs.append(app)
            windows.append((name, window_display, app, sock))
        server = HarnessServer(Path(tmp) / "chromium", openai_args(llm.base_url))
        servers = [server]
        try:
            for name, window_display, app, sock in windows:
                page_w = driver.connect_ready(sock, CONNECTED, timeout=120)
                engines.append(
                    Engine(
                        name,
                        window_display,
                        lambda e, page=page_w: page.evaluate(e, timeout=60),
                        visible_window(window_display, app.pid, "^HarnessDesk$"),
                    )
                )
            url = server.start()
            chromiums = [("chromium", chromium_display, None, url)]
            if args.webui_base:  # its own server: a page's URL lets in one page
                xvfb_base, base_display = x11.start_xvfb(own_session=True)
                procs.append(xvfb_base)
                servers.append(HarnessServer(Path(tmp) / "chromium-base", openai_args(llm.base_url)))
                base_url = servers[-1].start()
                chromiums.append(("chromium-base", base_display, args.webui_base.resolve(), base_url))
            with sync_playwright() as pw:
                browsers = []
                for name, display, webui, page_url in chromiums:
                    browser = pw.chromium.launch(
                        executable_path=CHROMIUM,
                        headless=False,
                        args=[a for a in CHROMIUM_ARGS if a != "--headless"],
                        env={**os.environ, "DISPLAY": display},
                    )
                    browsers.append(browser)
                    page_c = browser.new_page(viewport=VIEWPORT)
                    page_c.set_default_navigation_timeout(120_000)  # a busy machine
                    if webui is not None:
                        page_c.route(f"{origin(page_url)}/**", partial(from_folder, webui=webui))
                    open_app(page_c, page_url)
                    engines.append(
                        Engine(
                            name,
                            display,
                            lambda e, page=page_c: page.evaluate(e),
                            visible_window(display, None, "."),
                        )
                    )
                figures = measure(engines, args)
                for browser in browsers:
                    browser.close()
        finally:
            for engine in engines:
                engine.close()
            for each in servers:
                each.stop()
            for proc in reversed(procs):
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    return figures


def report(figures: dict[str, Any]) -> None:
    load = figures["load"]
    print(
        f"keystroke → painted in the composer: {figures['rounds']} rounds x {figures['keys']} keys,"
        f" {figures['gap_s'] * 1000:.0f} ms apart, {load['burners']} CPU burners"
        f" (load {load['before']} -> {load['after']})"
    )
    print(f"{'engine':14}{'p50':>8}{'p99':>8}{'max':>9}{'page p99':>10}   p99 per round    clock offset")
    for name, row in figures["engines"].items():
        whole, cal = row["all"], row["calibration"]
        rounds = ", ".join(f"{r['p99']:.0f}" for r in row["rounds"])
        page = max(r["page_p99"] for r in row["rounds"])
        print(
            f"{name:14}{whole['p50']:8.1f}{whole['p99']:8.1f}{whole['max']:9.1f}{page:10.1f}   {rounds:16}"
            f" {cal['offset_ms']:+.2f} ± {cal['error_ms']:.2f} ms"
        )
        if row["invalid"]:
            print(f"   {name}: {row['invalid']}")
    print(
        "ms from the key's send (XTEST, this process) to the first painted frame showing it; page p99"
        " = the input event to that paint (the page's own clock); goal p99 ≤ 50 ms in each"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keys", type=int, default=40, help="keys per round")
    parser.add_argument("--gap", type=float, default=0.08, help="seconds between keys (~12 a second)")
    parser.add_argument("--burners", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--child", action="store_true", help="also the window with a child host")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME:VAR=VALUE,...",
        help="also a window with these environment variables (repeatable)",
    )
    parser.add_argument(
        "--webui-base",
        type=Path,
        metavar="WEBUI",
        help="also a Chromium whose scripts and styles come from this folder (an older page)",
    )
    args = parser.parse_args()
    started = time.monotonic()
    figures = run(args)
    report(figures)
    print(f"({time.monotonic() - started:.0f} s)")
    if args.json:
        for row in figures["engines"].values():
            for r in row["rounds"]:
                r.pop("samples")
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
