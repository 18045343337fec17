"""Item 8: retry reasons (logged, and stored as `request/retry` events) and one log line carried
the API key unscrubbed when a provider echoed it in an error. Failures are scrubbed where they
are built, before anything logs or records them."""

from __future__ import annotations

import logging

import pytest

from contract.content import Message, MessageSource, TextBlock
from host.engine.llm.base import LlmError, LlmRequest
from host.engine.llm.openai_compat import OpenAICompatibleAdapter
from tests.support.scripted_llm import Reply, ScriptedLlmServer

KEY = "sk-echoed-back-0123456789abcdef"


async def test_an_echoed_key_reaches_no_retry_reason_log_or_error(
    llm: ScriptedLlmServer, caplog: pytest.LogCaptureFixture
) -> None:
    echo = f"Incorrect API key provided: {KEY}. Rate limited."
    llm.enqueue(
        Reply(status=429, retry_after=0, error_message=echo),
        Reply(status=503, error_message=echo),
        Reply(status=401, error_message=echo),
    )
    adapter = OpenAICompatibleAdapter(llm.base_url, KEY, retry_base_delay=0.01, max_retries=3)
    reasons: list[str] = []
    message = Message(id="m1", role="user", content=[TextBlock(text="hi")], source=MessageSource(kind="user"))
    request = LlmRequest(model="m", messages=[message], on_retry=lambda _a, _d, why: reasons.append(why))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LlmError) as failed:
        async for _ in adapter.stream(request):
            pass
    await adapter.aclose()
    assert len(reasons) == 2 and all("***" in r and KEY not in r for r in reasons)
    assert KEY not in str(failed.value) and "***" in str(failed.value)
    assert all(KEY not in record.getMessage() for record in caplog.records)
    assert any("retry" in record.getMessage() for record in caplog.records)
