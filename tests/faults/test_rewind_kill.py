"""kill -9 during `session.rewind` with its files put back (issue 45, item 5): after the restart
either every file is back as it was before the rewound message and the log says the session was
rewound (`files/restored` and `session/rewound`), or no file is and nothing says so; no staged
copy is left in the folder (docs/decisions.md, "Rewind in place": the undo journal carries the
rewind and the start finishes or rolls it back)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

from contract.methods import SESSION_CREATE, SESSION_PROMPT, SESSION_REWIND
from tests.faults.test_kill9 import Client, Zygote
from tests.faults.test_revert_kill import SCRIBBLE, journal_shows, state, wait_idle
from tests.support.scripted_llm import Reply

FILES = 60
SIZE = 1 << 19
MODES = ["staging", "commit", "random", "commit", "finish"]
SEED = int(os.environ.get("HARNESSDESK_FAULT_SEED", "4545"))


async def test_kill_9_during_a_rewind_leaves_all_or_nothing(tmp_path: Path, scripted_llm: Any) -> None:
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
        at = -1
        for kill, mode in enumerate(MODES):
            if kill == 0 or outcomes[-1] == "before":  # (again) a turn whose bash changes every file
                command = json.dumps({"command": f"{sys.executable} scribble.py"})
                scripted_llm.reset()
                scripted_llm.enqueue(Reply(tool_calls=[(f"b{kill}", "bash", command)]), Reply(text="done"))
                content = [{"type": "text", "text": f"scribble {kill}"}]
                await client.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
                await wait_idle(client, sid)
                assert state(work, before) == "after"
                history = await client.history(sid)
                at = max(e["seq"] for e in history if e["type"] == "user/message")
            body = {"sessionId": sid, "atSeq": at, "restoreFiles": True}
            call = asyncio.create_task(client.call(SESSION_REWIND, body))
            if mode == "finish":
                await call
            elif mode == "random":
                await asyncio.sleep(rng.uniform(0.0, 1.0))
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
            rewound = [e for e in history if e["type"] == "session/rewound" and e["data"]["atSeq"] == at]
            restored = [
                e for e in history if e["type"] == "files/restored" and e["data"]["cause"] == "rewind"
            ]
            restored = [e for e in restored if e["seq"] > at]
            if outcome == "before":
                assert len(rewound) == 1 and len(rewound[0]["data"]["restoredFiles"]) == FILES
                assert len(restored) == 1
            else:
                assert rewound == [] and restored == []
            assert not list((data / "undo-journal").glob("*.json"))
        await client.http.aclose()
    finally:
        await zygote.close()
    print("outcomes after each kill:", outcomes)
    assert outcomes[-1] == "before" and "before" in outcomes[:-1], outcomes
