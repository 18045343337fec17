"""Finding 3: the agent's processes inherited HARNESSDESK_API_KEY (and every credential in the
environment); one approved `env` put the key into a tool result that was streamed, stored,
exported and sent to the provider. Child processes now get an environment without credentials,
and any known key is redacted from every tool's output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contract.methods import SESSION_HISTORY
from host.engine.sandbox import secret_values
from tests.api.conftest import open_test_host
from tests.api.support import event, ftype, ok, page_events, prompt
from tests.security.tools import run
from tests.support.scripted_llm import Reply, ScriptedLlmServer

KEY = "sk-harnessdesk-test-0123456789abcdef"
OTHER = "ghp_other-credential-0123456789"


async def test_env_shows_no_credential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESSDESK_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_TOKEN", OTHER)
    monkeypatch.setenv("OPENAI_API_KEY", OTHER + "x")
    monkeypatch.setenv("INNOCENT_NAME", f"prefix-{KEY}")  # a key copied under another name
    monkeypatch.setenv("HARMLESS", "keep-me")
    secret_values.remember(KEY)
    out = await run("bash", tmp_path, command="env; echo KEY=[$HARNESSDESK_API_KEY]")
    assert not out.is_error, out.content
    assert "HARMLESS=keep-me" in out.content  # the rest of the environment is kept
    assert "KEY=[]" in out.content
    for leaked in (KEY, OTHER, "GITHUB_TOKEN", "OPENAI_API_KEY", "INNOCENT_NAME"):
        assert leaked not in out.content, leaked


async def test_a_known_key_is_redacted_from_any_tool_output(tmp_path: Path) -> None:
    secret_values.remember(KEY)
    (tmp_path / "notes.txt").write_text(f"the key is {KEY}\n")
    read = await run("read_file", tmp_path, path="notes.txt")
    assert KEY not in read.content and "[redacted]" in read.content
    echoed = await run("bash", tmp_path, command=f"echo {KEY[:10]}''{KEY[10:]}")  # built at run time
    assert KEY not in echoed.content and "[redacted]" in echoed.content
    found = await run("grep", tmp_path, pattern="the key")
    assert KEY not in found.content and "[redacted]" in found.content


async def test_end_to_end_the_key_never_reaches_log_stream_or_provider(
    tmp_path: Path, llm: ScriptedLlmServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESSDESK_API_KEY", KEY)
    host = await open_test_host("inprocess", tmp_path, llm.base_url)
    try:
        client = host.client()
        mux = await host.mux(client)
        sid = await host.create()
        llm.enqueue(Reply(tool_calls=[("c1", "bash", json.dumps({"command": "env"}))]), Reply(text="ok"))
        await prompt(client, sid, "show env")
        rpc_id, frame = await mux.next(ftype("approval/requested", sid))
        value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once"}
        assert (await client.respond(rpc_id, {"ok": True, "value": value})).accepted
        _, result = await mux.next(event("tool/result", sid))
        assert "PATH=" in json.dumps(result.event.data)
        await mux.next(event("turn/end", sid))
        history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
        assert KEY not in json.dumps([e.dump() for e in page_events(history)])
        assert all(KEY not in json.dumps(r) for r in llm.requests)
        await host.engine.parts.store.flush()
        stored = list(host.data_dir.glob("harnessdesk.sqlite3*"))
        assert stored and all(KEY.encode() not in p.read_bytes() for p in stored)
    finally:
        await host.close()
