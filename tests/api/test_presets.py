"""`agentPreset.*` and `session.create {agentPreset}` over both carriers: the roster, authoring,
a session's choice, and what a preset changes in the requests the provider receives."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from contract.methods import (
    AGENT_PRESET_COPY,
    AGENT_PRESET_LIST,
    AGENT_PRESET_OPEN_DOCUMENT,
    AGENT_PRESET_READ,
    AGENT_PRESET_REMOVE,
    AGENT_PRESET_SELECT,
    SESSION_CREATE,
    SESSION_LIST,
    SETTINGS_DESCRIBE,
    SETTINGS_MUTATE,
)
from tests.api.conftest import MODEL, Host, open_test_host
from tests.api.support import err, event, events_of, ftype, ok, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer

READ_TOOLS = {"read_file", "list_dir", "glob", "grep", "todo_write", "ask_user", "task"}
"""`task` too: its subagents inherit the read-only permissions (docs/decisions.md, "Subagents")."""
WRITE_TOOLS = {"write_file", "edit_file", "bash"}
SHIPPED = ["standard", "read-only", "chat"]
SHIPPED_ROOT = Path(__file__).resolve().parents[2] / "host/engine/presets/shipped"


def tool_names(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def system_text(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"]) if request["messages"][0]["role"] == "system" else ""


def user_preset(host: Host, pid: str, toml: str, system: str | None = None) -> Path:
    folder = host.data_dir / "agent-presets" / pid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "preset.toml").write_text(toml, encoding="utf-8")
    if system is not None:
        (folder / "SYSTEM.md").write_text(system, encoding="utf-8")
    return folder


async def test_the_roster_lists_the_shipped_presets_then_the_users(host: Host) -> None:
    client = host.client()
    listed = await ok(client, AGENT_PRESET_LIST)
    assert [p.id for p in listed.presets] == SHIPPED
    assert all(p.trust == "system" and not p.broken for p in listed.presets)
    assert [p.is_default for p in listed.presets] == [True, False, False]
    assert listed.presets[1].name == "Read-only" and "never writes" in (listed.presets[1].description or "")
    assert listed.authorable is True and listed.has_document is False
    user_preset(host, "zeta", 'name = "Zeta"\norder = 1\n')
    user_preset(host, "alpha", 'name = "Alpha"\n')
    user_preset(host, "standard", 'name = "Shadowed"\n')  # the shipped root supplies the id first
    (host.data_dir / "agent-presets" / "Not_An_Id").mkdir()  # skipped silently
    listed = await ok(client, AGENT_PRESET_LIST)
    assert [(p.id, p.trust) for p in listed.presets] == [
        *[(p, "system") for p in SHIPPED],
        ("zeta", "user"),  # a declared order comes before none, then ids
        ("alpha", "user"),
    ]
    assert listed.presets[0].name == "Standard"


async def test_a_broken_preset_is_listed_with_its_reason_refused_and_removable(host: Host) -> None:
    client = host.client()
    user_preset(host, "bad-toml", "name = [unclosed\n")
    user_preset(host, "bad-field", 'name = "X"\nsandbox = "yolo"\n')
    user_preset(host, "bad-tool", 'tools = ["read_file", "launch_missiles"]\n')
    user_preset(host, "typo", 'nmae = "X"\n')
    (host.data_dir / "agent-presets" / "empty").mkdir()
    listed = {p.id: p for p in (await ok(client, AGENT_PRESET_LIST)).presets}
    assert "not valid TOML" in (listed["bad-toml"].broken or "")
    assert (listed["bad-field"].broken or "").startswith("preset.toml: sandbox:")
    assert "unknown tool 'launch_missiles'" in (listed["bad-tool"].broken or "")
    assert "nmae" in (listed["typo"].broken or "")
    assert "missing" in (listed["empty"].broken or "")
    payload = {"cwd": str(host.workdir), "agentPreset": "bad-toml"}
    invalid = await err(client, SESSION_CREATE, payload, "agent-preset-invalid")
    assert invalid.details["agentPreset"] == "bad-toml" and "TOML" in invalid.details["reason"]
    assert (await ok(client, SESSION_LIST)).items == []  # nothing was created
    assert await ok(client, AGENT_PRESET_REMOVE, {"agentPreset": "bad-toml"}) is not None
    ids = [p.id for p in (await ok(client, AGENT_PRESET_LIST)).presets]
    assert "bad-toml" not in ids and not (host.data_dir / "agent-presets" / "bad-toml").exists()


async def test_create_resolves_the_preset_and_announces_it(host: Host) -> None:
    client = host.client()
    frames = await host.host_stream(client)
    default = await ok(client, SESSION_CREATE, {"cwd": str(host.workdir)})
    assert default.agent_preset == "standard"
    chosen = await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "read-only"})
    assert chosen.agent_preset == "read-only"
    _, added = await frames.next(ftype("host/session-added", chosen.session_id))
    assert added.agent_preset == "read-only"
    missing = await err(client, SESSION_CREATE, {"agentPreset": "nope"}, "agent-preset-not-found")
    assert missing.details == {"agentPreset": "nope", "available": SHIPPED}
    listed = {s.session_id: s.agent_preset for s in (await ok(client, SESSION_LIST)).items}
    assert listed == {default.session_id: "standard", chosen.session_id: "read-only"}


async def test_a_preallocated_id_must_keep_its_preset(host: Host) -> None:
    client = host.client()
    base = {"cwd": str(host.workdir), "sessionId": "s-pre-1"}
    assert (await ok(client, SESSION_CREATE, {**base, "agentPreset": "chat"})).agent_preset == "chat"
    assert (await ok(client, SESSION_CREATE, base)).agent_preset == "chat"  # omitted: adopts
    again = await ok(client, SESSION_CREATE, {**base, "agentPreset": "chat"})
    assert again.session_id == "s-pre-1"
    other = {**base, "agentPreset": "standard"}
    conflict = await err(client, SESSION_CREATE, other, "agent-preset-conflict")
    expected = {"sessionId": "s-pre-1", "requestedPreset": "standard", "existingPreset": "chat"}
    assert conflict.details == expected


async def test_a_read_only_session_offers_no_write_tools_and_its_own_prompt(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    mux = await host.mux(client)
    read_only = await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "read-only"})
    standard = await host.create()
    chat = await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "chat"})
    await run_turn(client, mux, read_only.session_id, "what is here?")
    await run_turn(client, mux, standard, "and here?")
    events = await run_turn(client, mux, chat.session_id, "hello")
    ro, std, plain = llm.requests
    assert tool_names(ro) == READ_TOOLS and not tool_names(ro) & WRITE_TOOLS
    assert tool_names(std) >= READ_TOOLS | WRITE_TOOLS
    assert "tools" not in plain or plain["tools"] == []
    assert "You cannot change" in system_text(ro) and str(host.workdir) in system_text(ro)
    assert "no tools" in system_text(plain)
    header = next(e for e in events if e.type == "request/header")
    assert header.data["tools"] == []


async def test_select_swaps_a_blank_session_and_locks_after_its_first_turn(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    mux = await host.mux(client)
    frames = await host.host_stream(client)
    sid = await host.create()
    selected = await ok(client, AGENT_PRESET_SELECT, {"sessionId": sid, "agentPreset": "read-only"})
    assert selected.agent_preset == "read-only"
    _, ev = await mux.next(event("agent-preset/selected", sid))
    assert ev.event.data == {"agentPreset": "read-only"}
    _, changed = await frames.next(ftype("host/session-preset-changed", sid))
    assert changed.agent_preset == "read-only"
    summary = next(s for s in (await ok(client, SESSION_LIST)).items if s.session_id == sid)
    assert summary.agent_preset == "read-only" and summary.blank is True  # log-only: still blank
    await run_turn(client, mux, sid, "look around")
    assert not tool_names(llm.requests[-1]) & WRITE_TOOLS
    select = AGENT_PRESET_SELECT
    locked = await err(client, select, {"sessionId": sid, "agentPreset": "standard"}, "agent-preset-locked")
    assert locked.details == {"sessionId": sid, "agentPreset": "read-only"}
    other = await host.create()
    missing = await err(client, select, {"sessionId": other, "agentPreset": "zz"}, "agent-preset-not-found")
    assert missing.details["available"] == SHIPPED
    gone = await err(client, select, {"sessionId": "s-nope", "agentPreset": "chat"}, "session-not-found")
    assert gone.details == {"sessionId": "s-nope"}
    assert events_of(mux.frames, other) == []  # failed selects log nothing


async def test_a_resumed_session_rebuilds_the_preset_it_recorded(
    tmp_path: Path, llm: ScriptedLlmServer, carrier: str
) -> None:
    data = tmp_path / "data"
    first = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=data)
    try:
        client = first.client()
        mux = await first.mux(client)
        sid = await first.create()
        await ok(client, AGENT_PRESET_SELECT, {"sessionId": sid, "agentPreset": "read-only"})
        await run_turn(client, mux, sid, "one")
    finally:
        await first.close()
    again = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=data)
    try:
        client = again.client()
        summary = (await ok(client, SESSION_LIST)).items[0]
        assert summary.agent_preset == "read-only"  # a cold row: the store keeps the running preset
        mux = await again.mux(client)
        await run_turn(client, mux, sid, "two")
        assert tool_names(llm.requests[-1]) == READ_TOOLS
    finally:
        await again.close()


async def test_a_user_preset_sets_tools_prompt_and_model(host: Host, llm: ScriptedLlmServer) -> None:
    user_preset(
        host,
        "reviewer",
        'name = "Reviewer"\ntools = ["read_file", "grep"]\n'
        'model = { provider = "openai-compatible", model = "scripted-large" }\n',
        system="You review code in {cwd}. Be blunt.",
    )
    client = host.client()
    mux = await host.mux(client)
    payload = {"cwd": str(host.workdir), "agentPreset": "reviewer"}
    sid = (await ok(client, SESSION_CREATE, payload)).session_id
    await run_turn(client, mux, sid, "review")
    request = llm.requests[-1]
    assert tool_names(request) == {"read_file", "grep"}
    assert request["model"] == "scripted-large" and request["model"] != MODEL
    assert system_text(request).startswith(f"You review code in {host.workdir}. Be blunt.")


async def test_read_copy_open_and_remove(host: Host) -> None:
    client = host.client()
    shipped = await ok(client, AGENT_PRESET_READ, {"agentPreset": "read-only"})
    source = SHIPPED_ROOT / "read-only" / "preset.toml"
    assert shipped.trust == "system" and shipped.content == source.read_text(encoding="utf-8")
    payload = {"from": "read-only", "agentPreset": "my-reader", "name": "Mine"}
    copied = await ok(client, AGENT_PRESET_COPY, payload)
    assert copied.agent_preset == "my-reader"
    folder = host.data_dir / "agent-presets" / "my-reader"
    text = (folder / "preset.toml").read_text(encoding="utf-8")
    assert text.startswith('name = "Mine"\n') and "order" not in text and "Read-only" not in text
    assert "# Looks, never touches" in text  # comments survive the copy
    assert "never writes" in text  # the description is kept
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "preset.toml").stat().st_mode) == 0o600
    assert (folder / "SYSTEM.md").read_text(encoding="utf-8") == (source.parent / "SYSTEM.md").read_text(
        encoding="utf-8"
    )
    listed = {p.id: p for p in (await ok(client, AGENT_PRESET_LIST)).presets}
    assert listed["my-reader"].trust == "user" and listed["my-reader"].name == "Mine"
    read = await ok(client, AGENT_PRESET_READ, {"agentPreset": "my-reader"})
    assert read.trust == "user" and read.content == text
    opened = await ok(client, AGENT_PRESET_OPEN_DOCUMENT, {"agentPreset": "my-reader"})
    assert opened.opened is False and opened.path == str(folder)
    await ok(client, AGENT_PRESET_REMOVE, {"agentPreset": "my-reader"})
    assert not folder.exists()
    assert os.listdir(host.data_dir / "agent-presets") == []


async def test_authoring_errors_change_nothing(host: Host) -> None:
    client = host.client()
    root = host.data_dir / "agent-presets"

    async def copy(payload: dict[str, Any], code: str) -> dict[str, Any]:
        return (await err(client, AGENT_PRESET_COPY, payload, code)).details

    invalid = "agent-preset-invalid"
    assert (await copy({"from": "nope", "agentPreset": "x"}, "agent-preset-not-found"))[
        "agentPreset"
    ] == "nope"
    assert (await copy({"from": "chat", "agentPreset": "Bad_Id"}, invalid))["agentPreset"] == "Bad_Id"
    assert "taken" in (await copy({"from": "chat", "agentPreset": "standard"}, invalid))["reason"]
    looping = user_preset(host, "loops", 'name = "Loops"\n')
    os.symlink(looping, looping / "again")  # a directory link back to itself
    details = await copy({"from": "loops", "agentPreset": "copy-of-loops"}, "agent-preset-invalid")
    assert "nest too deep" in details["reason"]
    assert sorted(os.listdir(root)) == ["loops"]  # no partial directory, no staging left
    for method in (AGENT_PRESET_REMOVE, AGENT_PRESET_OPEN_DOCUMENT):
        refused = await err(client, method, {"agentPreset": "standard"}, "agent-preset-read-only")
        assert refused.details["agentPreset"] == "standard"
        await err(client, method, {"agentPreset": "nope"}, "agent-preset-not-found")
    await err(client, AGENT_PRESET_READ, {"agentPreset": "../etc"}, "agent-preset-not-found")
    await err(client, AGENT_PRESET_COPY, {"from": "chat"}, "bad-request")
    await err(client, AGENT_PRESET_SELECT, {"sessionId": "s", "agentPreset": ""}, "bad-request")
    assert [p.id for p in (await ok(client, AGENT_PRESET_LIST)).presets] == [*SHIPPED, "loops"]


async def test_a_session_whose_preset_was_removed_still_runs(
    tmp_path: Path, llm: ScriptedLlmServer, carrier: str
) -> None:
    data = tmp_path / "data"
    first = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=data)
    try:
        client = first.client()
        await ok(client, AGENT_PRESET_COPY, {"from": "chat", "agentPreset": "talk"})
        payload = {"cwd": str(first.workdir), "agentPreset": "talk"}
        sid = (await ok(client, SESSION_CREATE, payload)).session_id
        mux = await first.mux(client)
        await run_turn(client, mux, sid, "one")
        await ok(client, AGENT_PRESET_REMOVE, {"agentPreset": "talk"})
    finally:
        await first.close()
    again = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=data)
    try:
        client = again.client()
        frames = await again.host_stream(client)
        mux = await again.mux(client)
        llm.enqueue(Reply(text="still here"))
        events = await run_turn(client, mux, sid, "two")
        assert next(e for e in events if e.type == "turn/end").data["reason"] == {"kind": "completed"}
        _, notice = await frames.next(ftype("host/agent-error", sid))
        assert "'talk'" in notice.message and "standard" in notice.message
    finally:
        await again.close()


async def test_the_default_preset_is_a_setting_and_a_removed_one_stops_being_it(host: Host) -> None:
    client = host.client()
    await ok(client, AGENT_PRESET_COPY, {"from": "chat", "agentPreset": "talk"})
    choose = {"op": "set", "path": ["default"], "value": "talk"}
    await ok(client, SETTINGS_MUTATE, {"ns": "agent-presets", "ops": [choose]})
    listed = {p.id: p.is_default for p in (await ok(client, AGENT_PRESET_LIST)).presets}
    assert listed["talk"] is True and listed["standard"] is False
    assert (await ok(client, SESSION_CREATE, {"cwd": str(host.workdir)})).agent_preset == "talk"
    await ok(client, AGENT_PRESET_REMOVE, {"agentPreset": "talk"})
    described = await ok(client, SETTINGS_DESCRIBE)
    section = next(n for n in described.namespaces if n.ns == "agent-presets")
    assert "default" not in (section.user or {}) and section.value["default"] == "standard"
    assert (await ok(client, SESSION_CREATE, {"cwd": str(host.workdir)})).agent_preset == "standard"
    broken = {"op": "set", "path": ["default"], "value": "no-such-preset"}
    await ok(client, SETTINGS_MUTATE, {"ns": "agent-presets", "ops": [broken]})
    assert (await ok(client, SESSION_CREATE, {"cwd": str(host.workdir)})).agent_preset == "standard"
