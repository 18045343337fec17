"""`llm.providers`, `llm.models`, `llm.discoverModels`, `session.models` across routes, and
`permission.revoke`, over both carriers against the scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from typing import Any

from contract.methods import (
    CREDENTIALS_SET,
    LLM_DISCOVER_MODELS,
    LLM_MODELS,
    LLM_PROVIDERS,
    PERMISSION_REVOKE,
    SESSION_MODELS,
    SESSION_SELECT_MODEL,
    SETTINGS_REPLACE,
)
from tests.api.conftest import Host
from tests.api.support import err, event, ftype, ok, prompt
from tests.support.scripted_llm import Reply, ScriptedLlmServer

DOWN = "http://127.0.0.1:9/v1"


async def add_profiles(client: Any, *profiles: dict[str, Any]) -> None:
    await ok(
        client, SETTINGS_REPLACE, {"ns": "llm-openai-compatible", "section": {"profiles": list(profiles)}}
    )


async def test_providers_lists_declared_routes_then_live_ones(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    await add_profiles(
        client,
        {"id": "box", "name": "Box", "baseURL": llm.base_url},
        {"id": "cloud", "name": "Cloud", "baseURL": "https://llm.example/v1", "apiKeyEnv": "CLOUD_KEY"},
    )
    providers = (await ok(client, LLM_PROVIDERS)).providers
    rows = [
        (p.provider, p.display_name, p.settings_ns, p.settings_path, p.active, p.declared) for p in providers
    ]
    assert rows == [
        ("local", "Built-in model (offline)", "llm-local", [], True, False),
        ("deepseek", "DeepSeek", "llm-deepseek", [], False, False),
        ("box", "Box", "llm-openai-compatible", ["profiles", "0"], True, True),
        ("cloud", "Cloud", "llm-openai-compatible", ["profiles", "1"], False, True),
        ("openai-compatible", "OpenAI-compatible (command line)", "", [], True, None),  # the --base-url run
    ]
    assert providers[3].problem == "Cloud needs an API key (CLOUD_KEY)"
    raw = (await client.call(LLM_PROVIDERS, {})).dump()["result"]["value"]["providers"][4]
    assert "declared" not in raw and raw["settingsNs"] == ""
    # only the built-in model is chat-only (the UI labels it where the user types)
    assert [p.supports_tools for p in providers] == [False, True, True, True, True]
    assert raw["supportsTools"] is True


async def test_models_groups_every_active_route_and_reports_failures(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    llm.models = ["alpha", "beta"]
    await add_profiles(
        client,
        {
            "id": "box",
            "name": "Box",
            "baseURL": llm.base_url,
            "models": [{"id": "picked", "reasoningEfforts": ["low"]}],
        },
        {"id": "down", "name": "Down", "baseURL": DOWN},
    )
    value = await ok(client, LLM_MODELS)
    groups = {g.id: g for g in value.groups}
    assert list(groups) == ["local", "box", "openai-compatible"]
    assert [m.id for m in groups["box"].models] == ["picked"]  # configured: no network call
    reasoning = groups["box"].models[0].reasoning
    assert reasoning is not None and reasoning.efforts[0].dump() == {"id": "low", "name": "Low"}
    assert [m.id for m in groups["openai-compatible"].models] == ["alpha", "beta"]  # asked the endpoint
    assert [(f.id, f.name) for f in value.failures] == [("down", "Down")]
    assert "cannot reach" in value.failures[0].message
    sid = await host.create()
    session_models = await ok(client, SESSION_MODELS, {"sessionId": sid})
    assert [g.id for g in session_models.groups] == ["local", "box", "openai-compatible"]
    assert session_models.current.provider == "openai-compatible" and session_models.routable


async def test_discover_models_asks_a_draft_endpoint_and_stores_nothing(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    llm.models = ["m1", "m2", "m1"]
    draft = {"settingsNs": "llm-openai-compatible", "baseURL": llm.base_url}
    found = await ok(client, LLM_DISCOVER_MODELS, draft)
    assert [m.dump() for m in found.models] == [{"id": "m1"}, {"id": "m2"}]  # deduplicated
    llm.require_key = "sk-draft-key-000111"
    keyed = await ok(client, LLM_DISCOVER_MODELS, {**draft, "apiKey": "sk-draft-key-000111"})
    assert [m.id for m in keyed.models] == ["m1", "m2"]
    wrong = await err(
        client, LLM_DISCOVER_MODELS, {**draft, "apiKey": "sk-wrong-key-999"}, "model-discovery-failed"
    )
    assert wrong.details == {"settingsNs": "llm-openai-compatible", "baseURL": llm.base_url}
    assert "401" in wrong.message and "sk-wrong" not in wrong.message
    down = await err(client, LLM_DISCOVER_MODELS, {**draft, "baseURL": DOWN}, "model-discovery-failed")
    assert (
        down.details == {"settingsNs": "llm-openai-compatible", "baseURL": DOWN}
        and "cannot reach" in down.message
    )
    cases = [
        ({"settingsNs": "llm-openai-compatible"}, "give a provider or a base URL"),
        ({"settingsNs": "llm-nothing", "baseURL": llm.base_url}, "no model discovery"),
        ({**draft, "api": "anthropic-messages"}, "protocol"),
        ({**draft, "baseURL": "ftp://x"}, "http(s)"),
        ({"settingsNs": "llm-deepseek", "provider": "local"}, "not configured by llm-deepseek"),
    ]
    for payload, says in cases:
        failure = await err(client, LLM_DISCOVER_MODELS, payload, "model-discovery-failed")
        assert says in failure.message and failure.details["settingsNs"] == payload["settingsNs"]
    await err(client, LLM_DISCOVER_MODELS, {"settingsNs": "", "baseURL": llm.base_url}, "bad-request")
    local = await ok(client, LLM_DISCOVER_MODELS, {"settingsNs": "llm-local", "provider": "local"})
    assert [m.id for m in local.models] == ["smollm2-135m-instruct"]
    await asyncio.sleep(0.2)
    assert not any(f.type in ("host/settings-changed", "host/models-changed") for f in hosts.frames)
    assert not (host.data_dir / "settings.json").exists()  # nothing stored


async def test_discover_uses_the_stored_key_only_at_the_routes_own_url(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    llm.require_key = "sk-stored-key-424242"
    await add_profiles(client, {"id": "box", "name": "Box", "baseURL": llm.base_url, "apiKeyEnv": "BOX_KEY"})
    await ok(client, CREDENTIALS_SET, {"ref": "BOX_KEY", "value": "sk-stored-key-424242"})
    named = {"settingsNs": "llm-openai-compatible", "provider": "box"}
    assert [m.id for m in (await ok(client, LLM_DISCOVER_MODELS, named)).models] == [
        "scripted-small",
        "scripted-large",
    ]
    same_url = await ok(client, LLM_DISCOVER_MODELS, {**named, "baseURL": llm.base_url + "/"})
    assert same_url.models
    elsewhere = llm.base_url.replace("127.0.0.1", "localhost")  # the same server under another name
    refused = await err(
        client, LLM_DISCOVER_MODELS, {**named, "baseURL": elsewhere}, "model-discovery-failed"
    )
    assert "401" in refused.message  # the stored key was not sent to a URL the route does not use
    assert all(h.get("authorization") is None for h in llm.request_headers)


async def test_a_new_profile_serves_a_turn_at_once(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    hosts = await host.host_stream(client)
    await add_profiles(
        client, {"id": "box", "name": "Box", "baseURL": llm.base_url, "models": [{"id": "picked"}]}
    )
    await hosts.next(ftype("host/models-changed"))
    sid = await host.create()
    await ok(client, SESSION_SELECT_MODEL, {"sessionId": sid, "provider": "box", "model": "picked"})
    llm.enqueue(Reply(text="served by the box"))
    await prompt(client, sid, "hello")
    await mux.next(event("turn/end", sid))
    assert llm.requests[-1]["model"] == "picked"


# ---- permission.revoke ----------------------------------------------------------------------------


async def test_revoke_errors(host: Host) -> None:
    client = host.client()
    missing = await err(
        client,
        PERMISSION_REVOKE,
        {"sessionId": "nope", "tool": "bash", "scope": "words:ls"},
        "session-not-found",
    )
    assert missing.details == {"sessionId": "nope"}
    sid = await host.create()
    assert (
        await ok(client, PERMISSION_REVOKE, {"sessionId": sid, "tool": "bash", "scope": "words:ls"})
    ).revoked is False
    for bad in ({"sessionId": sid, "tool": "", "scope": "x"}, {"sessionId": sid, "tool": "bash"}):
        await err(client, PERMISSION_REVOKE, bad, "bad-request")
