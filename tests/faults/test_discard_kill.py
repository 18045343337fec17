"""kill -9 during `git.discard` of 40 files (issue 42, item 5): after the restart either every file
holds what the index holds (the discard happened) or every file still holds the person's edit
(it did not); no file is half written and no staged copy is left in the folder — the undo journal
is finished or rolled back at start (docs/decisions/review-pane.md)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
from pathlib import Path
from typing import Any

from contract.methods import GIT_DISCARD, SESSION_CREATE
from tests.faults.test_kill9 import Client, Zygote
from tests.support.git_repos import git

FILES = 40
SIZE = 1 << 20
MODES = ["staging", "commit", "random", "commit", "staging", "random", "finish"]
SEED = int(os.environ.get("HARNESSDESK_FAULT_SEED", "4242"))


def state(work: Path, committed: dict[str, bytes], edited: dict[str, bytes]) -> str:
    now = {name: (work / name).read_bytes() for name in committed}
    if now == committed:
        return "discarded"
    if now == edited:
        return "edited"
    back = sum(now[n] == committed[n] for n in committed)
    whole = all(now[n] in (committed[n], edited[n]) for n in committed)
    return f"mixed: {back} of {len(committed)} discarded{'' if whole else ', some half written'}"


def shows(journals: Path, wanted: str) -> bool:
    for path in journals.glob("*.json"):
        try:
            if json.loads(path.read_bytes())["state"] == wanted:
                return True
        except (OSError, ValueError):
            continue
    return False


async def journal_shows(journals: Path, wanted: str, call: asyncio.Task[Any]) -> None:
    """Until the discard's journal is in state `wanted` (or the call is over)."""
    while not call.done():
        if shows(journals, wanted):
            return
        await asyncio.sleep(0.001)


async def test_kill_9_during_a_discard_of_40_files_leaves_all_or_nothing(
    tmp_path: Path, scripted_llm: Any
) -> None:
    rng = random.Random(SEED)
    data = tmp_path / "data"
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    committed = {f"f{i:02}.bin": rng.randbytes(SIZE) for i in range(FILES)}
    edited = {name: b"edited " + data_[: SIZE // 2] for name, data_ in committed.items()}
    for name, content in committed.items():
        (work / name).write_bytes(content)
    git(work, "add", "-A")
    git(work, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "start")
    flags = ("--data-dir", str(data), "--provider", "openai-compatible", "--base-url", scripted_llm.base_url)
    zygote = await Zygote.start(work, tmp_path)
    outcomes: list[str] = []
    try:
        served = await zygote.serve(*flags, "--model", "m")
        client = Client(served)
        for kill, mode in enumerate(MODES):
            # a session nothing was said in is not kept across a restart: a new one each time
            sid = (await client.call(SESSION_CREATE, {"cwd": str(work)}))["sessionId"]
            if kill == 0 or outcomes[-1] == "discarded":  # the person edits every file (again)
                for name, content in edited.items():
                    (work / name).write_bytes(content)
            body = {"sessionId": sid, "paths": sorted(committed)}
            call = asyncio.create_task(client.call(GIT_DISCARD, body))
            if mode == "finish":
                await call
            elif mode == "random":
                await asyncio.sleep(rng.uniform(0.0, 1.0))
            else:
                await journal_shows(data / "review" / "undo-journal", mode, call)
            os.kill(served.pid, signal.SIGKILL)
            assert await zygote.wait(served.pid) == -signal.SIGKILL
            await asyncio.gather(call, return_exceptions=True)
            await client.http.aclose()

            served = await zygote.serve(*flags, "--model", "m")  # the start finishes or rolls back
            client = Client(served)
            outcome = state(work, committed, edited)
            outcomes.append(outcome)
            assert outcome in ("discarded", "edited"), f"kill {kill} ({mode}): {outcome}"
            left = [p.name for p in work.iterdir() if p.name.startswith(".") and p.name != ".git"]
            assert left == [], f"kill {kill}: left in the folder: {left}"
            assert not list((data / "review" / "undo-journal").glob("*.json"))
        await client.http.aclose()
    finally:
        await zygote.close()
    print("outcomes after each kill:", outcomes)
    assert outcomes[-1] == "discarded" and "edited" in outcomes, outcomes
