"""Reading the settings at start is bounded like opening the database: a settings.json whose
read never answers (a stuck disk; here a regular file under another process's write lease, which
makes every open() wait for the lease holder) stops the start with one sentence naming the
folder instead of hanging it, and the start works again once the file answers. A FIFO in the
file's place is no longer a hang at all: it is refused by its type (tests/faults/
test_settings_files.py)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from host.engine.engine import Engine
from host.engine.store import StoreTimeout

WAIT = 30.0

HOLDER = """
import fcntl, os, signal, sys
signal.signal(signal.SIGIO, signal.SIG_IGN)  # the lease break is announced by SIGIO
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
print("held", flush=True)
sys.stdin.read()
"""


def hold_lease(path: Path) -> subprocess.Popen[str]:
    """A process holding a write lease on `path`: another open() of it blocks until it ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


async def test_a_settings_file_that_never_answers_bounds_the_start(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"version": 2, "namespaces": {}}\n', encoding="utf-8")
    holder = hold_lease(settings)
    try:
        try:
            await asyncio.wait_for(Engine.open(tmp_path, settings_timeout=0.5), WAIT)
        except StoreTimeout as exc:
            message = str(exc)
        else:
            raise AssertionError("the engine opened although settings.json never answered")
    finally:
        assert holder.stdin is not None
        holder.stdin.close()  # the lease ends with the holder: the stuck read finishes
        await asyncio.to_thread(holder.wait, WAIT)
    assert message.startswith(f"the settings in {tmp_path} were not read within 0.5s")
    assert "settings.json" in message and "\n" not in message
    assert not await asyncio.to_thread(lambda: list(tmp_path.glob("*.db")))  # stopped before the database

    engine = await asyncio.wait_for(Engine.open(tmp_path), WAIT)
    try:
        assert await engine.sessions.list_sessions() == []
    finally:
        await engine.close()
