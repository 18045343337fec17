"""Crash windows (docs/decisions.md "Crash windows"): kill -9 of a real `harnessdesk serve` while
a `/compact` waits for its summary, or while a background job runs, then a restart on the same
data dir. Nothing is left open or vanishes: the compaction and its command are closed as
interrupted, the job is listed and logged as "stopped: the app closed".

Each serve is forked from tests/support/warm_cli.py (the app imported once), as in test_kill9.py."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import Any

from contract.methods import COMMAND_EXECUTE, JOB_LIST, JOB_OUTPUT, SESSION_CREATE, SESSION_PROMPT
from host.fetch import HttpApiClient
from tests.api.support import Frames, event, ok, process_gone
from tests.api.test_jobs import SLEEPER, background, pid_of, start_job
from tests.faults.test_kill9 import Client, Served, Zygote
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def flags(data: Path, llm: ScriptedLlmServer) -> list[str]:
    return [
        "--data-dir",
        str(data),
        "--provider",
        "openai-compatible",
        "--base-url",
        llm.base_url,
        "--model",
        "m",
    ]


async def kill_9(zygote: Zygote, served: Served) -> None:
    os.kill(served.pid, signal.SIGKILL)
    assert await zygote.wait(served.pid) == -signal.SIGKILL


async def stop(zygote: Zygote, served: Served) -> None:
    """SIGTERM: a clean exit that printed no traceback."""
    os.kill(served.pid, signal.SIGTERM)
    assert await zygote.wait(served.pid) == 0
    assert "Traceback" not in served.log.read_text()


async def history_until(client: Client, sid: str, etype: str) -> list[dict[str, Any]]:
    for _ in range(1500):
        events = await client.history(sid)
        if any(e["type"] == etype for e in events):
            return events
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {etype} in {sid}")


def of_type(events: list[dict[str, Any]], etype: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == etype]


async def test_kill_9_during_compact_closes_the_compaction_and_its_command(
    tmp_path: Path, scripted_llm: ScriptedLlmServer
) -> None:
    data, work = tmp_path / "data", tmp_path / "work"
    work.mkdir()
    zygote = await Zygote.start(work, tmp_path)
    try:
        await compact_killed_then_restarted(zygote, data, work, scripted_llm)
    finally:
        await zygote.close()


async def compact_killed_then_restarted(
    zygote: Zygote, data: Path, work: Path, scripted_llm: ScriptedLlmServer
) -> None:
    served = await zygote.serve(*flags(data, scripted_llm))
    client = Client(served)
    try:
        sid = (await client.call(SESSION_CREATE, {"cwd": str(work)}))["sessionId"]
        scripted_llm.enqueue(Reply(text="A first answer worth summarising."))
        content = [{"type": "text", "text": "tell me something"}]
        await client.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
        await history_until(client, sid, "turn/end")
        scripted_llm.enqueue(Reply(text="A summary that never ends", hang_after=1))
        compacting = asyncio.create_task(client.call(COMMAND_EXECUTE, {"sessionId": sid, "line": "/compact"}))
        before = await history_until(client, sid, "compact/start")
        assert before[-1]["type"] == "compact/start" and not of_type(before, "compact/end")
        await kill_9(zygote, served)
        compacting.cancel()
        with contextlib.suppress(BaseException):
            await compacting
    finally:
        await client.http.aclose()

    served = await zygote.serve(*flags(data, scripted_llm))
    client = Client(served)
    try:
        cold = await client.history(sid)  # read without loading: repaired in memory
        run = of_type(cold, "command/run")[-1]["data"]
        start = of_type(cold, "compact/start")[-1]["data"]
        assert [e["type"] for e in cold[-2:]] == ["compact/end", "command/done"]
        end, done = cold[-2]["data"], cold[-1]["data"]
        assert end["interrupted"] is True and end["compactionId"] == start["compactionId"]
        assert end["sourceCommandId"] == run["commandId"] and end["error"].startswith("interrupted")
        assert done == {"commandId": run["commandId"], "kind": "interrupted", "text": done["text"]}
        assert "app closed" in done["text"]

        scripted_llm.enqueue(Reply(text="After the restart."))  # loading writes the same repair
        content = [{"type": "text", "text": "and now?"}]
        await client.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
        after = await history_until(client, sid, "assistant/message")
        for _ in range(1500):
            after = await client.history(sid)
            if len(of_type(after, "turn/end")) == 2:
                break
            await asyncio.sleep(0.02)
        assert after[: len(cold)] == cold  # what was shown before is what was written
        assert len(of_type(after, "compact/end")) == 1 and len(of_type(after, "command/done")) == 1

        scripted_llm.enqueue(Reply(text="The summary of it all."))  # compaction works again
        value = await client.call(COMMAND_EXECUTE, {"sessionId": sid, "line": "/compact"})
        final = await client.history(sid)
        assert of_type(final, "command/done")[-1]["data"]["commandId"] == value["commandId"]
        assert of_type(final, "command/done")[-1]["data"]["kind"] == "success"
        assert of_type(final, "compact/summary")
    finally:
        await client.http.aclose()
    await stop(zygote, served)


async def test_a_job_lost_to_kill_9_is_recorded_and_listed_as_stopped(
    tmp_path: Path, scripted_llm: ScriptedLlmServer
) -> None:
    data, work = tmp_path / "data", tmp_path / "work"
    work.mkdir()
    zygote = await Zygote.start(work, tmp_path)
    try:
        await job_killed_then_restarted(zygote, data, work, scripted_llm)
    finally:
        await zygote.close()
    assert not (data / "jobs").exists()


async def job_killed_then_restarted(
    zygote: Zygote, data: Path, work: Path, scripted_llm: ScriptedLlmServer
) -> None:
    served = await zygote.serve(*flags(data, scripted_llm))
    scripted_llm.enqueue(background(SLEEPER), Reply(text="running"))
    async with HttpApiClient(served.base_url, served.token) as api:
        async with Frames(api.stream("events.mux")) as mux:
            sid = (await ok(api, SESSION_CREATE, {"cwd": str(work)})).session_id
            job_id = await start_job(api, mux, sid, SLEEPER)
            pid = await pid_of(api, sid, job_id)
            started = (await ok(api, JOB_LIST, {"sessionId": sid})).jobs[0]
            # the turn that started it ends ("running" is its last reply): a reply the crash left
            # queued would answer the next turn's prompt instead of that turn's own
            await mux.next(event("turn/end", sid), within=30.0)
    await kill_9(zygote, served)
    for _ in range(500):  # the supervisor ends the tree when its host dies
        if process_gone(pid):
            break
        await asyncio.sleep(0.02)

    served = await zygote.serve(*flags(data, scripted_llm))
    async with HttpApiClient(served.base_url, served.token) as api:
        jobs = (await ok(api, JOB_LIST, {"sessionId": sid})).jobs
        assert [(j.id, j.label, j.status, j.detail) for j in jobs] == [
            (job_id, SLEEPER, "killed", "stopped: the app closed")
        ]
        assert jobs[0].started_at == started.started_at and (jobs[0].finished_at or 0) >= started.started_at
        out = await ok(api, JOB_OUTPUT, {"sessionId": sid, "jobId": job_id, "offset": 0})
        assert out.text == f"{pid}\n"  # what it had printed before the crash
        async with Frames(api.stream("events.mux")) as mux:  # the panel's baseline
            _, frame = await mux.next(lambda f: f.type == "session/jobs" and f.session_id == sid)
            assert [(j.id, j.detail) for j in frame.jobs] == [(job_id, "stopped: the app closed")]
        client = Client(served)
        try:
            events = await client.history(sid)
        finally:
            await client.http.aclose()
        lost = of_type(events, "job/lost")
        assert [e["data"] for e in lost] == [
            {
                "jobId": job_id,
                "label": SLEEPER,
                "startedAt": started.started_at,
                "detail": "stopped: the app closed",
            }
        ]
        # the agent is told as context (it waits for the next step)
        spliced = [e for e in of_type(events, "agent/inbox/spliced") if e["seq"] > lost[0]["seq"]]
        told = spliced[-1]["data"]["inserted"][0]["content"][0]["text"]
        assert f"Background job {job_id} was stopped: the app closed" in told
        # a new job never takes the lost one's id
        assert scripted_llm.pending == 0, "a reply of the first turn is still queued"
        scripted_llm.enqueue(background(SLEEPER, "c2"), Reply(text="again"))
        async with Frames(api.stream("events.mux")) as mux:
            second = await start_job(api, mux, sid, SLEEPER)
        assert second != job_id
        listed = (await ok(api, JOB_LIST, {"sessionId": sid})).jobs
        assert [j.id for j in listed] == [job_id, second]
    await stop(zygote, served)
