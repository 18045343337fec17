"""The bash tool's last resort: a supervisor that misses its bound still takes its tree along.

Under load the supervisor (host/procs/supervise.py) once took longer than SUPERVISOR_BOUND to
kill a command's tree; the host then killed only the supervisor's own process group and the
processes that had left with `setsid` lived on. Here the supervisor is SIGSTOPped, so it
certainly misses the bound, and the whole tree must die anyway — while a process of the same
age that is not the command's is left alone (docs/decisions.md, "A cancelled command's whole
tree dies").
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from host.engine.sandbox import SandboxPolicy
from host.engine.tools import bash
from host.engine.tools.background_jobs import Job, JobRegistry
from tests.security.sandboxing import needs_sandbox, sandbox_on  # noqa: F401 - a fixture, asked for by name
from tests.security.tools import TOOLS, context

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")


def _stat(pid: int) -> tuple[int, int, int, str] | None:
    """(ppid, session id, start time, state) of a process, or None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    return int(fields[1]), int(fields[3]), int(fields[19]), fields[0].decode()


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _below(root: int) -> dict[int, int]:
    """{pid: start time} of every live process below `root`, by parent links."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (st := _stat(int(entry))) is not None and st[3] != "Z":
            children.setdefault(st[0], []).append(int(entry))
    out: dict[int, int] = {}
    frontier = [root]
    while frontier:
        for pid in children.get(frontier.pop(), []):
            st = _stat(pid)
            if st is not None:
                out[pid] = st[2]
                frontier.append(pid)
    return out


def _alive(pid: int, started: int) -> bool:
    st = _stat(pid)
    return st is not None and st[2] == started and st[3] not in ("Z", "X")


def _supervisor_of(marker: str) -> int | None:
    for entry in os.listdir("/proc"):
        line = _cmdline(int(entry)) if entry.isdigit() else b""
        if b"import supervise" in line and marker.encode() in line:
            return int(entry)
    return None


async def _until(check: Callable[[], bool], within: float = 30.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if check():
            return True
        await asyncio.sleep(0.05)
    return bool(check())


@pytest.mark.parametrize("sandboxed", [False, pytest.param(True, marks=needs_sandbox)])
async def test_a_stopped_supervisor_still_takes_its_setsid_tree_along(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, sandboxed: bool
) -> None:
    monkeypatch.setattr(bash, "SUPERVISOR_BOUND", 1.0)  # it is stopped: any bound is missed
    marker = f"hd-fallback-{os.getpid()}-{time.monotonic_ns()}"
    # three sleeps: one in the command's group, two in a session of their own (one double-forked)
    command = f"setsid sh -c '(sleep 300; echo {marker}) & sleep 301' >/dev/null 2>&1 & sleep 302 # {marker}"
    ctx = context(tmp_path)
    if sandboxed:  # supervise -> bwrap -> bash: the tree is in a pid namespace of its own
        request.getfixturevalue("sandbox_on")
        (tmp_path / "data").mkdir()
        ctx.sandbox = SandboxPolicy(workspace=tmp_path, data_dir=tmp_path / "data")
    task = asyncio.create_task(TOOLS["bash"].run({"command": command, "timeout": 120}, ctx))
    supervisor: int | None = None
    tree: dict[int, int] = {}
    bystander = None
    try:

        def settled() -> bool:
            nonlocal supervisor, tree
            supervisor = supervisor or _supervisor_of(marker)
            tree = _below(supervisor) if supervisor else {}
            sleeps = [p for p in tree if _cmdline(p).startswith(b"sleep\0")]
            return len(sleeps) == 3

        assert await _until(settled), f"the command never started its three sleeps: {tree}"
        assert supervisor is not None
        supervisor_stat = _stat(supervisor)
        assert supervisor_stat is not None
        sessions = {st[1] for p in tree if (st := _stat(p)) is not None}
        assert len(sessions - {supervisor}) >= 1, "nothing left the supervisor's session"
        wrapped = any(b"bwrap" in _cmdline(p).split(b"\0")[0] for p in tree)
        assert wrapped == sandboxed, "the command did not run the way this case says"
        # a process as young as the tree, in a session of its own, that is not the command's
        bystander = await asyncio.create_subprocess_exec("sleep", "303", start_new_session=True)
        bystander_stat = _stat(bystander.pid)
        assert bystander_stat is not None

        os.kill(supervisor, signal.SIGSTOP)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 60)
        survivors = {p for p, started in tree.items() if _alive(p, started)}
        assert not survivors, f"survivors of the fallback: {survivors}"
        assert not _alive(supervisor, supervisor_stat[2]), "the stopped supervisor was left"
        assert _alive(bystander.pid, bystander_stat[2]), "the fallback killed a process not of the command"
    finally:
        for pid, started in tree.items():
            if _alive(pid, started):
                os.kill(pid, signal.SIGKILL)
        if supervisor and _stat(supervisor) is not None:
            os.kill(supervisor, signal.SIGKILL)
        if bystander is not None:
            bystander.kill()
            await asyncio.wait_for(bystander.wait(), 30)


async def _no_end(_job: Job) -> None:
    return None


@pytest.mark.parametrize("starter", ["bash tool", "background job"])
async def test_a_cancel_while_the_supervisor_starts_still_ends_its_setsid_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, starter: str
) -> None:
    """The cause seen under load: a cancel that lands while asyncio still connects the
    supervisor's pipes made asyncio SIGKILL the supervisor, and its tree lived on. A background
    job's start is the same start (`bash.start_shielded`)."""
    real = asyncio.create_subprocess_exec
    returned: list[bool] = []

    async def observed(*args: object, **kwargs: object) -> asyncio.subprocess.Process:
        proc = await real(*args, **kwargs)  # type: ignore[arg-type]
        returned.append(True)
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", observed)
    marker = f"hd-spawn-{os.getpid()}-{time.monotonic_ns()}"
    command = f"setsid sh -c '(sleep 300; echo {marker}) & sleep 301' >/dev/null 2>&1 & sleep 302 # {marker}"
    registry = JobRegistry(tmp_path / "jobs", lambda _sid, _views: None, _no_end)
    start: Coroutine[Any, Any, object]
    if starter == "bash tool":
        start = TOOLS["bash"].run({"command": command, "timeout": 120}, context(tmp_path))
    else:
        start = registry.start("s-cancel", command, tmp_path)
    task = asyncio.create_task(start)
    supervisor = None
    for _ in range(10_000):  # one loop step at a time, until the supervisor exists
        await asyncio.sleep(0)
        if (supervisor := _supervisor_of(marker)) is not None:
            break
    assert supervisor is not None, "the supervisor never started"
    tree: dict[int, int] = {}
    # hold the loop (so asyncio cannot finish the start) until the setsid tree is up
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        tree = _below(supervisor)
        if len([p for p in tree if _cmdline(p).startswith(b"sleep\0")]) == 3:
            break
        time.sleep(0.02)  # noqa: ASYNC251 - blocking on purpose: the loop must not run
    try:
        assert not returned, "the start finished before the cancel: this case did not happen"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 60)
        survivors = {p for p, started in tree.items() if _alive(p, started)}
        assert len(tree) >= 3 and not survivors, f"tree {tree}, survivors {survivors}"
        if starter == "background job":  # a job that never started is not listed, nor its file kept
            assert registry.views("s-cancel") == []
            assert list((tmp_path / "jobs").glob("*")) == []
    finally:
        for pid, started in tree.items():
            if _alive(pid, started):
                os.kill(pid, signal.SIGKILL)
