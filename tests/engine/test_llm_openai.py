"""The openai-compatible adapter against the scripted server (a real HTTP peer on loopback)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import httpx
import pytest

from contract.content import (
    AttachmentRef,
    ImageBlock,
    Message,
    MessageSource,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
)
from host.engine.llm import LlmError, LlmRequest, OpenAICompatibleAdapter, ToolSpec
from tests.support.scripted_llm import Reply, ScriptedLlmServer

FAST: dict[str, Any] = {"retry_base_delay": 0.01, "retry_max_delay": 0.05}


def user(text: str) -> Message:
    return Message(id="u1", role="user", content=[TextBlock(text=text)], source=MessageSource(kind="user"))


def request(*messages: Message, **kw: Any) -> LlmRequest:
    return LlmRequest(model="scripted-small", messages=list(messages) or [user("hi")], **kw)


async def collect(adapter: OpenAICompatibleAdapter, req: LlmRequest) -> list[Any]:
    return [chunk async for chunk in adapter.stream(req)]


def text_of(chunks: list[Any], kind: str = "text-delta") -> str:
    return "".join(c.text for c in chunks if c.type == kind)


@pytest.fixture
async def adapter(scripted_llm: ScriptedLlmServer):
    a = OpenAICompatibleAdapter(scripted_llm.base_url, **FAST)
    yield a
    await a.aclose()


async def test_text_streams_as_one_block(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    scripted_llm.enqueue(Reply(text="Hello there, world!", chunk_size=3))
    chunks = await collect(adapter, request(user("hi"), system="Be terse."))
    assert [c.type for c in chunks[:2]] == ["block-start", "text-delta"]
    assert chunks[0].index == 0 and chunks[0].block_type == "text"
    assert len([c for c in chunks if c.type == "text-delta"]) == 7
    assert text_of(chunks) == "Hello there, world!"
    end = next(c for c in chunks if c.type == "block-end")
    assert end.block == TextBlock(text="Hello there, world!")
    assert [c.type for c in chunks[-2:]] == ["usage", "finish"] and chunks[-1].reason == "stop"
    body = scripted_llm.requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "hi"},
    ]
    assert "tools" not in body


async def test_reasoning_content_becomes_a_reasoning_block(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    scripted_llm.enqueue(Reply(reasoning="Let me think it over.", text="42"))
    chunks = await collect(adapter, request())
    starts = [(c.index, c.block_type) for c in chunks if c.type == "block-start"]
    assert starts == [(0, "reasoning"), (1, "text")]
    ends = [c.block for c in chunks if c.type == "block-end"]
    assert ends == [ReasoningBlock(text="Let me think it over."), TextBlock(text="42")]
    assert all(c.index == 0 for c in chunks if c.type == "reasoning-delta")


@pytest.mark.parametrize("repeat", [False, True], ids=["openai", "llamacpp-repeats-identity"])
async def test_tool_calls(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter, repeat: bool
) -> None:
    calls = [("call_a", "read_file", '{"path": "README.md"}'), ("call_b", "bash", '{"command": "ls -la"}')]
    scripted_llm.enqueue(Reply(text="Checking.", tool_calls=calls, repeat_tool_identity=repeat, chunk_size=5))
    spec = ToolSpec(
        "read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    chunks = await collect(adapter, request(tools=[spec]))
    assert [(c.index, c.block_type) for c in chunks if c.type == "block-start"] == [
        (0, "text"),
        (1, "tool-call"),
        (2, "tool-call"),
    ]
    deltas = [c for c in chunks if c.type == "tool-call-delta"]
    assert [c.name for c in deltas if c.name] == ["read_file", "bash"]
    assert {c.id for c in deltas if c.index == 1} == {"call_a"}
    ends = [c.block for c in chunks if c.type == "block-end"]
    assert ends[1:] == [ToolCallBlock(id=i, name=n, arguments=a) for i, n, a in calls]
    assert chunks[-1].type == "finish" and chunks[-1].reason == "tool-calls"
    sent = scripted_llm.requests[0]["tools"]
    assert sent == [{"type": "function", "function": {"name": "read_file", **_spec_body(spec)}}]


def _spec_body(spec: ToolSpec) -> dict[str, Any]:
    return {"description": spec.description, "parameters": spec.parameters}


async def test_usage_is_reported_before_finish(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    scripted_llm.enqueue(Reply(text="ok", usage={"prompt_tokens": 12, "completion_tokens": 34}))
    chunks = await collect(adapter, request())
    assert chunks[-2].type == "usage" and chunks[-2].usage == Usage(input_tokens=12, output_tokens=34)
    assert [c.type for c in chunks].count("finish") == 1


async def test_history_mapping_tool_calls_carry_empty_content(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    src = MessageSource(kind="model")
    assistant = Message(
        id="a1",
        role="assistant",
        content=[
            ReasoningBlock(text="hmm"),
            ToolCallBlock(id="c1", name="bash", arguments='{"command":"ls"}'),
        ],
        source=src,
    )
    result = Message(
        id="t1",
        role="tool",
        content=[ToolResultBlock(tool_call_id="c1", content="a.txt\nb.txt")],
        source=MessageSource(kind="tool", callId="c1"),  # type: ignore[call-arg]
    )
    failed = Message(
        id="t2",
        role="tool",
        content=[ToolResultBlock(tool_call_id="c2", content="boom", is_error=True)],
        source=src,
    )
    await collect(adapter, request(user("list"), assistant, result, failed))
    sent = scripted_llm.requests[0]["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command":"ls"}'}}
        ],
    }
    assert sent[2] == {"role": "tool", "tool_call_id": "c1", "content": "a.txt\nb.txt"}
    assert sent[3] == {"role": "tool", "tool_call_id": "c2", "content": "Error: boom"}


async def test_images_become_data_urls_when_a_loader_is_given(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    ref = AttachmentRef(
        attachment_id="img1", media_type="image/png", bytes=3, width=1, height=1, name="dot.png"
    )
    message = Message(
        id="u1",
        role="user",
        content=[TextBlock(text="see"), ImageBlock(attachment=ref)],
        source=MessageSource(kind="user"),
    )

    async def load(r: AttachmentRef) -> bytes | None:
        return b"PNG" if r.attachment_id == "img1" else None

    await collect(adapter, request(message, load_attachment=load))
    await collect(adapter, request(message))
    with_loader, without = (r["messages"][0]["content"] for r in scripted_llm.requests)
    assert with_loader == [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,UE5H"}},
    ]
    assert isinstance(without, str) and "dot.png" in without and "not available" in without


async def test_429_then_success_calls_on_retry(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    scripted_llm.enqueue(Reply(status=429, retry_after=0.05, error_message="slow down"), Reply(text="done"))
    retries: list[tuple[int, int, str]] = []
    chunks = await collect(adapter, request(on_retry=lambda a, d, r: retries.append((a, d, r))))
    assert text_of(chunks) == "done"
    assert retries == [(1, 50, "HTTP 429: slow down")]
    assert len(scripted_llm.requests) == 2


async def test_500s_exhaust_retries_then_raise(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    scripted_llm.enqueue(*[Reply(status=500, error_message="overloaded")] * 5)
    retries: list[int] = []
    with pytest.raises(LlmError) as caught:
        await collect(adapter, request(on_retry=lambda a, d, r: retries.append(a)))
    assert caught.value.status == 500 and caught.value.retryable
    assert "overloaded" in str(caught.value) and "3 retries" in str(caught.value)
    assert retries == [1, 2, 3]
    assert len(scripted_llm.requests) == 4 and scripted_llm.pending == 1


async def test_client_errors_are_not_retried(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    scripted_llm.enqueue(Reply(status=400, error_message="bad model"))
    with pytest.raises(LlmError) as caught:
        await collect(adapter, request())
    assert caught.value.status == 400 and not caught.value.retryable
    assert len(scripted_llm.requests) == 1


async def test_reset_before_tokens_is_retried(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    scripted_llm.enqueue(Reply(text="lost", drop_after=0), Reply(text="second try"))
    reasons: list[str] = []
    chunks = await collect(adapter, request(on_retry=lambda a, d, r: reasons.append(r)))
    assert text_of(chunks) == "second try"
    assert len(reasons) == 1 and "connection failed" in reasons[0]


async def test_never_retries_once_tokens_were_yielded(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    scripted_llm.enqueue(
        Reply(text="partial answer", chunk_size=2, drop_after=3), Reply(text="must not be used")
    )
    seen: list[Any] = []
    with pytest.raises(LlmError) as caught:
        async for chunk in adapter.stream(request()):
            seen.append(chunk)
    assert text_of(seen) == "partia"
    assert "cut off mid-stream" in str(caught.value)
    assert len(scripted_llm.requests) == 1 and scripted_llm.pending == 1


async def test_connection_refused_retries_then_raises() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    adapter = OpenAICompatibleAdapter(f"http://127.0.0.1:{port}/v1", max_retries=2, **FAST)
    attempts: list[int] = []
    with pytest.raises(LlmError, match="connection failed") as caught:
        await collect(adapter, request(on_retry=lambda a, d, r: attempts.append(a)))
    assert attempts == [1, 2] and caught.value.retryable and caught.value.status is None
    await adapter.aclose()


@pytest.mark.parametrize("script", ["slow", "hang"])
async def test_cancel_closes_the_http_stream(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter, script: str
) -> None:
    if script == "slow":
        scripted_llm.enqueue(Reply(text="x" * 200, chunk_size=1, delay=0.1))
    else:
        scripted_llm.enqueue(Reply(text="abcdef", chunk_size=2, hang_after=2))
    first = asyncio.Event()
    got: list[str] = []

    async def consume() -> None:
        async for chunk in adapter.stream(request()):
            if chunk.type == "text-delta":
                got.append(chunk.text)
                first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 5)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(scripted_llm.wait_for_disconnects, 1, 5.0)
    assert time.monotonic() - cancelled_at < 3
    assert 1 <= len(got) < 50


async def test_list_models_and_bearer_key(scripted_llm: ScriptedLlmServer) -> None:
    scripted_llm.models = ["alpha", "beta"]
    scripted_llm.require_key = "sk-secret-123"
    keyed = OpenAICompatibleAdapter(scripted_llm.base_url, "sk-secret-123", **FAST)
    assert [m.id for m in await keyed.list_models()] == ["alpha", "beta"]
    scripted_llm.enqueue(Reply(text="ok"))
    assert text_of(await collect(keyed, request())) == "ok"
    assert scripted_llm.request_headers[0]["authorization"] == "Bearer sk-secret-123"
    assert "sk-secret" not in repr(keyed)
    await keyed.aclose()

    wrong = OpenAICompatibleAdapter(scripted_llm.base_url, "sk-wrong-456", **FAST)
    with pytest.raises(LlmError) as caught:
        await wrong.list_models()
    assert caught.value.status == 401
    with pytest.raises(LlmError) as caught2:
        await collect(wrong, request())
    for error in (caught.value, caught2.value):
        assert "sk-wrong" not in str(error) and "sk-wrong" not in repr(error)
    await wrong.aclose()


async def test_an_effort_is_sent_only_to_a_model_that_takes_it(scripted_llm: ScriptedLlmServer) -> None:
    efforts = {"thinker": ("high", "max")}
    adapter = OpenAICompatibleAdapter(
        scripted_llm.base_url,
        efforts=lambda m: efforts.get(m, ()),
        default_effort="high",
        max_tokens=99,
        **FAST,
    )
    await collect(adapter, request(reasoning_effort="max"))  # scripted-small takes none
    await collect(adapter, LlmRequest(model="thinker", messages=[user("hi")], reasoning_effort="max"))
    await collect(adapter, LlmRequest(model="thinker", messages=[user("hi")]))  # the route's default
    await collect(adapter, LlmRequest(model="thinker", messages=[user("hi")], max_tokens=64))
    await adapter.aclose()
    sent = [(r.get("reasoning_effort"), r.get("max_tokens")) for r in scripted_llm.requests]
    assert sent == [(None, 99), ("max", 99), ("high", 99), ("high", 64)]


async def test_model_list_is_deduplicated_and_failures_are_plain(scripted_llm: ScriptedLlmServer) -> None:
    scripted_llm.models = ["a", "b", "a", ""]
    adapter = OpenAICompatibleAdapter(scripted_llm.base_url, **FAST)
    assert [m.id for m in await adapter.list_models()] == ["a", "b"]
    await adapter.aclose()
    gone = OpenAICompatibleAdapter("http://127.0.0.1:9/v1", **FAST)
    with pytest.raises(LlmError, match=r"cannot reach http://127\.0\.0\.1:9/v1"):
        await gone.list_models()
    await gone.aclose()


async def test_aclose_waits_for_running_stream(scripted_llm: ScriptedLlmServer) -> None:
    adapter = OpenAICompatibleAdapter(scripted_llm.base_url, **FAST)
    scripted_llm.enqueue(Reply(text="abcdefgh", chunk_size=2, delay=0.05))
    stream = adapter.stream(request())
    first = await anext(stream)
    await adapter.aclose()
    rest = [c async for c in stream]
    assert first.type == "block-start" and rest[-1].type == "finish"
    assert text_of(rest) == "abcdefgh"
    assert adapter._client is None
    assert json.loads(json.dumps(scripted_llm.requests[0]))["model"] == "scripted-small"


async def test_a_silent_provider_is_retried_once_then_fails_plainly(scripted_llm: ScriptedLlmServer) -> None:
    adapter = OpenAICompatibleAdapter(scripted_llm.base_url, idle_timeout=0.3, **FAST)
    scripted_llm.enqueue(Reply(text="never sent", hang_after=0), Reply(text="fresh"))
    reasons: list[str] = []
    chunks = await collect(adapter, request(on_retry=lambda a, d, r: reasons.append(r)))
    assert text_of(chunks) == "fresh"
    assert reasons == ["the provider sent nothing for 0.3 s"]
    assert await asyncio.to_thread(scripted_llm.wait_for_disconnects, 1, 5.0)
    scripted_llm.enqueue(*(Reply(text="silent", hang_after=0) for _ in range(3)))
    reasons.clear()
    with pytest.raises(LlmError) as caught:
        await collect(adapter, request(on_retry=lambda a, d, r: reasons.append(r)))
    assert str(caught.value) == "openai-compatible: the provider sent nothing for 0.3 s (after 1 retry)"
    assert len(reasons) == 1 and caught.value.retryable
    scripted_llm.enqueue(Reply(text="half an answer", chunk_size=2, hang_after=2))
    with pytest.raises(LlmError) as cut:
        await collect(adapter, request())
    assert "sent nothing for 0.3 s" in str(cut.value) and "cut off mid-stream" in str(cut.value)
    await adapter.aclose()


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"choices": ["oops"]}, "`choices` entry is not an object"),
        ({"choices": [{"index": 0, "delta": "text"}]}, "`delta` is not an object"),
        ({"choices": [{"index": 0, "delta": {"content": ["x"]}}]}, "`content` is not text"),
        ({"choices": [{"index": 0, "delta": {"tool_calls": ["bash"]}}]}, "tool call that is not an object"),
        ({"choices": {"0": {}}}, "`choices` is not a list"),
        ([1, 2], "malformed stream event"),
        ("not json at all", "malformed stream event"),
    ],
)
async def test_a_malformed_chunk_ends_with_a_readable_error(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter, raw: Any, says: str
) -> None:
    scripted_llm.enqueue(Reply(raw=[raw]))
    with pytest.raises(LlmError) as caught:
        await collect(adapter, request())
    message = str(caught.value)
    assert says in message and "object has no attribute" not in message and not caught.value.retryable
    assert len(scripted_llm.requests) == 1  # never retried


async def test_a_reused_tool_call_id_in_one_answer_gets_a_fresh_id(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    """Two calls with one id would pair both results with the first call: the second is renamed."""
    calls = [("dup", "read_file", '{"path": "a"}'), ("dup", "read_file", '{"path": "b"}')]
    scripted_llm.enqueue(Reply(tool_calls=calls, repeat_tool_identity=True, chunk_size=4))
    chunks = await collect(adapter, request())
    ends = [c.block for c in chunks if c.type == "block-end"]
    assert [(b.name, b.arguments) for b in ends] == [
        ("read_file", '{"path": "a"}'),
        ("read_file", '{"path": "b"}'),
    ]
    assert ends[0].id == "dup" and ends[1].id not in ("", "dup")
    deltas = [c for c in chunks if c.type == "tool-call-delta"]
    assert {c.id for c in deltas if c.index == 1} == {ends[1].id}


async def test_stream_lines_end_only_at_cr_lf_or_crlf_even_split_across_reads() -> None:
    from host.engine.llm.openai_wire import sse_events as _sse_events

    async def reads() -> Any:
        for piece in [
            b'data: {"a": 1}\r',
            b"\n\r\n: a comment\r\ndata: x\rdata: y\r",
            b"\r",
            'data: {"t": "a\u2028b\u0085c"}\n\n'.encode(),
            b"event: ignored\ndata: tail",
        ]:
            yield piece

    response = httpx.Response(200, content=reads())
    events = [e async for e in _sse_events(response)]
    assert events == ['{"a": 1}', "x\ny", '{"t": "a\u2028b\u0085c"}', "tail"]


async def test_a_raw_line_separator_inside_a_delta_stays_in_the_text(
    scripted_llm: ScriptedLlmServer, adapter: OpenAICompatibleAdapter
) -> None:
    text = "one\u2028two\u2029three\x1cfour"
    delta = {"choices": [{"index": 0, "delta": {"content": text}}]}
    scripted_llm.enqueue(Reply(raw=[json.dumps(delta, ensure_ascii=False)]))
    chunks = await collect(adapter, request())
    assert text_of(chunks) == text


async def test_a_compressed_stream_is_decoded_and_a_plain_one_read_as_it_came() -> None:
    import gzip

    from host.engine.llm.openai_wire import sse_events as _sse_events

    body = b'data: {"a": 1}\n\ndata: [DONE]\n\n'

    async def reads(data: bytes) -> Any:
        for i in range(0, len(data), 7):
            yield data[i : i + 7]

    packed = httpx.Response(200, headers={"content-encoding": "gzip"}, content=reads(gzip.compress(body)))
    plain = httpx.Response(200, content=reads(body))
    for response in (packed, plain):
        assert [e async for e in _sse_events(response)] == ['{"a": 1}', "[DONE]"]


async def test_events_read_one_per_read_or_cut_anywhere_are_the_same_events() -> None:
    """The one-event-per-read fast path (host/engine/llm/openai_wire.py) and the general path
    agree: the same body read whole, an event per read, or cut at every byte."""
    from host.engine.llm.openai_wire import sse_events as _sse_events

    events = [
        b'data: {"a": 1}\n\n',
        b"data: x\ndata: y\n\n",
        b": keep-alive\n\n",
        b'data: {"t": "\xe2\x80\xa8 and \xff"}\n\n',
        b"data:tight\n\n",
        b"data: \n\n",
        b"data: crlf\r\n\r\n",
        b"data: last\n\n",
    ]
    body = b"".join(events)

    async def reads(pieces: list[bytes]) -> Any:
        for piece in pieces:
            yield piece

    async def parsed(pieces: list[bytes]) -> list[str]:
        return [e async for e in _sse_events(httpx.Response(200, content=reads(pieces)))]

    whole = await parsed([body])
    assert whole == ['{"a": 1}', "x\ny", '{"t": "\u2028 and \ufffd"}', "tight", "", "crlf", "last"]
    assert await parsed(events) == whole
    assert await parsed([body[i : i + 1] for i in range(len(body))]) == whole


def test_an_event_json_refuses_is_refused_and_one_only_json_takes_is_taken() -> None:
    """orjson parses the stream's events; where it refuses, json decides
    (host/engine/llm/openai_wire.py `loads`), so the accepted set is json's."""
    import math

    from host.engine.llm.openai_wire import Failure, parse_event

    assert parse_event('{"choices": [{"delta": {"content": "a\\u00e9\\ud83d\\ude00"}}]}') == {
        "choices": [{"delta": {"content": "aé😀"}}]
    }
    assert math.isnan(parse_event('{"x": NaN}')["x"])
    assert parse_event('{"x": 1e400}')["x"] == math.inf
    assert parse_event('{"x": "lone \\ud800 half"}')["x"] == "lone \ufffd half"
    for bad in ('{"x": 1} trailing', '{"x": }', "[1, 2]", ""):
        with pytest.raises(Failure):
            parse_event(bad)
