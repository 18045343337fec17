"""SIGTERM ends `serve` promptly and quietly with streams open and a turn running; blocking tool
work (a FIFO) cannot starve settings, other tools or shutdown."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from host.workers import WorkerPool
from tests.api.support import ROOT, cli_env, start_serve
from tests.support.scripted_llm import Reply

BOUND = 10.0
"""Generous: the host itself gives in-flight work 1.8 s; this only catches a hang."""


async def test_sigterm_with_streams_open_and_a_turn_running(tmp_path: Path, scripted_llm: Any) -> None:
    flags = ("--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m")
    served = start_serve(tmp_path / "data", *flags)
    headers = {"Authorization": f"Bearer {served.token}"}
    async with httpx.AsyncClient(base_url=served.base_url, headers=headers, timeout=30) as http:
        streams = [
            await http.send(http.build_request("GET", f"/api/events.{key}"), stream=True)
            for key in ("mux", "host", "mux")
        ]
        body = {"type": "client-request", "rpcId": "c1", "method": "session.create", "payload": {}}
        sid = (await http.post("/api/session.create", json=body)).json()["result"]["value"]["sessionId"]
        scripted_llm.enqueue(Reply(text="never finishes", hang_after=2))
        content = [{"type": "text", "text": "hang"}]
        payload = {"sessionId": sid, "mode": "queue", "content": content}
        body = {"type": "client-request", "rpcId": "c2", "method": "session.prompt", "payload": payload}
        assert (await http.post("/api/session.prompt", json=body)).json()["result"]["ok"]
        for _ in range(600):  # the turn runs: its request reached the provider, which then hangs
            if scripted_llm.requests:
                break
            await asyncio.sleep(0.01)
        assert scripted_llm.requests, "the turn never asked the provider"
        started = time.monotonic()
        served.proc.terminate()
        code = await asyncio.to_thread(served.stop, BOUND)
        took = time.monotonic() - started
        for stream in streams:
            await stream.aclose()
    assert code == 0, served.later_output
    assert took < BOUND
    assert "Traceback" not in served.later_output and "CancelledError" not in served.later_output


async def test_stuck_tool_threads_never_block_other_tools_or_the_exit(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    pool = WorkerPool("test-tool", workers=2, spares=8)
    entered = threading.Semaphore(0)

    def blocked() -> bytes:
        entered.release()
        return open(fifo, "rb").read()

    stuck = [asyncio.ensure_future(pool.run(blocked)) for _ in range(6)]
    for _ in range(pool.workers):  # each busy thread is in open() (the other jobs wait their turn)
        assert await asyncio.to_thread(entered.acquire, True, 10)
    for task in stuck:  # the callers give up (a cancelled turn); the threads stay blocked in open()
        task.cancel()
    await asyncio.gather(*stuck, return_exceptions=True)
    assert await asyncio.wait_for(pool.run(lambda: sorted(os.listdir(tmp_path))), 10) == ["pipe"]
    assert pool.stuck >= 1
    assert await asyncio.wait_for(asyncio.to_thread(lambda: "default executor free"), 10)
    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # let the stuck readers go (hygiene)


async def test_a_process_with_threads_stuck_on_a_fifo_still_exits(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        from host.workers import TOOL_WORKERS

        async def main():
            jobs = [asyncio.ensure_future(TOOL_WORKERS.run(lambda: open({str(fifo)!r}, "rb").read()))
                    for _ in range(6)]
            await asyncio.sleep(0.3)
            for job in jobs:
                job.cancel()
            print("leaving", flush=True)

        asyncio.run(main())
        """
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, env=cli_env()
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0 and out.strip() == b"leaving"


async def test_read_file_refuses_a_fifo_instead_of_hanging(tmp_path: Path) -> None:
    from host.engine.tools.base import ToolContext
    from host.engine.tools.files import ReadFileTool

    os.mkfifo(tmp_path / "pipe")

    async def never(*_: Any) -> Any:
        raise AssertionError("not called")

    ctx = ToolContext(session_id="s", cwd=tmp_path, ask_user=never, emit=never)
    out = await asyncio.wait_for(ReadFileTool().run({"path": "pipe"}, ctx), 10)
    assert out.is_error and out.error_code == "NOT_A_FILE"
