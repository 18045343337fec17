"""Background jobs: started by the agent's bash, read with job_output, listed, stopped, reported to
the agent as context, and never outliving their session or the app (real processes)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from contract.frames import SessionJobs, SessionQueue
from contract.rpc import ClientResponse, RpcOk
from contract.sessions import TextInput
from host.engine.errors import JobNotFound
from host.engine.tools.background_jobs import OutputFile
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.engine import agent_of, queued
from tests.support.scripted_llm import Reply

REPO = Path(__file__).resolve().parents[2]
Factory = Any


def gone(pid: int) -> bool:
    """The pid no longer runs (absent, or a zombie awaiting its parent)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def children_of(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


async def until(check: Any, within: float = 15.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def pid_of(engine: Any, sid: str, job_id: str) -> int:
    """The pid the job printed first (`echo $$; exec …`)."""
    for _ in range(500):
        out = await engine.jobs.job_output(sid, job_id, 0, 100)
        if out.text.strip():
            return int(out.text.split()[0])
        await asyncio.sleep(0.02)
    raise AssertionError("the job printed nothing")


def test_the_output_file_keeps_the_newest_bytes_with_stream_offsets(tmp_path: Path) -> None:
    out = OutputFile(tmp_path / "job.log", cap=100)
    for i in range(25):
        out.write(f"{i:09d}\n".encode())  # 10 bytes each, 250 in all
    assert out.size == 250 and out.base > 0 and 50 <= out.size - out.base <= 100  # half to all of the cap
    data, start = out.read(None, 20)
    assert (data, start) == (b"000000023\n000000024\n", 230)
    data, start = out.read(0, 30)  # from the start: what is still kept
    assert start == out.base and data.startswith(b"0000000")
    assert out.read(240, 1000) == (b"000000024\n", 240)
    assert (tmp_path / "job.log").stat().st_size == out.size - out.base
    out.close()


async def test_a_background_job_from_the_agent_is_read_and_its_end_reported_as_context(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    command = "echo started; sleep 0.5; echo finished"
    start = json.dumps({"command": command, "run_in_background": True})
    scripted_llm.enqueue(Reply(tool_calls=[("c1", "bash", start)]), Reply(text="it runs"))
    engine = await engine_factory()
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session(str(tmp_path))
    await engine.agents.prompt(sid, "queue", [TextInput(text="start it")], "r1")
    frame = await frames_until(mux, lambda f: getattr(f, "type", "") == "approval/requested")
    asked = frame[-1]
    engine.host.respond(
        ClientResponse(
            rpc_id=next(rpc for rpc, _ in engine.parts.pending.requests_for(sid)),
            result=RpcOk[Any](
                value={"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-once"}
            ),
        )
    )
    frames = await frames_until(mux, is_event("turn/end"))
    result = next(e for e in events_of(frames) if e.type == "tool/result")
    text = result.data["message"]["content"][0]["content"]
    assert text.startswith("Started background job bash-") and "error" not in result.data
    job_id = text.split()[3].rstrip(".")
    running = [f for f in frames if isinstance(f, SessionJobs)]
    assert running[0].jobs[0].id == job_id and running[0].jobs[0].status == "running"
    assert running[0].jobs[0].label == command and running[0].jobs[0].kind == "bash"
    # it ends by itself: the frames say so, and its agent gets the news as context (no turn)
    frames = await frames_until(mux, lambda f: isinstance(f, SessionQueue) and f.items)
    ended = [f for f in frames if isinstance(f, SessionJobs)][-1].jobs[0]
    assert ended.status == "completed" and ended.detail == "exit code 0" and ended.finished_at
    item = frames[-1].items[0]
    assert item.placement == "context" and item.message.source.model_dump(exclude_none=True) == {
        "kind": "plugin",
        "meta": {"jobId": job_id},
        "plugin": "jobs",
    }
    assert "ended: completed (exit code 0)" in item.message.content[0].text
    assert "finished" in item.message.content[0].text
    await asyncio.sleep(0.1)
    assert len(scripted_llm.requests) == 2 and not agent_of(engine, sid).running
    # the next turn: the model sees the news, and reads the output with job_output
    scripted_llm.enqueue(
        Reply(tool_calls=[("c2", "job_output", json.dumps({"jobId": job_id}))]), Reply(text="read")
    )
    await engine.agents.prompt(sid, "queue", [TextInput(text="how did it go?")], "r2")
    frames = await frames_until(mux, is_event("turn/end", turn=1))
    sent = scripted_llm.requests[2]["messages"]
    assert sent[-2]["content"] == "how did it go?" and "ended: completed" in sent[-1]["content"]
    read = next(e for e in events_of(frames) if e.type == "tool/result")
    output = read.data["message"]["content"][0]["content"]
    assert output.startswith(f"Job {job_id} [completed (exit code 0)]: {command}")
    assert "started\nfinished" in output and "nextOffset 17" in output
    assert queued(engine, sid) == []


async def test_a_sleep_job_is_listed_stopped_and_gone_and_close_ends_the_rest(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    sid = await engine.sessions.create_session(str(tmp_path))
    jobs = engine.jobs.control(sid)
    first = await jobs.start("echo $$; exec sleep 1000", tmp_path)
    second = await jobs.start("echo $$; sleep 1000 & wait", tmp_path)  # a child of its own
    listed = await engine.jobs.list_jobs(sid)
    assert [(j.id, j.status) for j in listed] == [(first.id, "running"), (second.id, "running")]
    pid = await pid_of(engine, sid, first.id)
    assert not gone(pid)
    await engine.jobs.stop_job(sid, first.id)
    assert gone(pid)
    stopped = (await engine.jobs.list_jobs(sid))[0]
    assert stopped.status == "killed" and stopped.detail == "stopped by the user"
    try:
        await engine.jobs.stop_job(sid, "bash-999")
    except JobNotFound as exc:
        assert exc.details() == {"sessionId": sid, "jobId": "bash-999"}
    else:
        raise AssertionError("an unknown job was stopped")
    shell = await pid_of(engine, sid, second.id)
    await until(lambda: bool(children_of(shell)))
    children = children_of(shell)
    assert not gone(children[0])
    files = list((engine.parts.data_dir / "jobs").glob("*.log"))  # (and a manifest per running job)
    assert len(files) == 2
    await engine.close()
    assert gone(shell) and gone(children[0])
    assert not (engine.parts.data_dir / "jobs").exists()


CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from host.engine.engine import Engine

    async def main():
        engine = await Engine.open(Path({data!r}))
        sid = await engine.sessions.create_session({cwd!r})
        job = await engine.jobs.control(sid).start("echo $$; exec sleep 1000", Path({cwd!r}))
        while not (out := await engine.jobs.job_output(sid, job.id, 0, 100)).text.strip():
            await asyncio.sleep(0.02)
        print("READY", out.text.split()[0], flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


async def test_a_job_dies_with_a_host_killed_by_signal_9(tmp_path: Path) -> None:
    script = CHILD.format(repo=str(REPO), data=str(tmp_path / "data"), cwd=str(tmp_path))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, cwd=REPO
    )
    assert proc.stdout is not None
    line = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode().split()
    assert line[0] == "READY"
    pid = int(line[1])
    assert not gone(pid)
    os.kill(proc.pid, signal.SIGKILL)
    await asyncio.wait_for(proc.wait(), 10)
    await until(lambda: gone(pid))  # the supervisor was told (PDEATHSIG) and ended its tree
