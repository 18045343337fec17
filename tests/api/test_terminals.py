"""`terminal.*`: the person's login shell in a real PTY beside a session, over both carriers
(docs/decisions.md, "Terminal and files"): output as `terminal/output` frames on the mux,
input, resize seen by `stty size`, exit codes, the scrollback replayed by `terminal.attach`,
flow control that stops reading a shell while a viewer is behind, and the end of every process
of a terminal on Close, on the session's deletion and with the host."""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    SESSION_DELETE,
    TERMINAL_ACK,
    TERMINAL_ATTACH,
    TERMINAL_CLOSE,
    TERMINAL_INPUT,
    TERMINAL_LIST,
    TERMINAL_OPEN,
    TERMINAL_RESIZE,
)
from contract.terminals import FRAME_BYTES
from host.engine.terminals.flow import HIGH
from host.procs.tree import table
from tests.api.conftest import Host
from tests.api.support import WAIT, Frames, err, ok

pytestmark = pytest.mark.skipif(os.name != "posix", reason="terminals need a POSIX PTY")


class Screen:
    """What one terminal printed, read from the mux stream's frames in seq order."""

    def __init__(self, mux: Frames, terminal_id: str) -> None:
        self.mux = mux
        self.terminal_id = terminal_id
        self.seen = 0
        self.seq = 0
        self.data = bytearray()

    def _take(self) -> None:
        for _rpc, frame in self.mux.items[self.seen :]:
            if getattr(frame, "type", None) == "terminal/output" and frame.terminal_id == self.terminal_id:
                chunk = base64.b64decode(frame.data)
                assert frame.seq == self.seq + len(chunk), "frames arrive in order, none missing"
                self.seq = frame.seq
                self.data += chunk
        self.seen = len(self.mux.items)

    @property
    def text(self) -> str:
        self._take()
        return self.data.decode("utf-8", "replace")

    async def wait_for(self, needle: str) -> str:
        end = asyncio.get_running_loop().time() + WAIT
        while needle not in self.text:
            if asyncio.get_running_loop().time() > end:
                raise AssertionError(f"{needle!r} not in the terminal's output:\n{self.text[-2000:]}")
            await asyncio.sleep(0.02)
        return self.text


@pytest.fixture(autouse=True)
def shell_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shells start in a home of their own: this machine's ~/.bashrc is not what is tested,
    and a shell ended while it starts must not leave that file's state behind (a pyenv rehash
    killed midway left its lock, and every later login shell waited a minute)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    return home


async def open_terminal(host: Host, folder: Path, cols: int = 80, rows: int = 24) -> tuple[Any, str, str]:
    client = host.client()
    sid = await host.create(folder)
    opened = await ok(client, TERMINAL_OPEN, {"sessionId": sid, "cols": cols, "rows": rows})
    return client, sid, opened.terminal_id


async def typed(client: Any, terminal_id: str, text: str) -> None:
    await ok(client, TERMINAL_INPUT, {"terminalId": terminal_id, "data": text})


def processes_of(terminal: Any) -> set[int]:
    """The supervisor and every process below it (from /proc)."""
    procs = table()
    children: dict[int, list[int]] = {}
    for p in procs.values():
        children.setdefault(p.ppid, []).append(p.pid)
    found = {terminal.proc.pid}
    frontier = [terminal.proc.pid]
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return {pid for pid in found if pid in procs}


async def gone(pids: set[int]) -> bool:
    for _ in range(int(WAIT / 0.05)):
        if not pids & set(table()):
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_shell_runs_in_the_session_folder_and_answers(host: Host, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    mux = await host.mux()
    client, sid, tid = await open_terminal(host, folder)
    screen = Screen(mux, tid)
    await typed(client, tid, "pwd; echo sum=$((40+2))\n")
    out = await screen.wait_for("sum=42")
    assert str(folder.resolve()) in out
    await typed(client, tid, "false; echo code=$?; (exit 7); echo code=$?\n")
    await screen.wait_for("code=7")
    assert "code=1" in screen.text
    await typed(client, tid, "echo term''=$TERM\n")
    await screen.wait_for("term=xterm-256color")

    await ok(client, TERMINAL_RESIZE, {"terminalId": tid, "cols": 101, "rows": 33})
    await typed(client, tid, "stty size\n")
    await screen.wait_for("33 101")

    listed = await ok(client, TERMINAL_LIST, {"sessionId": sid})
    assert [(i.terminal_id, i.alive, i.cwd) for i in listed.items] == [(tid, True, str(folder.resolve()))]


async def test_attach_replays_the_scrollback_up_to_its_seq(host: Host, tmp_path: Path) -> None:
    mux = await host.mux()
    client, _sid, tid = await open_terminal(host, tmp_path)
    screen = Screen(mux, tid)
    await typed(client, tid, "echo first''-line; echo second''-line\n")
    await screen.wait_for("second-line")
    again = host.client()  # a client that reconnects
    got = await ok(again, TERMINAL_ATTACH, {"terminalId": tid})
    replay = base64.b64decode(got.scrollback).decode()
    assert "first-line" in replay and "second-line" in replay
    assert got.alive and (got.cols, got.rows) == (80, 24)
    assert screen.text
    assert got.seq <= screen.seq  # every byte up to its seq was sent as frames too
    assert replay.endswith(bytes(screen.data[: got.seq]).decode("utf-8", "replace")[-len(replay) :])


async def test_the_shell_exiting_says_its_code_and_close_ends_every_process(
    host: Host, tmp_path: Path
) -> None:
    mux = await host.mux()
    client, sid, tid = await open_terminal(host, tmp_path)
    screen = Screen(mux, tid)
    await typed(client, tid, "echo rea''dy\n")  # the shell's answer, not the terminal's echo
    await screen.wait_for("ready")
    await typed(client, tid, "exit 3\n")
    _, closed = await mux.next(lambda f: getattr(f, "type", None) == "terminal/closed")
    assert (closed.terminal_id, closed.exit_code) == (tid, 3)
    listed = await ok(client, TERMINAL_LIST, {"sessionId": sid})
    assert [(i.alive, i.exit_code) for i in listed.items] == [(False, 3)]

    # a second one, with a background process and a process group of its own, ends on Close
    tid2 = (await ok(client, TERMINAL_OPEN, {"sessionId": sid, "cols": 80, "rows": 24})).terminal_id
    screen2 = Screen(mux, tid2)
    await typed(client, tid2, "sleep 1000 & setsid sleep 1001 & echo started-$((1+1))\n")
    await screen2.wait_for("started-2")
    terminal = host.engine.terminals._terminals[tid2]
    pids = processes_of(terminal)
    assert len(pids) >= 4, pids  # supervisor, shell, two sleeps
    await ok(client, TERMINAL_CLOSE, {"terminalId": tid2})
    assert await gone(pids), "a process of the closed terminal is still running"
    await err(client, TERMINAL_INPUT, {"terminalId": tid2, "data": "x"}, "terminal-not-found")


async def test_a_deleted_session_and_a_stopping_host_end_their_terminals(host: Host, tmp_path: Path) -> None:
    client, sid, tid = await open_terminal(host, tmp_path)
    other_tid = (
        await ok(client, TERMINAL_OPEN, {"sessionId": await host.create(tmp_path), "cols": 80, "rows": 24})
    ).terminal_id
    terminals = host.engine.terminals._terminals
    pids = processes_of(terminals[tid])
    other = processes_of(terminals[other_tid])
    await ok(client, SESSION_DELETE, {"sessionId": sid})
    assert await gone(pids)
    await err(client, TERMINAL_ATTACH, {"terminalId": tid}, "terminal-not-found")
    await host.engine.terminals.close_all()
    assert await gone(other)


async def test_bad_requests_change_nothing(host: Host, tmp_path: Path) -> None:
    client = host.client()
    sid = await host.create(tmp_path)
    await err(client, TERMINAL_OPEN, {"sessionId": sid, "cols": 0, "rows": 24}, "bad-request")
    await err(client, TERMINAL_OPEN, {"sessionId": sid, "cols": 80}, "bad-request")
    await err(client, TERMINAL_OPEN, {"sessionId": "nope", "cols": 80, "rows": 24}, "session-not-found")
    await err(client, TERMINAL_INPUT, {"terminalId": "t-none", "data": "x"}, "terminal-not-found")
    await err(client, TERMINAL_RESIZE, {"terminalId": "../x", "cols": 80, "rows": 24}, "bad-request")
    assert (await ok(client, TERMINAL_LIST, {"sessionId": sid})).items == []


async def test_a_viewer_that_does_not_acknowledge_holds_the_shell_at_the_high_mark(
    host: Host, tmp_path: Path
) -> None:
    mux = await host.mux()
    client, _sid, tid = await open_terminal(host, tmp_path)
    screen = Screen(mux, tid)
    await typed(client, tid, "echo rea''dy\n")  # the shell's answer, not the terminal's echo
    await screen.wait_for("ready")
    start = (await ok(client, TERMINAL_ATTACH, {"terminalId": tid, "viewer": "page"})).seq
    total = 4 * HIGH
    await typed(client, tid, f"head -c {total} /dev/zero | tr '\\0' x; echo; echo END-OF''-IT\n")
    await screen.wait_for("x" * 1000)
    # the mux reader keeps up, but the viewer never acknowledges: the host stops reading the
    # shell about one frame past the high mark (the acknowledgements below keep it alive)
    for _ in range(20):
        await ok(client, TERMINAL_ACK, {"terminalId": tid, "viewer": "page", "seq": start})
        await asyncio.sleep(0.1)
    assert screen.text
    assert screen.seq - start <= HIGH + 2 * FRAME_BYTES, screen.seq - start
    assert "END-OF-IT" not in screen.text
    # acknowledging what arrived lets the rest through
    end = asyncio.get_running_loop().time() + 4 * WAIT
    while "END-OF-IT" not in screen.text:
        assert asyncio.get_running_loop().time() < end, "the output did not resume"
        await ok(client, TERMINAL_ACK, {"terminalId": tid, "viewer": "page", "seq": screen.seq})
        await asyncio.sleep(0.02)
    assert screen.text.count("x") >= total
