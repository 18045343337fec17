"""`job.*` and `session/jobs` over both carriers, and jobs ending with the real app
(docs/architecture.md, "Background jobs")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from contract.methods import JOB_LIST, JOB_OUTPUT, JOB_STOP, SESSION_CREATE
from host.fetch import AbstractApiClient, HttpApiClient
from tests.api.conftest import Host
from tests.api.support import Frames, err, event, eventually, ftype, ok, process_gone, prompt, start_serve
from tests.support.scripted_llm import Reply, ScriptedLlmServer

SLEEPER = "echo $$; exec sleep 1000"


def background(command: str, call_id: str = "c1") -> Reply:
    return Reply(tool_calls=[(call_id, "bash", json.dumps({"command": command, "run_in_background": True}))])


async def start_job(client: AbstractApiClient, mux: Frames, sid: str, command: str) -> str:
    """The agent starts `command` as a job (the user allows the bash call); returns its id."""
    await prompt(client, sid, "start it")
    rpc_id, asked = await mux.next(ftype("approval/requested", sid))
    value = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-once"}
    assert (await client.respond(rpc_id, {"ok": True, "value": value})).accepted is True
    _, jobs = await mux.next(lambda f: ftype("session/jobs", sid)(f) and f.jobs)
    return str(jobs.jobs[-1].id)


async def pid_of(client: AbstractApiClient, sid: str, job_id: str) -> int:
    """The pid the job printed (`echo $$; exec …`)."""
    for _ in range(500):
        out = await ok(client, JOB_OUTPUT, {"sessionId": sid, "jobId": job_id, "offset": 0})
        if out.text.strip():
            return int(out.text.split()[0])
        await asyncio.sleep(0.02)
    raise AssertionError("the job printed nothing")


async def test_list_output_stop_and_frames(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(background(SLEEPER), Reply(text="running"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    job_id = await start_job(client, mux, sid, SLEEPER)
    listed = (await ok(client, JOB_LIST, {"sessionId": sid})).jobs
    assert [(j.id, j.kind, j.label, j.status) for j in listed] == [(job_id, "bash", SLEEPER, "running")]
    pid = await pid_of(client, sid, job_id)
    out = await ok(client, JOB_OUTPUT, {"sessionId": sid, "jobId": job_id})
    assert out.text == f"{pid}\n" and out.offset == 0 and out.next_offset == out.size == len(out.text)
    assert out.dropped == 0
    # a second mux sees the baseline of every session with jobs
    late = await host.mux(client)
    _, baseline = await late.next(ftype("session/jobs", sid))
    assert [j.id for j in baseline.jobs] == [job_id]
    assert (await ok(client, JOB_STOP, {"sessionId": sid, "jobId": job_id})).accepted is True
    assert await eventually(lambda: process_gone(pid))
    _, stopping = await mux.next(lambda f: ftype("session/jobs", sid)(f) and f.jobs[0].status == "stopping")
    _, killed = await mux.next(lambda f: ftype("session/jobs", sid)(f) and f.jobs[0].status == "killed")
    assert killed.jobs[0].detail == "stopped by the user" and killed.jobs[0].finished_at
    assert stopping.jobs[0].started_at == killed.jobs[0].started_at
    # its end reaches the agent as context, which waits for the next step
    _, queue = await mux.next(lambda f: ftype("session/queue", sid)(f) and f.items)
    assert [i.placement for i in queue.items] == ["context"]
    assert queue.items[0].message.source.kind == "plugin"
    for payload in ({"sessionId": sid, "jobId": "bash-999"}, {"sessionId": sid, "jobId": "nope"}):
        error = await err(client, JOB_STOP, payload, "job-not-found")
        assert error.details == payload
        await err(client, JOB_OUTPUT, payload, "job-not-found")
    await err(client, JOB_LIST, {"sessionId": "s-unknown"}, "session-not-found")
    await err(client, JOB_OUTPUT, {"sessionId": sid, "jobId": job_id, "limit": 0}, "bad-request")
    await mux.seen(event("turn/end", sid))


async def test_jobs_end_with_the_app(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    """A running `sleep` job started through the real `harnessdesk serve` is gone from the
    process table once the app exits."""
    llm.enqueue(background(SLEEPER), Reply(text="running"))
    flags = ["--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "m"]
    served = start_serve(tmp_path / "data", *flags, cwd=tmp_path)
    try:
        async with HttpApiClient(served.base_url, served.token) as client:
            async with Frames(client.stream("events.mux")) as mux:
                sid = (await ok(client, SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
                job_id = await start_job(client, mux, sid, SLEEPER)
                pid = await pid_of(client, sid, job_id)
                assert not process_gone(pid)
                listed = (await ok(client, JOB_LIST, {"sessionId": sid})).jobs
                assert [j.status for j in listed] == ["running"]
    finally:
        code = served.stop()
    assert code == 0
    assert await eventually(lambda: process_gone(pid), within=10)
    assert not (tmp_path / "data" / "jobs").exists()
