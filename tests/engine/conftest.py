"""Engine test fixtures: real SQLite files under tmp_path, helpers to build events."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import pytest

from contract.events import SessionEvent
from host.engine.store import SessionHeader, SqliteStore


def ev(seq: int, etype: str, data: dict[str, Any] | None = None, **extra: Any) -> SessionEvent:
    """A session event with a fixed time (tests compare exact values)."""
    return SessionEvent(type=etype, seq=seq, time=1_000 + seq, data=data or {}, **extra)


def user_msg(text: str, mid: str = "m", source: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": mid,
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": source or {"kind": "user", "rpcId": "r"},
    }


def assistant_data(
    text: str, turn: int = 0, step: int = 0, calls: list[tuple[str, str]] | None = None
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for cid, name in calls or []:
        content.append({"type": "tool-call", "id": cid, "name": name, "arguments": "{}"})
    return {
        "turn": turn,
        "step": step,
        "message": {
            "id": f"a{turn}{step}",
            "role": "assistant",
            "content": content,
            "source": {"kind": "model"},
        },
    }


def answered_turn(turn: int, base: int) -> list[SessionEvent]:
    """One turn's opening at seq `base`: start, question, two streamed deltas and the answer that
    joins them (the caller adds the turn's other events and its end)."""
    chunk = {"turn": turn, "step": 0, "chunk": {"type": "text-delta", "index": 0, "text": "a"}}
    return [
        ev(base, "turn/start", {"turn": turn, "trigger": "user"}),
        ev(base + 1, "user/message", user_msg("q", f"u{turn}")),
        ev(base + 2, "assistant/chunk", chunk),
        ev(base + 3, "assistant/chunk", chunk),
        ev(base + 4, "assistant/message", assistant_data("aa", turn), source_event_seqs=[base + 2, base + 3]),
    ]


def header(sid: str = "s1", cwd: str = "/tmp") -> SessionHeader:
    return SessionHeader(id=sid, created_at=int(time.time() * 1000), cwd=cwd)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore.in_dir(tmp_path)
    await s.open()
    yield s
    await s.close()


def real_tools() -> dict[str, Any]:
    """The real tool set (host.engine.tools.build_tools)."""
    from host.engine import tools

    return tools.build_tools()


@pytest.fixture
async def engine_factory(tmp_path: Path, scripted_llm: Any) -> AsyncIterator[Any]:
    """Open Engines on tmp_path whose provider is the scripted OpenAI-compatible server."""
    from host.engine.engine import Engine
    from host.engine.llm.overrides import RuntimeOverrides

    opened: list[Engine] = []

    async def make(
        data_dir: Path | None = None,
        tools: dict[str, Any] | Literal["engine"] | None = None,
        windows: dict[str, int] | None = None,
        **kw: Any,
    ) -> Engine:
        """`windows`: context windows per model (the endpoint's `contextWindow` settings);
        `tools="engine"`: the engine's own set (the web, image and language-server tools too)."""
        overrides = RuntimeOverrides(
            provider="openai-compatible", base_url=scripted_llm.base_url, model="scripted-small"
        )
        engine = await Engine.open(
            data_dir or tmp_path / "data",
            overrides=overrides,
            adapter_options={"retry_base_delay": 0.01},
            tools=None if tools == "engine" else tools if tools is not None else real_tools(),
            **kw,
        )
        opened.append(engine)
        if windows:
            models = [{"id": model, "contextWindow": window} for model, window in windows.items()]
            profile = {"id": "openai-compatible", "name": "Scripted", "baseURL": scripted_llm.base_url}
            await engine.config.update_settings(
                "llm-openai-compatible", {"profiles": [{**profile, "models": models}]}, None
            )
        return engine

    yield make
    for engine in opened:
        await engine.close()


async def frames_until(sub: Any, pred: Any, limit_s: float = 15.0) -> list[Any]:
    """Frames from a bus subscription up to and including the first one matching `pred`."""
    import asyncio

    seen: list[Any] = []

    async def collect() -> list[Any]:
        while True:
            item = await sub.get()
            if item is None:
                raise AssertionError(f"stream ended; saw {[getattr(f, 'type', f) for f in seen]}")
            seen.append(item[1])
            if pred(item[1]):
                return seen

    return await asyncio.wait_for(collect(), limit_s)


def is_event(etype: str, **data: Any) -> Any:
    """Predicate: a session/event frame of `etype` whose data contains `data`."""

    def pred(frame: Any) -> bool:
        if getattr(frame, "type", None) != "session/event" or frame.event.type != etype:
            return False
        return all(frame.event.data.get(k) == v for k, v in data.items())

    return pred


def events_of(frames: list[Any]) -> list[Any]:
    return [f.event for f in frames if getattr(f, "type", None) == "session/event"]
