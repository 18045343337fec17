"""`harnessdesk doctor --self-test`: prove a build works end to end, without a window.

CI runs it on the frozen bundle and on the installed .deb, where "it imports" is not enough:
the host must start in-process, the embedded model (.gguf + xllamacpp's native library) must
load from wherever the bundle put it, and one turn must stream through `InProcessApiClient` —
the same contract path the window's bridge uses. A throwaway data dir keeps the user's
sessions and settings out of it (and a running instance's lock out of the way); the provider is
forced to `local` so no network or API key is involved. Exit 0 on success, 1 on failure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROMPT = "Answer in one short sentence: what colour is the sky on a clear day?"
TIMEOUT_S = 180.0
MIN_CHUNKS = 2  # more than one text delta: the answer streamed, it did not arrive in one piece


@dataclass
class Outcome:
    """What one self-test turn observed."""

    chunks: int = 0
    text: str = ""
    end: str | None = None
    first_chunk_s: float | None = None
    notes: list[str] = field(default_factory=list)


def check_files() -> list[str]:
    """Problems with the files a window needs; the turn does not touch them, a user would."""
    from desktop import paths

    problems = []
    if not (paths.webui_dir() / "index.html").is_file():
        problems.append(f"web UI missing: {paths.webui_dir() / 'index.html'}")
    if not paths.bridge_js().is_file():
        problems.append(f"bridge script missing: {paths.bridge_js()}")
    try:
        import webview

        if not (Path(webview.__file__).parent / "js" / "api.js").is_file():
            problems.append("pywebview's js/ folder missing")
    except ImportError as exc:
        problems.append(f"pywebview not importable: {exc}")
    return problems


async def one_turn(data_dir: Path, workspace: Path, started: float) -> Outcome:
    """Open the host on `data_dir`, prompt the embedded model once, collect the streamed answer."""
    from contract.methods import SESSION_CREATE, SESSION_PROMPT
    from contract.rpc import RpcErr
    from host.api import open_host
    from host.engine.llm.overrides import RuntimeOverrides
    from host.fetch.inprocess import InProcessApiClient

    outcome = Outcome()
    runtime = await open_host(data_dir, RuntimeOverrides(provider="local"))
    try:
        client = InProcessApiClient(runtime.app)
        created = await client.call(SESSION_CREATE, {"cwd": str(workspace)})
        if isinstance(created.result, RpcErr):
            raise RuntimeError(f"session.create failed: {created.result.error.message}")
        sid = str(created.result.value.session_id)
        async with client.stream("events.mux") as frames:
            content = [{"type": "text", "text": PROMPT}]
            answer = await client.call(
                SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content}
            )
            if isinstance(answer.result, RpcErr):
                raise RuntimeError(f"session.prompt failed: {answer.result.error.message}")
            async for rpc_id, frame in frames:
                if getattr(frame, "session_id", sid) != sid:
                    continue
                if frame.type in ("approval/requested", "question/requested"):
                    await _decline(client, rpc_id, frame, outcome)
                elif frame.type == "session/event" and _on_event(frame.event, outcome, started):
                    break
    finally:
        await runtime.close()
    return outcome


def _on_event(event: Any, outcome: Outcome, started: float) -> bool:
    """Record one session event; True once the turn has ended."""
    if event.type == "assistant/chunk" and event.data["chunk"]["type"] == "text-delta":
        outcome.chunks += 1
        outcome.text += event.data["chunk"]["text"]
        if outcome.first_chunk_s is None:
            outcome.first_chunk_s = time.monotonic() - started
    elif event.type == "turn/end":
        outcome.end = str(event.data["reason"]["kind"])
        return True
    return False


async def _decline(client: Any, rpc_id: str, frame: Any, outcome: Outcome) -> None:
    """The model should not call tools here; if it does, refuse rather than run anything."""
    outcome.notes.append(f"declined {frame.type}")
    if frame.type == "approval/requested":
        value = {"sessionId": frame.session_id, "approvalId": frame.approval_id, "outcome": "rejected"}
        await client.respond(rpc_id, {"ok": True, "value": value})
    else:
        error = {"code": "cancelled", "message": "self-test", "details": {}}
        await client.respond(rpc_id, {"ok": False, "error": error})


def _model_line() -> str:
    from host.engine.llm.local import find_model_file

    model = find_model_file()
    return f"embedded model: {model}" if model else "embedded model: NOT FOUND"


def run_self_test(args: argparse.Namespace) -> int:
    """The `doctor --self-test` body: print what was checked, return the exit code."""
    frozen = getattr(sys, "_MEIPASS", None)
    print(f"self-test: {'frozen bundle ' + frozen if frozen else 'source checkout'} ({sys.executable})")
    problems = check_files()
    try:
        print(_model_line())
    except ImportError as exc:
        problems.append(f"host not importable: {exc}")
    os.environ.setdefault("HARNESSDESK_LLAMA_VERBOSITY", "0")  # keep llama.cpp's log off stdout
    scratch = Path(tempfile.mkdtemp(prefix="harnessdesk-selftest-"))
    workspace = scratch / "workspace"
    workspace.mkdir()
    started = time.monotonic()
    try:
        outcome = asyncio.run(asyncio.wait_for(one_turn(scratch / "data", workspace, started), TIMEOUT_S))
    except TimeoutError:
        problems.append(f"no answer within {TIMEOUT_S:.0f} s")
        outcome = Outcome()
    except Exception as exc:  # the whole point is to report, not to crash
        problems.append(f"turn failed: {type(exc).__name__}: {exc}")
        outcome = Outcome()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.monotonic() - started
    if outcome.end is not None and outcome.end != "completed":
        problems.append(f"turn ended {outcome.end!r}, not completed")
    if outcome.end == "completed" and (outcome.chunks < MIN_CHUNKS or not outcome.text.strip()):
        problems.append(f"answer did not stream ({outcome.chunks} text chunks)")
    first = f"{outcome.first_chunk_s:.2f} s" if outcome.first_chunk_s is not None else "-"
    print(
        f"turn: {outcome.end or 'none'}, {outcome.chunks} chunks, first chunk {first}, total {elapsed:.2f} s"
    )
    if outcome.text:
        print(f"answer: {' '.join(outcome.text.split())[:160]}")
    for note in outcome.notes:
        print(f"note: {note}")
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    print("self-test: OK" if not problems else "self-test: FAILED")
    return 0 if not problems else 1
