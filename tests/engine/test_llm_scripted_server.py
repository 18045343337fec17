"""The scripted OpenAI-compatible server itself, exercised with plain httpx."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from tests.support.scripted_llm import DEFAULT_TEXT, Reply, ScriptedLlmServer


def _events(response: httpx.Response) -> list[dict]:
    out = []
    for line in response.iter_lines():
        if line.startswith("data: ") and line != "data: [DONE]":
            out.append(json.loads(line[6:]))
    return out


def _chat(base_url: str, **body: object) -> httpx.Response:
    payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}], **body}
    return httpx.post(f"{base_url}/chat/completions", json=payload, timeout=10)


def test_non_stream_default_and_recorded_request(scripted_llm: ScriptedLlmServer) -> None:
    response = _chat(scripted_llm.base_url)
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == DEFAULT_TEXT
    assert scripted_llm.requests == [{"model": "m", "messages": [{"role": "user", "content": "hi"}]}]


def test_stream_text_reasoning_tools_usage(scripted_llm: ScriptedLlmServer) -> None:
    scripted_llm.enqueue(
        Reply(text="hello world", reasoning="think", tool_calls=[("c1", "bash", '{"command":"ls"}')])
    )
    payload = {"model": "m", "messages": [], "stream": True, "stream_options": {"include_usage": True}}
    with httpx.stream("POST", f"{scripted_llm.base_url}/chat/completions", json=payload) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = _events(response)
    deltas = [e["choices"][0]["delta"] for e in events if e["choices"]]
    assert "".join(d.get("content") or "" for d in deltas) == "hello world"
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "think"
    calls = [c for d in deltas for c in d.get("tool_calls", [])]
    assert calls[0]["id"] == "c1" and calls[0]["function"]["name"] == "bash"
    assert all("id" not in c for c in calls[1:])
    assert "".join(c["function"]["arguments"] for c in calls) == '{"command":"ls"}'
    assert events[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert events[-1]["choices"] == [] and events[-1]["usage"]["completion_tokens"] > 0


def test_repeat_tool_identity(scripted_llm: ScriptedLlmServer) -> None:
    scripted_llm.enqueue(Reply(tool_calls=[("c9", "grep", '{"pattern":"abc"}')], repeat_tool_identity=True))
    payload = {"model": "m", "messages": [], "stream": True}
    with httpx.stream("POST", f"{scripted_llm.base_url}/chat/completions", json=payload) as response:
        calls = [
            c
            for e in _events(response)
            if e["choices"]
            for c in e["choices"][0]["delta"].get("tool_calls", [])
        ]
    assert len(calls) > 2
    assert all(c["id"] == "c9" and c["function"]["name"] == "grep" for c in calls)


def test_error_status_with_retry_after(scripted_llm: ScriptedLlmServer) -> None:
    scripted_llm.enqueue(Reply(status=429, retry_after=1.5), Reply(status=500))
    first = _chat(scripted_llm.base_url)
    assert first.status_code == 429 and first.headers["retry-after"] == "1.5"
    assert _chat(scripted_llm.base_url).status_code == 500
    assert _chat(scripted_llm.base_url).status_code == 200
    assert scripted_llm.pending == 0


def test_models_and_auth(scripted_llm: ScriptedLlmServer) -> None:
    scripted_llm.models = ["a", "b"]
    scripted_llm.require_key = "sk-test"
    assert httpx.get(f"{scripted_llm.base_url}/models").status_code == 401
    response = httpx.get(f"{scripted_llm.base_url}/models", headers={"Authorization": "Bearer sk-test"})
    assert [m["id"] for m in response.json()["data"]] == ["a", "b"]


def test_hang_then_client_disconnect_is_counted(scripted_llm: ScriptedLlmServer) -> None:
    scripted_llm.enqueue(Reply(text="abcdefghijkl", chunk_size=2, hang_after=2))
    payload = {"model": "m", "messages": [], "stream": True}
    seen: list[str] = []
    with httpx.stream("POST", f"{scripted_llm.base_url}/chat/completions", json=payload) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                delta = json.loads(line[6:])["choices"][0]["delta"]
                seen.append(delta.get("content") or "")
            if "".join(seen) == "abcd":
                break
    assert scripted_llm.wait_for_disconnects(1, timeout=5)
    assert scripted_llm.disconnects == 1


def test_drop_after_breaks_the_body(scripted_llm: ScriptedLlmServer) -> None:
    scripted_llm.enqueue(Reply(text="abcdefgh", chunk_size=2, drop_after=1))
    payload = {"model": "m", "messages": [], "stream": True}
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream("POST", f"{scripted_llm.base_url}/chat/completions", json=payload) as response,
    ):
        for _ in response.iter_lines():
            pass
    assert scripted_llm.disconnects == 0


def test_context_manager_outside_pytest_and_stop_with_hanging_stream() -> None:
    with ScriptedLlmServer() as server:
        server.enqueue(Reply(text="x", hang_after=0))
        client = httpx.Client(timeout=10)
        payload = {"model": "m", "messages": [], "stream": True}
        stream = client.stream("POST", f"{server.base_url}/chat/completions", json=payload)
        response = stream.__enter__()
        assert response.status_code == 200
        started = time.monotonic()
    assert time.monotonic() - started < 5
    stream.__exit__(None, None, None)
    client.close()
