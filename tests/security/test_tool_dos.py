"""Finding 6 and the tool items of 8: tools that could freeze the host or outlive a cancel.

- 6: `grep` (no approval needed) with a catastrophic regex held the GIL: `host.describe` took
  10 s. The search now runs in a helper process killed at a hard time limit.
- 8: `read_file`/`grep` on a FIFO hung for ever; `setsid` grandchildren survived timeout and
  cancel; path confinement checked a path and then opened it (a swap in between escaped).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
import time
from pathlib import Path

import pytest

from host.engine.tools import search
from host.engine.tools.common import ToolError, open_inside
from tests.security.tools import run

CATASTROPHIC = r"^(a+)+$"


async def test_a_catastrophic_grep_neither_freezes_the_host_nor_runs_for_ever(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bait.txt").write_text("a" * 40 + "!\n")
    monkeypatch.setattr(search, "GREP_HARD_LIMIT", 6.0)
    ticks: list[float] = []
    stop = threading.Event()

    def heartbeat() -> None:  # another thread of the host: must keep running meanwhile
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    loop_gaps: list[float] = []

    async def loop_probe() -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.02)
            loop_gaps.append(time.monotonic() - before)

    probe = asyncio.create_task(loop_probe())
    started = time.monotonic()
    try:
        out = await run("grep", tmp_path, pattern=CATASTROPHIC)
    finally:
        probe.cancel()
        stop.set()
        beat.join()
    took = time.monotonic() - started
    assert out.is_error and out.error_code == "TIMEOUT" and "backtrack" in out.content
    assert took < 20  # bounded by the hard limit, not by the pattern
    # a held GIL would stall both for the whole 6 s; the bounds leave room for a loaded machine
    assert max(loop_gaps) < 3.0  # the event loop kept answering
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert ticks and max(gaps) < 3.0  # and so did the other threads (the GIL was free)


async def test_grep_and_read_file_skip_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "real.txt").write_text("needle\n")
    found = await asyncio.wait_for(run("grep", tmp_path, pattern="needle"), 30)
    assert "real.txt:1: needle" in found.content and "pipe" not in found.content
    direct = await asyncio.wait_for(run("grep", tmp_path, pattern="x", path="pipe"), 30)
    assert not direct.is_error and "No matches" in direct.content
    read = await asyncio.wait_for(run("read_file", tmp_path, path="pipe"), 10)
    assert read.is_error and read.error_code == "NOT_A_FILE"
    edit = await asyncio.wait_for(run("edit_file", tmp_path, path="pipe", old_string="a", new_string="b"), 10)
    assert edit.is_error


def _pids_of(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


async def _gone(marker: str, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _pids_of(marker):
            return True
        await asyncio.sleep(0.05)
    return False


def _escaper(marker: str) -> str:
    """A grandchild that leaves the process group and session, then double-forks."""
    return f"setsid sh -c '(sleep 300; echo {marker}) & sleep 301 # {marker}' >/dev/null 2>&1 & sleep 302"


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
async def test_setsid_grandchildren_die_on_timeout(tmp_path: Path) -> None:
    marker = f"hd-timeout-{os.getpid()}-{time.monotonic_ns()}"
    out = await run("bash", tmp_path, command=_escaper(marker), timeout=1.5)
    assert out.error_code == "TIMEOUT"
    try:
        assert await _gone(marker), f"survivors: {_pids_of(marker)}"
    finally:
        for pid in _pids_of(marker):
            os.kill(pid, 9)


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
async def test_setsid_grandchildren_die_on_cancel(tmp_path: Path) -> None:
    marker = f"hd-cancel-{os.getpid()}-{time.monotonic_ns()}"
    task = asyncio.create_task(run("bash", tmp_path, command=_escaper(marker), timeout=60))
    deadline = time.monotonic() + 10
    while len(_pids_of(marker)) < 2 and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.05)
    assert _pids_of(marker), "the escaper never started"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    try:
        assert await _gone(marker), f"survivors: {_pids_of(marker)}"
    finally:
        for pid in _pids_of(marker):
            os.kill(pid, 9)


async def test_a_normal_exit_still_reports_status_and_output(tmp_path: Path) -> None:
    out = await run("bash", tmp_path, command="echo hi; exit 3")
    assert out.content.startswith("hi") and "[exit code: 3]" in out.content
    killed = await run("bash", tmp_path, command="kill -9 $$")
    assert "[exit code: 137]" in killed.content


def test_open_inside_refuses_a_descriptor_that_landed_outside(tmp_path: Path) -> None:
    """The check-then-open race: a path checked inside the root, then swapped for a symlink to
    a file outside before the open. Whatever the open reaches is checked, not the path."""
    root = tmp_path / "root"
    root.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("outside\n")
    (root / "sub").mkdir()
    (root / "sub" / "f.txt").write_text("inside\n")
    checked = (root / "sub" / "f.txt").resolve()
    # the attacker swaps the directory for a symlink after the check
    (root / "sub" / "f.txt").unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(tmp_path)
    (tmp_path / "f.txt").write_text("outside too\n")
    with pytest.raises(ToolError) as refused:
        open_inside(root, checked)
    assert refused.value.code == "PATH_ESCAPE"
    fd = open_inside(root, root.resolve() / "sub" / "root")  # out and back in: where it lands counts
    os.close(fd)
    assert secret.read_text() == "outside\n"


async def test_write_file_through_a_swapped_parent_stays_inside(tmp_path: Path) -> None:
    """write_atomic works on a verified directory descriptor: a parent swapped for a symlink to
    the outside is refused, and nothing is written there."""
    from host.engine.tools.files import write_atomic

    root = tmp_path / "root"
    (root / "dir").mkdir(parents=True)
    target = (root / "dir" / "out.txt").resolve()
    (root / "dir").rmdir()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "dir").symlink_to(outside)
    with pytest.raises(ToolError) as refused:
        write_atomic(root, target, b"pwned")
    assert refused.value.code == "PATH_ESCAPE"
    assert list(outside.iterdir()) == []


def test_a_frozen_bundle_dispatches_to_the_helpers(tmp_path: Path) -> None:
    """packaging/entry.py hands `--harnessdesk-helper NAME …` to host.procs before the app starts
    (a bundle has no `python` to run the helper scripts with)."""
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    entry = [sys.executable, str(root / "packaging" / "entry.py"), "--harnessdesk-helper"]
    env = {**os.environ, "PYTHONPATH": str(root)}
    ran = subprocess.run([*entry, "supervise", "/bin/sh", "-c", "exit 7"], env=env, timeout=60)
    assert ran.returncode == 7
    (tmp_path / "f.txt").write_text("needle here\n")
    request = {
        "root": str(tmp_path),
        "target": str(tmp_path),
        "pattern": "needle",
        "max_matches": 10,
        "max_line": 100,
        "max_file_bytes": 1000,
        "budget": 10,
    }
    grep = subprocess.run(
        [*entry, "grep_worker"],
        input=json.dumps(request),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert grep.returncode == 0 and json.loads(grep.stdout)["text"] == "f.txt:1: needle here"
