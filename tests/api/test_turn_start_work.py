"""A turn's start does once what does not change between turns
(docs/decisions/turn-start-work-once.md), counted on the real host and the scripted provider:
the tools' wire form is cleaned and their size measured once per tool schema, not at every
model request; the model routes are built once per change of their settings, not at each
adapter lookup. What the provider receives stays the same, and a settings change still reaches
the routes at once."""

from __future__ import annotations

from typing import Any

import pytest

from contract.methods import SETTINGS_UPDATE
from host import textsafe
from host.engine.llm import tool_wire
from host.engine.llm.base import ToolSpec
from host.engine.llm.openai_format import to_openai_tools
from host.engine.llm.routes import build_routes
from tests.api.conftest import Host
from tests.api.support import event, ok, prompt
from tests.support.scripted_llm import Reply, ScriptedLlmServer

SESSIONS = 3


@pytest.fixture
def carrier() -> str:
    """The engine's work is what is counted here: one carrier is enough."""
    return "inprocess"


def _strings(value: Any) -> int:
    """The strings (keys included) in a JSON value: what `clean_json` looks at."""
    if isinstance(value, str):
        return 1
    if isinstance(value, dict):
        return sum(1 + _strings(v) for v in value.values())
    if isinstance(value, list):
        return sum(_strings(v) for v in value)
    return 0


async def _round(host: Host, llm: ScriptedLlmServer, sids: list[str], words: str) -> None:
    """One turn in each session, prompted one after the other, all running at once."""
    llm.enqueue(*[Reply(text="done") for _ in sids])
    client = host.client()
    mux = await host.mux(client)
    for sid in sids:
        await prompt(client, sid, words)
    waiting = set(sids)
    while waiting:  # in the order they end
        _, frame = await mux.next(lambda f: event("turn/end")(f) and f.session_id in waiting)
        waiting.discard(frame.session_id)


async def test_tools_are_cleaned_and_measured_once_per_schema(
    host: Host, llm: ScriptedLlmServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    sids = [await host.create() for _ in range(SESSIONS)]
    await _round(host, llm, sids, "first")
    first = list(llm.requests)
    assert len(first) == SESSIONS and first[0]["tools"]

    cleaned: list[str] = []
    real = textsafe.clean_text

    def counted(text: str) -> str:
        cleaned.append(text)
        return real(text)

    monkeypatch.setattr(textsafe, "clean_text", counted)  # what clean_json calls per string
    built = tool_wire.built()
    await _round(host, llm, sids, "second")
    second = llm.requests[SESSIONS:]
    assert len(second) == SESSIONS

    # the old way cleaned every tool's strings at every request: SESSIONS times these
    tool_strings = _strings(second[0]["tools"])
    assert tool_strings > 100
    assert len(cleaned) < tool_strings
    assert tool_wire.built() == built  # no wire form built, no size measured again
    # the provider receives the same tools, as the tools offered define them
    offered = {t.name: t for t in host.engine.parts.tools.values()}
    for request in [*first, *second]:
        assert request["tools"] == first[0]["tools"]
    names = [t["function"]["name"] for t in first[0]["tools"]]
    specs = [ToolSpec(n, offered[n].description, offered[n].parameters) for n in names if n in offered]
    assert specs, "none of the built-in tools was offered"
    by_name = {t["function"]["name"]: t for t in first[0]["tools"]}
    assert [by_name[s.name] for s in specs] == to_openai_tools(specs)
    assert len(cleaned) >= SESSIONS  # the rest of each request is still cleaned, per request


async def test_routes_are_built_once_per_settings_change(
    host: Host, llm: ScriptedLlmServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    sids = [await host.create() for _ in range(SESSIONS)]
    await _round(host, llm, sids, "first")
    builds: list[int] = []
    real = build_routes

    def counted(*args: Any, **kw: Any) -> Any:
        builds.append(1)
        return real(*args, **kw)

    monkeypatch.setattr("host.engine.settings.configuration.build_routes", counted)
    await _round(host, llm, sids, "second")
    assert builds == []  # the old way: several builds per turn (each adapter lookup)

    registry = host.engine.parts.registry
    assert (route := registry.route("deepseek")) is not None and route.max_tokens is None
    await ok(host.client(), SETTINGS_UPDATE, {"ns": "llm-deepseek", "patch": {"maxTokens": 321}})
    assert (route := registry.route("deepseek")) is not None and route.max_tokens == 321
    assert len(builds) == 1
    await _round(host, llm, sids, "third")
    assert len(builds) == 1
