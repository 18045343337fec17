"""The openai-compatible adapter builds its HTTP client off the event loop (loading the CA bundle
blocks for 30 to 375 ms), once, even when the first requests arrive together; and keeps its
connection from one streamed answer to the next."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest

from contract.content import Message, MessageSource, TextBlock
from host.engine.llm import LlmRequest, OpenAICompatibleAdapter
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def request(text: str) -> LlmRequest:
    message = Message(id="u1", role="user", content=[TextBlock(text=text)], source=MessageSource(kind="user"))
    return LlmRequest(model="scripted-small", messages=[message])


async def test_client_is_built_off_the_loop_and_shared(
    scripted_llm: ScriptedLlmServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    built_on: list[int] = []
    real_init = httpx.AsyncClient.__init__

    def recording_init(self: httpx.AsyncClient, *args: Any, **kwargs: Any) -> None:
        built_on.append(threading.get_ident())
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "__init__", recording_init)
    scripted_llm.enqueue(Reply(text="first answer"))
    scripted_llm.enqueue(Reply(text="second answer"))
    adapter = OpenAICompatibleAdapter(scripted_llm.base_url)
    try:

        async def text(prompt: str) -> str:
            return "".join([c.text async for c in adapter.stream(request(prompt)) if c.type == "text-delta"])

        answers = await asyncio.gather(text("one"), text("two"))
        models = await adapter.list_models()
        client = adapter._client
    finally:
        await adapter.aclose()
    assert sorted(answers) == ["first answer", "second answer"]
    assert "scripted-small" in [m.id for m in models]
    assert built_on and threading.get_ident() not in built_on
    assert client is not None and client.is_closed  # the one kept was closed with the adapter


async def test_one_connection_serves_one_streamed_answer_after_another(
    scripted_llm: ScriptedLlmServer,
) -> None:
    """A streamed answer is read to the end of its body after `[DONE]`, so the next request
    reuses the connection instead of opening one (docs/decisions/first-token-fan-out.md)."""
    scripted_llm.enqueue(*[Reply(text=f"answer {i}", chunk_size=3, delay=0.001) for i in range(3)])
    adapter = OpenAICompatibleAdapter(scripted_llm.base_url)
    try:
        answers = [
            "".join([c.text async for c in adapter.stream(request(f"q{i}")) if c.type == "text-delta"])
            for i in range(3)
        ]
    finally:
        await adapter.aclose()
    assert answers == ["answer 0", "answer 1", "answer 2"]
    assert len(scripted_llm.request_peers) == 3
    assert len(set(scripted_llm.request_peers)) == 1, scripted_llm.request_peers
