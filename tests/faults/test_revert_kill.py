"""kill -9 during `files.revertTurn` of 120 files (issue 24): after the restart either every file
is back as it was before the turn and `files/restored` says so, or none is and nothing says so;
no staged copy is ever left in the person's folder (docs/architecture.md, "Checkpoints and undo":
the journal is finished or rolled back at start). The files were changed by a `bash` command, so
the content put back comes from the folder's snapshots."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

from contract.methods import FILES_REVERT_TURN, SESSION_CREATE, SESSION_LIST, SESSION_PROMPT
from tests.faults.test_kill9 import Client, Zygote
from tests.support.scripted_llm import Reply

FILES = 120
SIZE = 1 << 20
MODES = ["staging", "commit", "random", "commit", "staging", "random", "commit", "finish"]
"""When each kill lands: once the journal shows that state, after a random delay, or after the
revert answered (the last: what is done stays done)."""
SEED = int(os.environ.get("HARNESSDESK_FAULT_SEED", "2424"))

SCRIBBLE = (
    "import pathlib\n"
    "for p in sorted(pathlib.Path('.').glob('f*.bin')):\n"
    "    p.write_bytes(b'after ' + p.name.encode() + b'\\n')\n"
)


def state(work: Path, before: dict[str, bytes]) -> str:
    """`before` (every file put back), `after` (none), or what is mixed."""
    now = {p.name: p.read_bytes() for p in work.glob("f*.bin")}
    back = sum(1 for name, data in before.items() if now.get(name) == data)
    if back == len(before):
        return "before"
    if back == 0 and all(now[n] == b"after " + n.encode() + b"\n" for n in before):
        return "after"
    return f"mixed: {back} of {len(before)} put back"


async def journal_shows(data: Path, wanted: str, call: asyncio.Task[Any]) -> None:
    """Until the revert's journal is in state `wanted` (or the call is over)."""
    while not call.done():
        for path in (data / "undo-journal").glob("*.json"):
            try:
                if json.loads(path.read_bytes())["state"] == wanted:
                    return
            except (OSError, ValueError):
                continue
        await asyncio.sleep(0.001)


async def wait_idle(client: Client, sid: str) -> None:
    for _ in range(1200):
        listed = (await client.call(SESSION_LIST, {}))["items"]
        if not any(s["running"] for s in listed if s["sessionId"] == sid):
            history = await client.history(sid)
            if sum(e["type"] == "turn/start" for e in history) == sum(
                e["type"] == "turn/end" for e in history
            ):
                return
        await asyncio.sleep(0.05)
    raise AssertionError("the turn did not end")


async def test_kill_9_during_a_revert_of_120_files_leaves_all_or_nothing(
    tmp_path: Path, scripted_llm: Any
) -> None:
    rng = random.Random(SEED)
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(
        json.dumps({"version": 2, "namespaces": {"permission": {"defaultPreset": "danger-full-access"}}})
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "scribble.py").write_text(SCRIBBLE)
    before = {}
    for i in range(FILES):
        name = f"f{i:03}.bin"
        before[name] = rng.randbytes(SIZE)
        (work / name).write_bytes(before[name])
    flags = ("--data-dir", str(data), "--provider", "openai-compatible", "--base-url", scripted_llm.base_url)
    zygote = await Zygote.start(work, tmp_path)
    outcomes: list[str] = []
    try:
        served = await zygote.serve(*flags, "--model", "m")
        client = Client(served)
        sid = (await client.call(SESSION_CREATE, {"cwd": str(work)}))["sessionId"]
        reverted = 0
        for kill, mode in enumerate(MODES):
            if kill == 0 or outcomes[-1] == "before":  # (again) a turn whose bash changes every file
                command = json.dumps({"command": f"{sys.executable} scribble.py"})
                scripted_llm.reset()
                scripted_llm.enqueue(Reply(tool_calls=[(f"b{kill}", "bash", command)]), Reply(text="done"))
                content = [{"type": "text", "text": "scribble"}]
                await client.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
                await wait_idle(client, sid)
                assert state(work, before) == "after"
            history = await client.history(sid)
            turn = max(e["data"]["turn"] for e in history if e["type"] == "turn/end")
            body = {"sessionId": sid, "turn": turn}
            call = asyncio.create_task(client.call(FILES_REVERT_TURN, body))
            if mode == "finish":
                await call
            elif mode == "random":
                await asyncio.sleep(rng.uniform(0.0, 1.5))
            else:
                await journal_shows(data, mode, call)
            os.kill(served.pid, signal.SIGKILL)
            assert await zygote.wait(served.pid) == -signal.SIGKILL
            await asyncio.gather(call, return_exceptions=True)
            await client.http.aclose()

            served = await zygote.serve(*flags, "--model", "m")  # the start finishes or rolls back
            client = Client(served)
            outcome = state(work, before)
            outcomes.append(outcome)
            assert outcome in ("before", "after"), f"kill {kill}: {outcome}"
            staged = [p.name for p in work.iterdir() if p.name.startswith(".")]
            assert staged == [], f"kill {kill}: left in the folder: {staged}"
            history = await client.history(sid)
            records = [e for e in history if e["type"] == "files/restored" and e["data"]["turn"] == turn]
            if outcome == "before":
                reverted += 1
                assert len(records) == 1 and records[0]["data"].get("error") is None
                assert len(records[0]["data"]["files"]) == FILES
            else:
                assert records == []
            assert not list((data / "undo-journal").glob("*.json"))
        await client.http.aclose()
    finally:
        await zygote.close()
    print("outcomes after each kill:", outcomes)
    assert outcomes[-1] == "before" and reverted >= 1, outcomes
