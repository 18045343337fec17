"""The peer for the history-over-HTTP goals: opencode serving the same 1,000-turn session
(bench/open_bench.py runs it alongside HarnessDesk, calls alternated, when it is installed).

opencode is found with `which opencode` (or at `$HARNESSDESK_BENCH_OPENCODE`). The session is
written in opencode's own export format with the same content as bench/open_bench.py's turns (a
question; a `read` tool call and its diff-like result; an answer with a code block), imported with
`opencode import` into a data directory of its own (HOME and the XDG directories point into a
temporary folder: the person's own opencode data is never read or written), then
`opencode serve` answers `GET /session/{id}/message` over loopback: `?limit=50` is the first
page, no limit the whole session. Without opencode the goals' rows say "no baseline".
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import string
import subprocess
from pathlib import Path
from typing import Any

ENV = "HARNESSDESK_BENCH_OPENCODE"
LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")
MODEL = {"providerID": "scripted", "modelID": "scripted-small"}


def find() -> str | None:
    """The opencode executable, or None."""
    return os.environ.get(ENV) or shutil.which("opencode")


def version(exe: str) -> str:
    done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    return done.stdout.strip()


class Ids:
    """opencode's ids sort by creation: a hex counter, then random letters."""

    def __init__(self) -> None:
        self.counter = 0x249E00000000
        self.rng = random.Random(5)

    def __call__(self, prefix: str) -> str:
        self.counter += 1
        tail = "".join(self.rng.choices(string.ascii_letters + string.digits, k=14))
        return f"{prefix}_{self.counter:012x}{tail}"


def session_export(turns: int, cwd: str, texts: Any) -> tuple[str, dict[str, Any]]:
    """(session id, export JSON) of `turns` turns; `texts(turn)` gives the question, the tool
    call's path, its result and the answer (bench/open_bench.py's content)."""
    ids = Ids()
    sid = ids("ses")
    t0 = 1_700_000_000_000
    messages: list[dict[str, Any]] = []
    tokens = {"total": 1240, "input": 1200, "output": 40, "reasoning": 0, "cache": {"write": 0, "read": 0}}
    for turn in range(turns):
        question, path, result, answer = texts(turn)
        now = t0 + turn * 10_000
        user_id = ids("msg")
        messages.append(
            {
                "info": {
                    "role": "user",
                    "time": {"created": now},
                    "agent": "build",
                    "model": MODEL,
                    "summary": {"diffs": []},
                    "id": user_id,
                    "sessionID": sid,
                },
                "parts": [
                    {
                        "type": "text",
                        "text": question,
                        "id": ids("prt"),
                        "sessionID": sid,
                        "messageID": user_id,
                    }
                ],
            }
        )
        for step in range(2):
            msg_id = ids("msg")
            info = {
                "parentID": user_id,
                "role": "assistant",
                "mode": "build",
                "agent": "build",
                "path": {"cwd": cwd, "root": "/"},
                "cost": 0,
                "tokens": tokens,
                **MODEL,
                "time": {"created": now + 1000 * (step + 1), "completed": now + 1000 * (step + 1) + 500},
                "finish": "tool-calls" if step == 0 else "stop",
                "id": msg_id,
                "sessionID": sid,
            }
            start = {"type": "step-start", "id": ids("prt"), "sessionID": sid, "messageID": msg_id}
            if step == 0:
                body: dict[str, Any] = {
                    "type": "tool",
                    "callID": f"call-{turn}",
                    "tool": "read",
                    "state": {
                        "status": "completed",
                        "input": {"filePath": path},
                        "output": result,
                        "title": path,
                        "metadata": {},
                        "time": {"start": now + 1100, "end": now + 1200},
                    },
                }
            else:
                body = {"type": "text", "text": answer, "time": {"start": now + 2100, "end": now + 2200}}
            body |= {"id": ids("prt"), "sessionID": sid, "messageID": msg_id}
            finish = {
                "reason": info["finish"],
                "type": "step-finish",
                "tokens": tokens,
                "cost": 0,
                "id": ids("prt"),
                "sessionID": sid,
                "messageID": msg_id,
            }
            messages.append({"info": info, "parts": [start, body, finish]})
    info = {
        "id": sid,
        "slug": "long-session",
        "projectID": "global",
        "directory": cwd,
        "path": cwd.lstrip("/"),
        "title": "long session",
        "agent": "build",
        "version": "1.18.33",
        "model": {"id": MODEL["modelID"], "providerID": MODEL["providerID"], "variant": "default"},
        "summary": {"additions": 0, "deletions": 0, "files": 0},
        "cost": 0,
        "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "time": {"created": t0, "updated": t0 + turns * 10_000},
    }
    return sid, {"info": info, "messages": messages}


class Opencode:
    """opencode in a home of its own: the session imported, then `opencode serve`."""

    def __init__(self, exe: str, root: Path, turns: int, texts: Any) -> None:
        self.exe = exe
        home, self.work = root / "home", root / "work"
        self.work.mkdir(parents=True)
        home.mkdir(parents=True)
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("OPENCODE", "XDG_"))},
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_STATE_HOME": str(home / "state"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
        }
        (self.work / "opencode.json").write_text(json.dumps({"autoupdate": False, "share": "disabled"}))
        self.session_id, export = session_export(turns, str(self.work), texts)
        path = root / "export.json"
        path.write_text(json.dumps(export), encoding="utf-8")
        done = subprocess.run(
            [exe, "import", str(path)],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise RuntimeError(f"opencode import failed: {done.stderr[-1000:]}")
        self.proc = subprocess.Popen(
            [exe, "serve", "--port", "0", "--hostname", "127.0.0.1"],
            cwd=self.work,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        for _ in range(200):
            line = self.proc.stdout.readline()
            if not line:
                break
            if match := LISTENING.search(line):
                self.base = match.group(1)
                return
        self.close()
        raise RuntimeError("opencode serve printed no listening line")

    def url(self, limit: int | None) -> str:
        query = f"?limit={limit}" if limit is not None else ""
        return f"{self.base}/session/{self.session_id}/message{query}"

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
