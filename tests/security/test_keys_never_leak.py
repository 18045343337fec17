"""An API key is configured, used, tested, refused and echoed back by a provider, through a real
`harnessdesk serve` at debug log level; afterwards no response, stream frame, log line, export
or file of the data dir (settings.json, the database) holds it. Only credentials.json (0600) does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import stat
from pathlib import Path
from typing import Any

import httpx

from contract.methods import (
    CREDENTIALS_DESCRIBE,
    CREDENTIALS_SET,
    LLM_DISCOVER_MODELS,
    LLM_MODELS,
    LLM_PROVIDERS,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_PROMPT,
    SESSION_SELECT_MODEL,
    SETTINGS_DESCRIBE,
    SETTINGS_REPLACE,
    AnyMethod,
)
from host.fetch import HttpApiClient
from tests.api.support import eventually, start_serve
from tests.support.scripted_llm import Reply, ScriptedLlmServer

STORED = "sk-stored-key-7d1e0c5a9b3f4e21"
DRAFT = "sk-draft-key-55aa66bb77cc88dd"
WRONG = "sk-wrong-key-0f0e0d0c0b0a0908"
SECRETS = (STORED, DRAFT, WRONG)


async def test_a_key_never_leaves_credentials_json(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    data = tmp_path / "data"
    work = tmp_path / "work"
    work.mkdir()
    served = start_serve(data, "--log-level", "debug", cwd=work)
    bodies: list[str] = []
    streams: dict[str, bytearray] = {"events.mux": bytearray(), "events.host": bytearray()}
    export = b""
    try:
        bearer = {"authorization": f"Bearer {served.token}"}
        async with httpx.AsyncClient(base_url=served.base_url, trust_env=False) as http:

            async def read(key: str) -> None:
                async with http.stream("GET", f"/api/{key}", headers=bearer, timeout=None) as response:
                    async for chunk in response.aiter_bytes():
                        streams[key] += chunk

            readers = [asyncio.create_task(read(k)) for k in streams]
            async with HttpApiClient(served.base_url, served.token) as client:

                async def call(method: AnyMethod, payload: dict[str, Any]) -> Any:
                    response = await client.call(method, payload)
                    bodies.append(json.dumps(response.dump()))
                    return response.result

                profile = {"id": "box", "name": "Box", "baseURL": llm.base_url, "apiKeyEnv": "BOX_KEY"}
                await call(
                    SETTINGS_REPLACE, {"ns": "llm-openai-compatible", "section": {"profiles": [profile]}}
                )
                full = await call(
                    SETTINGS_REPLACE,
                    {"ns": "permission", "section": {"defaultPreset": "danger-full-access"}},
                )
                assert full.ok, full
                assert (await call(CREDENTIALS_SET, {"ref": "BOX_KEY", "value": STORED})).ok
                llm.require_key, llm.echo_rejected_key = STORED, True
                await call(CREDENTIALS_DESCRIBE, {"refs": ["BOX_KEY"]})
                await call(SETTINGS_DESCRIBE, {})
                await call(LLM_PROVIDERS, {})
                await call(LLM_MODELS, {})
                assert (
                    await call(
                        LLM_DISCOVER_MODELS, {"settingsNs": "llm-openai-compatible", "provider": "box"}
                    )
                ).ok
                draft = {"settingsNs": "llm-openai-compatible", "baseURL": llm.base_url}
                refused = await call(LLM_DISCOVER_MODELS, {**draft, "apiKey": WRONG})
                assert not refused.ok and "Incorrect API key provided" in refused.error.message
                llm.require_key = DRAFT
                assert (await call(LLM_DISCOVER_MODELS, {**draft, "apiKey": DRAFT})).ok
                llm.require_key = STORED

                sid = (
                    await call(SESSION_CREATE, {"cwd": str(work), "agentPreset": "standard"})
                ).value.session_id
                assert (
                    await call(SESSION_SELECT_MODEL, {"sessionId": sid, "provider": "box", "model": "m"})
                ).ok
                bash = '{"command": "env; cat ../data/credentials.json; echo $BOX_KEY"}'
                llm.enqueue(Reply(tool_calls=[("c1", "bash", bash)]), Reply(text="done"))
                await call(
                    SESSION_PROMPT,
                    {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": "go"}]},
                )
                assert await eventually(lambda: b'"turn/end"' in streams["events.mux"], 30)
                llm.require_key = "sk-a-different-one-xyz"  # the stored key is refused, and echoed
                await call(
                    SESSION_PROMPT,
                    {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": "again"}]},
                )
                assert await eventually(lambda: streams["events.mux"].count(b'"turn/end"') >= 2, 30)
                await call(SESSION_HISTORY, {"sessionId": sid, "maxMessages": 1000})
                got = await http.get(f"/api/session.export?sessionId={sid}", headers=bearer)
                assert got.status_code == 200
                export = got.content
            for reader in readers:
                reader.cancel()
            for reader in readers:
                with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                    await reader
    finally:
        code = served.stop()
    assert code == 0
    assert llm.requests, "the turn reached the provider"
    assert any(h.get("authorization") == f"Bearer {STORED}" for h in llm.request_headers)  # it was used
    assert b'"the provider sent' not in streams["events.mux"]  # (sanity: no parse errors on the way)
    mux = streams["events.mux"].decode()
    assert "Incorrect API key provided: ***" in mux  # the refusal reached the user, scrubbed
    assert "[redacted]" in mux and "BOX_KEY" in mux  # the tool ran; its output lost the key
    places = {
        "responses": "\n".join(bodies),
        "frames": mux + streams["events.host"].decode(),
        "logs": served.later_output,
        "export": export.decode("latin-1"),
    }
    for path in sorted(data.rglob("*")):
        if path.is_file() and path.name != "credentials.json":
            places[str(path.relative_to(data))] = path.read_bytes().decode("latin-1")
    assert "settings.json" in places and any(name.endswith(".sqlite3") for name in places)
    for where, text in places.items():
        for secret in SECRETS:
            assert secret not in text, f"{secret[:12]}… found in {where}"
    credentials = data / "credentials.json"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert json.loads(credentials.read_text()) == {"version": 2, "credentials": {"BOX_KEY": STORED}}
