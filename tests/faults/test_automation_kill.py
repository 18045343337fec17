"""kill -9 of `harnessdesk serve` in the middle of an automation's run
(docs/decisions/automations.md): after the restart the run is there once, repaired (failed, with
why), its session kept, no second run started for it, and the automation runs again on demand.
Real git and SQLite; the scripted provider hangs mid-answer so the kill lands inside the turn."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

from contract.methods import (
    AUTOMATION_CREATE,
    AUTOMATION_LIST,
    AUTOMATION_RUN_NOW,
    AUTOMATION_RUNS,
    SESSION_LIST,
)
from tests.faults.test_kill9 import Client, Zygote
from tests.support.git_repos import make_repo, place
from tests.support.scripted_llm import Reply

__all__ = ["place"]


async def until(check: Any, within: float = 30.0) -> Any:
    deadline = time.monotonic() + within
    while True:
        found = await check()
        if found:
            return found
        assert time.monotonic() < deadline, "never happened"
        await asyncio.sleep(0.05)


async def test_kill_9_mid_run_leaves_one_run_repaired_and_none_started_twice(
    place: Path, scripted_llm: Any
) -> None:
    repo = make_repo(place / "repo")
    data = place / "data"
    flags = ["--data-dir", str(data), "--provider", "openai-compatible", "--base-url", scripted_llm.base_url]
    scripted_llm.enqueue(Reply(text="thinking " * 200, hang_after=3))
    zygote = await Zygote.start(place, place)
    try:
        served = await zygote.serve(*flags, "--model", "m")
        client = Client(served)
        created = await client.call(
            AUTOMATION_CREATE,
            {
                "name": "Nightly",
                "cwd": str(repo),
                "prompt": [{"type": "text", "text": "summarise yesterday's commits"}],
                "trigger": {"kind": "manual"},
            },
        )
        aid = created["automationId"]
        started = await client.call(AUTOMATION_RUN_NOW, {"automationId": aid})

        async def mid_turn() -> bool:
            return any("yesterday" in str(r["messages"]) for r in scripted_llm.requests)

        await until(mid_turn)
        running = await client.call(AUTOMATION_RUNS, {})
        assert [r["outcome"] for r in running["items"]] == ["running"]
        os.kill(served.pid, signal.SIGKILL)
        assert await zygote.wait(served.pid) == -signal.SIGKILL
        await client.http.aclose()
        asked_before = len(scripted_llm.requests)

        served = await zygote.serve(*flags, "--model", "m")
        client = Client(served)
        [run] = (await client.call(AUTOMATION_RUNS, {}))["items"]
        assert run["runId"] == started["runId"] and run["sessionId"] == started["sessionId"]
        assert (
            run["outcome"] == "failed" and "stopped" in run["summary"] and run["endedAt"] >= run["startedAt"]
        )
        [item] = (await client.call(AUTOMATION_LIST, {}))["items"]
        assert item["lastRun"]["runId"] == run["runId"]
        sessions = (await client.call(SESSION_LIST, {}))["items"]
        assert [s["sessionId"] for s in sessions] == [run["sessionId"]]  # no second run's session
        assert len(scripted_llm.requests) == asked_before  # nothing asked the model again
        scripted_llm.enqueue(Reply(text="All quiet yesterday"))
        again = await client.call(AUTOMATION_RUN_NOW, {"automationId": aid})  # not blocked

        async def second_done() -> list[dict[str, Any]]:
            items = (await client.call(AUTOMATION_RUNS, {"automationId": aid}))["items"]
            return items if len(items) == 2 and items[0]["outcome"] != "running" else []

        items = await until(second_done)
        assert items[0]["runId"] == again["runId"] and items[0]["outcome"] == "answered"
        assert items[0]["summary"] == "All quiet yesterday"
        await client.http.aclose()
        os.kill(served.pid, signal.SIGTERM)
        assert await zygote.wait(served.pid) == 0
        assert "Traceback" not in served.log.read_text()
    finally:
        await zygote.close()
