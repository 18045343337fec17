"""No shell outlives its host (docs/decisions.md, "Terminal and files"): a real `harnessdesk serve`
opens terminals over HTTP, their shells start background processes (one in a session of its own),
and the host is killed with SIGKILL, with no chance to clean up. The supervisors' parent-death
signal ends every one of those processes: the process table is checked. A host stopped the
ordinary way (SIGTERM) ends them too."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import signal
from pathlib import Path

import pytest

from contract.methods import SESSION_CREATE, TERMINAL_INPUT, TERMINAL_OPEN
from host.fetch import AbstractApiClient, HttpApiClient
from host.procs.tree import table
from tests.api.support import WAIT, Frames, Served, ftype, ok, start_serve

pytestmark = pytest.mark.skipif(not os.path.exists("/proc"), reason="reads the process table in /proc")


async def shell_pids(client: AbstractApiClient, mux: Frames, sid: str) -> set[int]:
    """Open a terminal whose shell starts two sleeps (one with setsid); their pids and its own."""
    tid = (await ok(client, TERMINAL_OPEN, {"sessionId": sid, "cols": 80, "rows": 24})).terminal_id
    line = (
        "sleep 1000 & a=$!; f=.s-$$; setsid sh -c 'echo $$ > '$f'; exec sleep 1001' &"
        " while [ ! -s $f ]; do sleep 0.05; done; echo pids:$$:$a:$(cat $f):end\n"
    )
    await ok(client, TERMINAL_INPUT, {"terminalId": tid, "data": line})
    printed = ""
    pattern = re.compile(r"pids:(\d+):(\d+):(\d+):end")
    while not (found := pattern.search(printed)):
        _, frame = await mux.next(ftype("terminal/output"))
        if frame.terminal_id == tid:
            printed += base64.b64decode(frame.data).decode("utf-8", "replace")
    return {int(p) for p in found.groups()}


async def all_gone(pids: set[int]) -> bool:
    for _ in range(int(WAIT / 0.05)):
        if not pids & set(table()):
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.fixture(autouse=True)
def shell_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shells start in a home of their own: this machine's ~/.bashrc is not what is tested,
    and a shell ended while it starts must not leave that file's state behind (a pyenv rehash
    killed midway left its lock, and every later login shell waited a minute)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    return home


async def terminals_of(served: Served, folder: Path) -> set[int]:
    async with HttpApiClient(served.base_url, served.token) as client:
        sid = (await ok(client, SESSION_CREATE, {"cwd": str(folder)})).session_id
        async with Frames(client.stream("events.mux")) as mux:
            pids = await shell_pids(client, mux, sid)
            pids |= await shell_pids(client, mux, sid)
    assert pids <= set(table()), "every shell and sleep runs"
    return pids


@pytest.mark.parametrize("how", ["kill -9", "SIGTERM"])
async def test_no_shell_outlives_the_host(tmp_path: Path, how: str) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    served = start_serve(tmp_path / "data", cwd=folder)
    try:
        pids = await terminals_of(served, folder)
        served.proc.send_signal(signal.SIGKILL if how == "kill -9" else signal.SIGTERM)
        served.proc.wait(WAIT)
        assert await all_gone(pids), f"left running after {how}: {pids & set(table())}"
    finally:
        served.stop()
