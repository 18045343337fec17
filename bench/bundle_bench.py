"""Bundle size and start-up of the frozen app, against the source checkout in the same run.

    python bench/bundle_bench.py [--runs 3] [--bundle dist/harnessdesk] [--no-window] [--no-self-test]

Sizes: dist/harnessdesk/ (symlinks counted as links), the .deb and .tar.gz next to it, and what
the build trimmed (dist/harnessdesk-report.json). Timings, each in a fresh data dir, frozen and
source runs interleaved so machine load hits both alike:
- window: spawn → a visible "HarnessDesk" window under Xvfb (xdotool) → the page's pywebview
  API present (the bridge is ready; asked through the app's automation socket,
  `HARNESSDESK_AUTOMATION`) → the host's first answer through the bridge (`host.describe`:
  the app is usable);
- serve: spawn → the first stdout line `HarnessDesk listening on …` → the page at its URL
  answered (the line comes before the host is built);
- self-test: `doctor --self-test` end to end (model load + one streamed turn).
The page cache is warm (dropping it would slow every process on the machine); the first run of
each kind is the coldest and is reported as well. Each milestone also records the CPU seconds
the app's processes (its session: WebKit's web and network processes included) had used by then: on a
shared machine that figure moves far less with other people's load than the wall clock does.
Prints figures and frozen/source ratios.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.desktop import driver, x11  # noqa: E402

MB = 1024 * 1024
LISTENING = "HarnessDesk listening on "
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
DESCRIBE = """
(async () => {
  const body = {type: "client-request", rpcId: "bench", method: "host.describe", payload: {}};
  const init = {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)};
  const answer = await (await window.harnessdeskBridge.fetch("/api/host.describe", init)).json();
  return answer.result.ok;
})()
"""


def session_cpu(sid: int) -> float:
    """CPU seconds (user + system) of every live process in session `sid`."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:  # fields after the name: state ppid pgrp session … utime stime
            total += int(fields[11]) + int(fields[12])
    return total / CLOCK_TICKS


def dir_bytes(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


def sizes(bundle: Path) -> dict[str, float]:
    """MB figures for the bundle, installers and what trimming/stripping took out."""
    dist = bundle.parent
    out: dict[str, float] = {"bundle": dir_bytes(bundle) / MB}
    for key, pattern in (("deb", "harnessdesk_*.deb"), ("tar.gz", "harnessdesk-*.tar.gz")):
        found = sorted(dist.glob(pattern))
        if found:
            out[key] = found[-1].stat().st_size / MB
    report = dist / "harnessdesk-report.json"
    if report.exists():
        data = json.loads(report.read_text(encoding="utf-8"))
        out["trimmed"] = data.get("trimmed_bytes", 0) / MB
        out["stripped"] = data.get("stripped_bytes", 0) / MB
        out["untrimmed (estimate)"] = out["bundle"] + out["trimmed"] + out["stripped"]
    return out


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group we created (WebKit's helper processes included)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _spawn(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cmd,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
        stdout=subprocess.PIPE,
        stderr=log.open("wb"),
        start_new_session=True,
    )


def time_window(cmd: list[str], display: str, scratch: Path) -> list[float]:
    """Seconds to a visible window, to the bridge ready, to the host's first answer through it,
    then the CPU seconds used by each of those three moments."""
    data = Path(tempfile.mkdtemp(dir=scratch))
    sock = data.with_suffix(".sock")
    env = driver.window_env(display, sock)
    start = time.monotonic()
    proc = _spawn([*cmd, "--data-dir", str(data)], env, data.with_suffix(".log"))
    try:
        mapped = None
        deadline = start + 60
        while mapped is None and time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{cmd[0]} exited {proc.returncode}; see {data.with_suffix('.log')}")
            if x11.find_windows(display, "HarnessDesk"):
                mapped = time.monotonic() - start
                mapped_cpu = session_cpu(proc.pid)
            else:
                time.sleep(0.03)
        if mapped is None:
            raise RuntimeError("no window within 60 s")
        page = driver.connect_ready(sock, timeout=60)
        ready, ready_cpu = time.monotonic() - start, session_cpu(proc.pid)
        if page.evaluate(DESCRIBE, timeout=60) is not True:
            raise RuntimeError("host.describe through the bridge failed")
        answered, answered_cpu = time.monotonic() - start, session_cpu(proc.pid)
        page.close()
        return [mapped, ready, answered, mapped_cpu, ready_cpu, answered_cpu]
    finally:
        _stop(proc)


def time_serve(cmd: list[str], scratch: Path) -> list[float]:
    """Seconds to the `listening` line, the CPU seconds used by then, and seconds to the first
    answer: the page at the printed URL, as a browser opened at once gets it (the line comes
    before the host is built, docs/decisions/cold-start.md)."""
    data = Path(tempfile.mkdtemp(dir=scratch))
    start = time.monotonic()
    proc = _spawn([*cmd, "serve", "--data-dir", str(data), "--port", "0"], {}, data.with_suffix(".log"))
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode(errors="replace")
        elapsed, cpu = time.monotonic() - start, session_cpu(proc.pid)
        if not line.startswith(LISTENING):
            raise RuntimeError(f"serve printed {line!r}; see {data.with_suffix('.log')}")
        url = urllib.parse.urlsplit(line.split()[-1])
        conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=60)
        conn.request("GET", f"/?{url.query}")
        status = conn.getresponse().status
        answered = time.monotonic() - start
        if status not in (200, 303):
            raise RuntimeError(f"serve's page answered {status}; see {data.with_suffix('.log')}")
        return [elapsed, cpu, answered]
    finally:
        _stop(proc)


def time_self_test(cmd: list[str]) -> float:
    start = time.monotonic()
    result = subprocess.run([*cmd, "doctor", "--self-test"], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"self-test failed:\n{result.stdout}{result.stderr}")
    return time.monotonic() - start


def interleaved(runs: int, frozen: Callable[[], object], source: Callable[[], object]) -> dict[str, list]:
    out: dict[str, list] = {"frozen": [], "source": []}
    for _ in range(runs):
        out["frozen"].append(frozen())
        out["source"].append(source())
    return out


def summarise(label: str, frozen: list[float], source: list[float], rows: list[tuple]) -> None:
    rows.append((f"{label}, first run", frozen[0], source[0]))
    rows.append((f"{label}, median", statistics.median(frozen), statistics.median(source)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "harnessdesk")
    parser.add_argument("--no-window", action="store_true", help="skip the Xvfb window timing")
    parser.add_argument("--no-self-test", action="store_true", help="skip the self-test timing")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    exe = args.bundle / "harnessdesk"
    if not exe.exists():
        print(f"no bundle at {args.bundle}: python packaging/build.py first", file=sys.stderr)
        return 2
    frozen_cmd, source_cmd = [str(exe)], [sys.executable, "-m", "desktop"]
    figures: dict[str, object] = {"sizes_mb": sizes(args.bundle)}
    rows: list[tuple] = []
    with tempfile.TemporaryDirectory(prefix="bundle-bench-") as tmp:
        scratch = Path(tmp)
        serve = interleaved(
            args.runs, lambda: time_serve(frozen_cmd, scratch), lambda: time_serve(source_cmd, scratch)
        )
        for i, label in enumerate(("serve ready (s)", "serve ready (CPU s)", "serve's first answer (s)")):
            summarise(label, [v[i] for v in serve["frozen"]], [v[i] for v in serve["source"]], rows)
        figures["serve_s"] = serve
        if not args.no_window:
            xvfb, display = x11.start_xvfb()
            try:
                win = interleaved(
                    args.runs,
                    lambda: time_window(frozen_cmd, display, scratch),
                    lambda: time_window(source_cmd, display, scratch),
                )
            finally:
                xvfb.terminate()
                xvfb.wait()
            figures["window_s"] = win
            labels = ("window visible", "page bridge ready", "host answers via bridge")
            for i, label in enumerate([f"{x} (s)" for x in labels] + [f"{x} (CPU s)" for x in labels]):
                summarise(label, [w[i] for w in win["frozen"]], [w[i] for w in win["source"]], rows)
        if not args.no_self_test:
            st = interleaved(1, lambda: time_self_test(frozen_cmd), lambda: time_self_test(source_cmd))
            figures["self_test_s"] = st
            rows.append(("doctor --self-test (s)", st["frozen"][0], st["source"][0]))
    print(f"\nsizes (MB), bundle {args.bundle}:")
    size_mb: dict[str, float] = figures["sizes_mb"]  # type: ignore[assignment]
    for key, value in size_mb.items():
        print(f"  {key:24}{value:10.1f}")
    if "untrimmed (estimate)" in size_mb:
        print(f"  {'bundle / untrimmed':24}{size_mb['bundle'] / size_mb['untrimmed (estimate)']:10.2f}")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    title = f"start-up, {args.runs} runs (load {load})"
    print(f"\n{title:50}{'frozen':>9}{'source':>9}{'ratio':>8}")
    for label, frozen, source in rows:
        print(f"  {label:48}{frozen:9.2f}{source:9.2f}{frozen / source:8.2f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
