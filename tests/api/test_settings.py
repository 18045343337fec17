"""`settings.*` and `credentials.*` over both carriers: views, write modes, revisions, errors,
frames, hand edits of settings.json, credentials by reference."""

from __future__ import annotations

import json
import stat
from typing import Any

import pytest

from contract.methods import (
    CREDENTIALS_DESCRIBE,
    CREDENTIALS_SET,
    CREDENTIALS_UNSET,
    LLM_PROVIDERS,
    SETTINGS_DESCRIBE,
    SETTINGS_MUTATE,
    SETTINGS_OPEN_DOCUMENT,
    SETTINGS_REPLACE,
    SETTINGS_UPDATE,
)
from tests.api.conftest import Host
from tests.api.support import err, ftype, ok

EXPOSED = [
    "llm-local",
    "llm-deepseek",
    "llm-openai-compatible",
    "permission",
    "ui-appearance",
    "ui-onboarding",
    "agent-presets",
    "sessions",
    "undo",
    "hooks",
    "web",
    "lsp",
]


def settings_file(host: Host) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((host.data_dir / "settings.json").read_text())
    return loaded


def changed(ns: str) -> Any:
    return lambda f: f.type == "host/settings-changed" and f.ns == ns


async def test_describe_lists_the_exposed_namespaces_redacted(host: Host) -> None:
    client = host.client()
    described = await ok(client, SETTINGS_DESCRIBE)
    assert described.writable is True
    assert described.has_document is False  # no editor opener in this host: the button is hidden
    assert [n.ns for n in described.namespaces] == EXPOSED
    views = {n.ns: n for n in described.namespaces}
    deepseek = views["llm-deepseek"]
    assert deepseek.revision == 0 and deepseek.user is None and deepseek.secrets == []
    assert (
        deepseek.value["apiKeyEnv"] == "DEEPSEEK_API_KEY" and deepseek.value["streamIdleTimeoutMs"] == 60000
    )
    assert [m["id"] for m in deepseek.base["models"]] == ["deepseek-chat", "deepseek-reasoner"]
    schema = deepseek.schema_
    assert schema["type"] == "object" and "baseURL" in schema["properties"]
    assert schema["properties"]["apiKeyEnv"]["role"] == "credential-ref"
    assert views["permission"].value == {"defaultPreset": "auto", "rules": []}
    preset_schema = views["permission"].schema_["properties"]["defaultPreset"]
    assert preset_schema["enum"] == ["read-only", "auto", "workspace-write", "danger-full-access"]
    assert views["llm-local"].applies == "live" and views["ui-onboarding"].applies == "live"
    assert views["ui-appearance"].value == {"theme": "system", "language": "system", "editor": ""}
    assert views["ui-appearance"].applies == "live"
    raw = (await client.call(SETTINGS_DESCRIBE, {})).dump()["result"]["value"]
    assert set(raw["namespaces"][0]) >= {"ns", "schema", "value", "applies", "secrets", "revision"}


async def test_update_replace_mutate_and_their_frames(host: Host) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    profile = {"id": "box", "name": "Box", "baseURL": "http://127.0.0.1:9/v1"}
    view = await ok(
        client,
        SETTINGS_UPDATE,
        {"ns": "llm-openai-compatible", "patch": {"profiles": [profile]}, "expectedRevision": 0},
    )
    assert view.revision == 1 and view.user == {"profiles": [profile]}
    assert view.value["profiles"][0]["streamIdleTimeoutMs"] == 60000  # defaults filled in
    await hosts.next(changed("llm-openai-compatible"))
    await hosts.next(ftype("host/models-changed"))  # an LLM namespace: the catalogue changed
    assert settings_file(host)["namespaces"]["llm-openai-compatible"] == {"profiles": [profile]}

    same = await ok(
        client, SETTINGS_UPDATE, {"ns": "llm-openai-compatible", "patch": {"profiles": [profile]}}
    )
    assert same.revision == 1  # deep-equal: no change, no frame
    rename = {"op": "set", "path": ["profiles", "0", "name"], "value": "Renamed"}
    mutated = await ok(client, SETTINGS_MUTATE, {"ns": "llm-openai-compatible", "ops": [rename]})
    assert mutated.revision == 2 and mutated.value["profiles"][0]["name"] == "Renamed"
    drop = {"op": "unset", "path": ["profiles", "0"]}
    emptied = await ok(
        client, SETTINGS_MUTATE, {"ns": "llm-openai-compatible", "ops": [drop], "expectedRevision": 2}
    )
    assert emptied.revision == 3 and emptied.value == {"profiles": []}

    for _ in range(2):  # the rename and the removal, each announced with its invalidation
        await hosts.next(changed("llm-openai-compatible"))
        await hosts.next(ftype("host/models-changed"))
    start = len(hosts.items)
    preset = await ok(
        client, SETTINGS_REPLACE, {"ns": "permission", "section": {"defaultPreset": "read-only"}}
    )
    assert preset.revision == 1 and preset.value == {"defaultPreset": "read-only", "rules": []}
    await hosts.next(changed("permission"))
    reset = await ok(client, SETTINGS_REPLACE, {"ns": "permission", "section": {}})
    assert (
        reset.revision == 2 and reset.user is None and reset.value == {"defaultPreset": "auto", "rules": []}
    )
    await hosts.next(changed("permission"))
    assert not any(f.type == "host/models-changed" for f in hosts.since(start))  # permission: settings only
    assert "permission" not in settings_file(host)["namespaces"]


async def test_onboarding_notice_is_acknowledged_by_mutate(host: Host) -> None:
    client = host.client()
    ack = {"op": "set", "path": ["welcomeNoticeVersion"], "value": "2026-07-30.7"}
    view = await ok(client, SETTINGS_MUTATE, {"ns": "ui-onboarding", "ops": [ack], "expectedRevision": 0})
    assert view.value == {"welcomeNoticeVersion": "2026-07-30.7"} and view.revision == 1
    again = await err(
        client,
        SETTINGS_MUTATE,
        {"ns": "ui-onboarding", "ops": [ack], "expectedRevision": 0},
        "settings-conflict",
    )
    assert again.details == {"ns": "ui-onboarding", "expected": 0, "actual": 1}


async def test_errors_change_nothing(host: Host) -> None:
    client = host.client()
    for ns in ("agent-default-model", "no-such-namespace"):
        error = await err(client, SETTINGS_UPDATE, {"ns": ns, "patch": {}}, "settings-not-exposed")
        assert error.details == {"ns": ns} and error.message == f"settings namespace {ns!r} is not exposed"
    bad_name = await err(client, SETTINGS_UPDATE, {"ns": "Not_A_Name", "patch": {}}, "settings-rejected")
    assert bad_name.details == {"ns": "Not_A_Name", "issues": []}
    invalid = await err(
        client,
        SETTINGS_UPDATE,
        {"ns": "llm-deepseek", "patch": {"baseURL": "ftp://x"}},
        "settings-rejected",
    )
    assert "baseURL" in invalid.message and "http" in invalid.message
    assert invalid.details["ns"] == "llm-deepseek"  # and where, for the dialog to say it in words
    assert [i["loc"] for i in invalid.details["issues"]] == [["baseURL"]]
    assert "ftp://x" not in str(invalid.details)
    duplicate = {"profiles": [{"id": "a", "name": "A", "baseURL": "http://h"}] * 2}
    dup = await err(
        client, SETTINGS_REPLACE, {"ns": "llm-openai-compatible", "section": duplicate}, "settings-rejected"
    )
    assert "unique" in dup.message
    reserved = {"profiles": [{"id": "deepseek", "name": "X", "baseURL": "http://h"}]}
    await err(
        client, SETTINGS_REPLACE, {"ns": "llm-openai-compatible", "section": reserved}, "settings-rejected"
    )
    root = {"op": "set", "path": [], "value": [1]}
    await err(client, SETTINGS_MUTATE, {"ns": "permission", "ops": [root]}, "settings-rejected")
    for payload in (
        {"ns": "", "patch": {}},
        {"ns": "permission"},
        {"ns": "permission", "patch": {}, "expectedRevision": -1},
        {"ns": "permission", "patch": {}, "extra": 1},
    ):
        await err(client, SETTINGS_UPDATE, payload, "bad-request")
    await err(
        client, SETTINGS_MUTATE, {"ns": "permission", "ops": [{"op": "move", "path": []}]}, "bad-request"
    )
    described = await ok(client, SETTINGS_DESCRIBE)
    assert all(n.revision == 0 and n.user is None for n in described.namespaces)
    assert not (host.data_dir / "settings.json").exists()


async def test_a_hand_edit_of_settings_json_is_announced(host: Host) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    await ok(client, SETTINGS_REPLACE, {"ns": "ui-onboarding", "section": {"welcomeNoticeVersion": "a"}})
    await hosts.next(changed("ui-onboarding"))
    doc = settings_file(host)
    doc["namespaces"]["llm-deepseek"] = {"baseURL": "http://127.0.0.1:9"}
    (host.data_dir / "settings.json").write_text(json.dumps(doc))
    await hosts.next(changed("llm-deepseek"))
    await hosts.next(ftype("host/models-changed"))
    view = next(n for n in (await ok(client, SETTINGS_DESCRIBE)).namespaces if n.ns == "llm-deepseek")
    assert view.revision == 1 and view.value["baseURL"] == "http://127.0.0.1:9"
    provider = next(p for p in (await ok(client, LLM_PROVIDERS)).providers if p.provider == "deepseek")
    assert provider.active is False  # applied live (and still no key)


async def test_open_document_needs_an_editor(host: Host) -> None:
    client = host.client()
    error = await err(client, SETTINGS_OPEN_DOCUMENT, {}, "internal")
    assert error.details == {} and "settings.json" in error.message
    assert (host.data_dir / "settings.json").exists()  # prepared before the open was tried
    await err(client, SETTINGS_OPEN_DOCUMENT, {"path": "/etc/passwd"}, "bad-request")  # never a path


# ---- credentials ----------------------------------------------------------------------------------


async def test_credentials_by_reference(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-api-secret-ABCDEF-0123456789"
    monkeypatch.setenv("HD_TEST_ENV_KEY", "sk-from-the-environment-42")
    client = host.client()
    hosts = await host.host_stream(client)
    refs = ["DEEPSEEK_API_KEY", "HD_TEST_ENV_KEY", "NEVER_SET"]
    before = (await ok(client, CREDENTIALS_DESCRIBE, {"refs": refs})).credentials
    assert {r: v.dump() for r, v in before.items()} == {
        "DEEPSEEK_API_KEY": {"configured": False, "writable": True},
        "HD_TEST_ENV_KEY": {"configured": True, "source": "env", "writable": False},
        "NEVER_SET": {"configured": False, "writable": True},
    }
    assert (await ok(client, CREDENTIALS_SET, {"ref": "DEEPSEEK_API_KEY", "value": secret})).dump() == {}
    await hosts.next(lambda f: f.type == "host/credentials-changed" and f.ref == "DEEPSEEK_API_KEY")
    await hosts.next(ftype("host/models-changed"))  # DeepSeek can serve now
    after = (await ok(client, CREDENTIALS_DESCRIBE, {"refs": ["DEEPSEEK_API_KEY"]})).credentials
    assert after["DEEPSEEK_API_KEY"].dump() == {"configured": True, "source": "file", "writable": True}
    deepseek = next(p for p in (await ok(client, LLM_PROVIDERS)).providers if p.provider == "deepseek")
    assert deepseek.active is True
    path = host.data_dir / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"version": 2, "credentials": {"DEEPSEEK_API_KEY": secret}}

    shadowed = await err(
        client, CREDENTIALS_SET, {"ref": "HD_TEST_ENV_KEY", "value": "x"}, "credential-rejected"
    )
    assert shadowed.details == {"ref": "HD_TEST_ENV_KEY"} and "environment" in shadowed.message
    await err(client, CREDENTIALS_UNSET, {"ref": "HD_TEST_ENV_KEY"}, "credential-rejected")
    blank = await err(
        client, CREDENTIALS_SET, {"ref": "DEEPSEEK_API_KEY", "value": "  "}, "credential-rejected"
    )
    assert blank.details == {"ref": "DEEPSEEK_API_KEY"}
    for bad in ({"ref": "not-a-ref", "value": "x"}, {"ref": "1X", "value": "x"}, {"ref": "A", "value": ""}):
        await err(client, CREDENTIALS_SET, bad, "bad-request")
    await err(client, CREDENTIALS_DESCRIBE, {"refs": [f"R{i}" for i in range(65)]}, "bad-request")
    await err(client, CREDENTIALS_DESCRIBE, {}, "bad-request")

    assert (await ok(client, CREDENTIALS_UNSET, {"ref": "DEEPSEEK_API_KEY"})).dump() == {}
    await hosts.next(lambda f: f.type == "host/credentials-changed" and f.ref == "DEEPSEEK_API_KEY")
    assert (await ok(client, CREDENTIALS_UNSET, {"ref": "NEVER_SET"})).dump() == {}  # not set: fine
    assert json.loads(path.read_text())["credentials"] == {}
    for frame in hosts.frames:
        assert secret not in json.dumps(frame.dump())


async def test_a_hand_edit_of_credentials_json_is_announced(host: Host) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    body = {"version": 2, "credentials": {"EDITED_KEY": "sk-edited-by-hand-1"}}
    (host.data_dir / "credentials.json").write_text(json.dumps(body))
    await hosts.next(lambda f: f.type == "host/credentials-changed" and f.ref == "EDITED_KEY")
    view = (await ok(client, CREDENTIALS_DESCRIBE, {"refs": ["EDITED_KEY"]})).credentials["EDITED_KEY"]
    assert view.configured and view.source == "file"
