"""Compaction of a long session: a 200-turn session (a question, a tool call with a 4 KB result and
an answer per turn) is compacted with `/compact`'s engine path against a scripted model on
loopback, for a few context windows. The goal is one model request per compaction, whatever
the session's size; the figures are that count, the summary request's size against the window,
and the time taken (the scripted model answers at once, so this is the host's own cost).

    .venv/bin/python bench/compaction_bench.py [--turns 200] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contract.events import SessionEvent
from host.engine.agent.compaction import Compacted
from host.engine.engine import Engine
from host.engine.llm.overrides import RuntimeOverrides
from host.engine.llm.windows import default_window
from host.engine.store import SessionHeader
from tests.support.scripted_llm import Reply, ScriptedLlmServer

MODELS = ("scripted-small", "gpt-4o", "deepseek-chat")
"""Unknown (32,768 tokens), 128,000 and 128,000: the model name picks the window."""


def turn_events(base: int, turn: int) -> list[SessionEvent]:
    def ev(offset: int, etype: str, data: dict[str, Any]) -> SessionEvent:
        return SessionEvent(type=etype, seq=base + offset, time=1_700_000_000_000 + base, data=data)

    def message(mid: str, role: str, content: list[dict[str, Any]], kind: str) -> dict[str, Any]:
        return {"id": mid, "role": role, "content": content, "source": {"kind": kind}}

    call = {"type": "tool-call", "id": f"c{turn}", "name": "bash", "arguments": '{"command": "make test"}'}
    result = {"type": "tool-result", "toolCallId": f"c{turn}", "content": f"test {turn} ok\n" * 300}
    ask = [{"type": "text", "text": f"Question {turn}: " + "please look at the build again " * 10}]
    answer = [{"type": "text", "text": f"Answer {turn}: " + "the build passes and nothing changed " * 30}]
    return [
        ev(0, "turn/start", {"turn": turn, "trigger": "user"}),
        ev(1, "user/message", message(f"u{turn}", "user", ask, "user")),
        ev(2, "step/start", {"turn": turn, "step": 0}),
        ev(
            3,
            "assistant/message",
            {"turn": turn, "step": 0, "message": message(f"a{turn}", "assistant", [call], "model")},
        ),
        ev(
            4, "tool/call", {"turn": turn, "step": 0, "callId": f"c{turn}", "name": "bash", "arguments": "{}"}
        ),
        ev(
            5,
            "tool/result",
            {"turn": turn, "step": 0, "message": message(f"r{turn}", "tool", [result], "tool")},
        ),
        ev(6, "step/end", {"turn": turn, "step": 0}),
        ev(7, "step/start", {"turn": turn, "step": 1}),
        ev(
            8,
            "assistant/message",
            {"turn": turn, "step": 1, "message": message(f"b{turn}", "assistant", answer, "model")},
        ),
        ev(9, "step/end", {"turn": turn, "step": 1}),
        ev(10, "turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
    ]


async def one(llm: ScriptedLlmServer, model: str, turns: int, data_dir: Path) -> dict[str, Any]:
    overrides = RuntimeOverrides(provider="openai-compatible", base_url=llm.base_url, model=model)
    engine = await Engine.open(data_dir, overrides=overrides, tools={})
    sid = f"long-{model}"
    engine.parts.store.register(SessionHeader(id=sid, created_at=1_700_000_000_000, cwd="/tmp"))
    engine.parts.store.append(sid, [e for t in range(turns) for e in turn_events(t * 11, t)])
    await engine.parts.store.flush()
    llm.reset()
    llm.enqueue(Reply(text="- 200 turns of build checks; all passed."))
    started = time.perf_counter()
    outcome = await engine.agents.compact(sid)
    seconds = time.perf_counter() - started
    await engine.close()
    assert isinstance(outcome, Compacted), outcome
    body = json.dumps(llm.requests[0]) if llm.requests else ""
    window = default_window("openai-compatible", model)
    return {
        "model": model,
        "window": window,
        "shadowed_messages": outcome.shadowed,
        "shadowed_tokens": outcome.tokens,
        "requests": len(llm.requests),
        "request_chars": len(body),
        "request_share_of_window": len(body) / 4 / window,
        "seconds": seconds,
    }


async def main(turns: int, json_file: Path | None) -> None:
    rows = []
    with ScriptedLlmServer() as llm, tempfile.TemporaryDirectory() as root:
        for model in MODELS:
            rows.append(await one(llm, model, turns, Path(root) / model))
    print(f"/compact of a {turns}-turn session (question, tool call, 4 KB result, answer per turn)")
    head = ("model", "window", "shadowed", "~tokens", "requests", "request", "time")
    print(f"{head[0]:<15} " + " ".join(f"{h:>9}" for h in head[1:]))
    for r in rows:
        print(
            f"{r['model']:<15} {r['window']:>8,} {r['shadowed_messages']:>9,} {r['shadowed_tokens']:>9,}"
            f" {r['requests']:>9} {r['request_share_of_window']:>8.0%} {r['seconds'] * 1000:>6.0f}ms"
        )
    if json_file is not None:
        figures = {"turns": turns, "rows": rows, "max_requests": max(r["requests"] for r in rows)}
        json_file.write_text(json.dumps(figures, indent=1), encoding="utf-8")  # noqa: ASYNC240 - once, at the end


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.json))
