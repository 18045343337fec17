"""The bash tool: real /bin/bash processes, timeouts, output caps, process-group kills."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from contract.questions import AnswerSet, Question
from host.engine.sessions.events import NewEvent
from host.engine.tools import ToolContext, build_tools
from host.engine.tools.bash import MAX_OUTPUT_CHARS, OutputCapture

BASH = build_tools()["bash"]


async def _no_questions(questions: list[Question]) -> AnswerSet:
    raise AssertionError("no questions expected")


async def _no_events(new: NewEvent[Any]) -> None:
    raise AssertionError("no events expected")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(session_id="s", cwd=tmp_path, ask_user=_no_questions, emit=_no_events)


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def wait_gone(*pids: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def kill_quietly(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


async def test_output_exit_code_and_cwd(ctx: ToolContext) -> None:
    out = await BASH.run({"command": "pwd; echo to-out; echo to-err >&2; exit 3"}, ctx)
    assert not out.is_error
    assert out.content.splitlines() == [str(ctx.cwd), "to-out", "to-err", "[exit code: 3]"]
    assert (await BASH.run({"command": "true"}, ctx)).content == "(no output)"


async def test_stdin_is_closed(ctx: ToolContext) -> None:
    started = time.monotonic()
    out = await BASH.run({"command": "cat; echo done"}, ctx)
    assert out.content == "done" and time.monotonic() - started < 5


async def test_large_output_keeps_head_and_tail(ctx: ToolContext) -> None:
    out = await BASH.run({"command": "seq 1 40000"}, ctx)
    lines = out.content.splitlines()
    assert lines[:3] == ["1", "2", "3"] and lines[-1] == "40000"
    assert len(out.content) < MAX_OUTPUT_CHARS + 300
    assert "characters cut from the middle" in out.content or "output cut" in out.content


def test_output_capture_bounds_memory() -> None:
    capture = OutputCapture(limit_chars=100)
    for _ in range(1000):
        capture.feed(b"a" * 1000)
    capture.feed(b"THE-END")
    assert len(capture.head) + len(capture.tail) <= 400 and capture.total == 1_000_007
    text = capture.text()
    assert text.startswith("a" * 50) and text.endswith("THE-END") and "1000007 bytes in total" in text


async def test_timeout_kills_the_process_group(ctx: ToolContext) -> None:
    command = "sleep 300 & echo child=$!; echo shell=$$; sleep 300"
    started = time.monotonic()
    out = await BASH.run({"command": command, "timeout": 1}, ctx)
    assert time.monotonic() - started < 10
    assert out.is_error and out.error_code == "TIMEOUT" and "timed out after 1s" in out.content
    child = int(re.search(r"child=(\d+)", out.content).group(1))  # type: ignore[union-attr]
    shell = int(re.search(r"shell=(\d+)", out.content).group(1))  # type: ignore[union-attr]
    try:
        assert await wait_gone(child, shell), "the backgrounded sleep survived the timeout"
    finally:
        kill_quietly(child)


async def test_cancel_kills_the_process_group(ctx: ToolContext) -> None:
    command = "sleep 300 & echo $! > child.pid; echo $$ > shell.pid; sleep 300"
    task = asyncio.create_task(BASH.run({"command": command}, ctx))
    deadline = time.monotonic() + 10
    while not ((ctx.cwd / "child.pid").exists() and (ctx.cwd / "shell.pid").exists()):
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.05)
    child = int((ctx.cwd / "child.pid").read_text())
    shell = int((ctx.cwd / "shell.pid").read_text())
    assert alive(child) and alive(shell)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - cancelled_at < 3
    try:
        assert await wait_gone(child, shell), "cancel left the command's processes running"
    finally:
        kill_quietly(child)


async def test_background_process_does_not_block_the_result(ctx: ToolContext) -> None:
    started = time.monotonic()
    out = await BASH.run({"command": "sleep 30 & echo bg=$!"}, ctx)
    pid = int(re.search(r"bg=(\d+)", out.content).group(1))  # type: ignore[union-attr]
    try:
        assert time.monotonic() - started < 5
        assert not out.is_error and "background processes still hold the output open" in out.content
    finally:
        kill_quietly(pid)


async def test_missing_cwd_is_an_error(tmp_path: Path) -> None:
    ctx = ToolContext(session_id="s", cwd=tmp_path / "gone", ask_user=_no_questions, emit=_no_events)
    out = await BASH.run({"command": "echo hi"}, ctx)
    assert out.is_error and out.error_code == "NOT_FOUND"
