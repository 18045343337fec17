"""The window's part of bench/first_load_bench.py: the real app in WebKitGTK under Xvfb.

The app (`tests.desktop.launch --webui webui --real-host`) is started once per variant (with
and without the module preload list, HARNESSDESK_NO_MODULE_PRELOAD=1), and its page is
reloaded `runs` times: each reload loads webui/ again through the `harnessdesk://` scheme
(answered on the app's GTK thread: desktop/gtkshell.py). Per reload: wall from the reload to
`data-connection=connected` (polled every 20 ms through the automation socket), the page's own
`loadEventEnd` (every module fetched and run) and the CPU of the app and its WebKit processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from host.server.preload import OFF
from tests.desktop import driver, x11

ROOT = Path(__file__).resolve().parents[1]
READY = (
    "new Promise(r => { const t = () => (!window.__benchOld && "
    "document.documentElement.dataset.connection === 'connected') ? r(true) : setTimeout(t, 20); t(); })"
)
LOAD_END = "performance.getEntriesByType('navigation')[0].loadEventEnd"


def tree_cpu(pid: int) -> float:
    """Seconds of CPU of `pid` and its descendants (their reaped children included), from /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
            times[int(entry)] = sum(int(f) for f in fields[11:15]) / tick

    def under(p: int) -> bool:
        while p > 1:
            if p == pid:
                return True
            p = parents.get(p, 0)
        return False

    return sum(t for p, t in times.items() if under(p))


def reloads(page: driver.Page, sock: Path, pid: int, runs: int) -> list[dict[str, float]]:
    out: list[dict[str, float]] = []
    for _ in range(runs + 1):  # the first is a warm-up
        cpu, started = tree_cpu(pid), time.perf_counter()
        page.evaluate("window.__benchOld = true; setTimeout(() => location.reload(), 0); true")
        page.close()
        page = driver.connect_ready(sock, READY, timeout=120)
        wall = time.perf_counter() - started
        out.append(
            {"wall": wall * 1000, "cpu": (tree_cpu(pid) - cpu) * 1000, "load": page.evaluate(LOAD_END)}
        )
    page.close()
    return out[1:]


def run_window(llm_url: str, runs: int) -> dict[str, list[dict[str, float]]]:
    """variant -> per-reload figures, the variants' apps one after the other on one Xvfb."""
    xvfb, display = x11.start_xvfb()
    results: dict[str, list[dict[str, float]]] = {}
    try:
        for variant, extra in (("window waterfall", {OFF: "1"}), ("window preload", {})):
            with tempfile.TemporaryDirectory(prefix="first-load-window-") as tmp:
                sock, cwd = Path(tmp) / "w.sock", Path(tmp) / "work"
                cwd.mkdir()
                env = {k: v for k, v in os.environ.items() if k != OFF}
                env.update({**driver.window_env(display, sock), "PYTHONPATH": str(ROOT), **extra})
                cmd = [
                    sys.executable,
                    "-m",
                    "tests.desktop.launch",
                    "--webui",
                    str(ROOT / "webui"),
                    "--real-host",
                ]
                cmd += ["--data-dir", str(Path(tmp) / "data"), "--provider", "openai-compatible"]
                cmd += ["--base-url", llm_url, "--model", "scripted-small"]
                app = subprocess.Popen(
                    cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                try:
                    page = driver.connect_ready(sock, READY, timeout=120)
                    results[variant] = reloads(page, sock, app.pid, runs)
                finally:
                    app.terminate()
                    app.wait(30)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    return results


def summary(results: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    import statistics

    return {
        variant: {key: round(statistics.median(r[key] for r in runs), 1) for key in ("wall", "cpu", "load")}
        for variant, runs in results.items()
    }
