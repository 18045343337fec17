"""The settings store: layers, the three write modes, revisions, ordering, redaction, outside edits,
the version-1 migration, and credentials by reference (real files under tmp_path)."""

from __future__ import annotations

import asyncio
import json
import logging
import stat
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from contract._base import WireModel
from contract.namespaces import (
    EXPOSED,
    DeepSeekSection,
    OpenAICompatibleSection,
)
from host.engine.errors import CredentialRejected, SettingsConflict, SettingsNotExposed, SettingsRejected
from host.engine.sandbox import secret_values
from host.engine.settings import registered_namespaces
from host.engine.settings.credentials import CredentialStore
from host.engine.settings.migrate import migrate
from host.engine.settings.sections import Namespace, deep_merge, redact, set_path, unset_path
from host.engine.settings.store import SettingsStore
from tests.api.support import eventually


def store(data: Path, poll: float = 0.05) -> SettingsStore:
    return SettingsStore(data, registered_namespaces(), is_exposed=EXPOSED.__contains__, poll_interval=poll)


def on_disk(data: Path) -> dict[str, Any]:
    return json.loads((data / "settings.json").read_text())


# ---- pure rules -----------------------------------------------------------------------------------


def test_deep_merge_and_path_ops() -> None:
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert deep_merge(base, {"a": {"c": [3]}, "e": None}) == {"a": {"b": 1, "c": [3]}, "d": 1, "e": None}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}  # untouched
    assert set_path({}, ["x", "y"], 2) == {"x": {"y": 2}}
    assert set_path({}, ["profiles", "0"], {"id": "a"}) == {"profiles": [{"id": "a"}]}
    assert set_path({"p": [{"id": "a"}]}, ["p", "0", "name"], "A") == {"p": [{"id": "a", "name": "A"}]}
    assert set_path({"p": [{"id": "a"}]}, ["p", "1"], {"id": "b"}) == {"p": [{"id": "a"}, {"id": "b"}]}
    assert unset_path({"x": {"y": 2, "z": 3}}, ["x", "y"]) == {"x": {"z": 3}}
    assert unset_path({"x": 1}, ["missing", "deeper"]) == {"x": 1}  # a missing path is a no-op
    assert unset_path({"x": 1}, []) == {}
    assert unset_path({"p": [1, 2, 3]}, ["p", "1"]) == {"p": [1, 3]}
    assert set_path({"x": 1}, [], {"y": 2}) == {"y": 2}
    with pytest.raises(ValueError, match="object"):
        set_path({}, [], [1, 2])


class WithSecret(WireModel):
    name: str = "n"
    token: str | None = Field(default=None, json_schema_extra={"secret": True})


class Outer(WireModel):
    items: list[WithSecret] = Field(default_factory=list)
    top: str | None = Field(default=None, json_schema_extra={"secret": True})


def test_redaction_removes_secret_fields_and_lists_their_slots() -> None:
    value = {"items": [{"name": "a", "token": "t-1"}, {"name": "b"}], "top": "sekrit"}
    clean, slots = redact(Outer, value)
    assert clean == {"items": [{"name": "a"}, {"name": "b"}]}
    assert [(s.path, s.set) for s in slots] == [
        (["items", "0", "token"], True),
        (["items", "1", "token"], False),
        (["top"], True),
    ]
    assert redact(DeepSeekSection, {"apiKeyEnv": "X"}) == ({"apiKeyEnv": "X"}, [])  # a ref is no secret


async def test_a_secret_field_never_leaves_through_a_view(tmp_path: Path) -> None:
    spaces = [Namespace("vault", Outer)]
    s = SettingsStore(tmp_path, spaces, is_exposed=lambda ns: True)
    view = await s.write("vault", lambda _: {"top": "sk-in-a-section-1234"}, None)
    assert "sk-in-a-section" not in json.dumps(view.dump())
    assert [(x.path, x.set) for x in view.secrets] == [(["top"], True)]
    assert "sk-in-a-section-1234" in secret_values.known()  # kept out of tool output
    assert stat.S_IMODE((tmp_path / "settings.json").stat().st_mode) == 0o600
    replaced = await s.write("vault", lambda _: {}, None)  # replace {} drops stored secrets
    assert [(x.path, x.set) for x in replaced.secrets] == [(["top"], False)]


def test_profile_ids_are_unique() -> None:
    with pytest.raises(ValueError, match="unique"):
        OpenAICompatibleSection.model_validate(
            {"profiles": [{"id": "a", "name": "A", "baseURL": "http://x"}] * 2}, by_alias=True
        )


# ---- the store ------------------------------------------------------------------------------------


async def test_layers_defaults_base_and_user(tmp_path: Path) -> None:
    s = store(tmp_path)
    view = s.view("llm-deepseek")
    assert view.value["baseURL"] == "https://api.deepseek.com" and view.value["streamIdleTimeoutMs"] == 60000
    assert [m["id"] for m in view.value["models"]] == ["deepseek-chat", "deepseek-reasoner"]
    assert view.base is not None and [m["id"] for m in view.base["models"]] == [
        "deepseek-chat",
        "deepseek-reasoner",
    ]
    assert view.user is None and view.revision == 0
    assert view.schema_["properties"]["baseURL"]["type"] == "string"
    assert s.view("permission").value == {"defaultPreset": "auto", "rules": []}
    assert s.view("llm-local").applies == "live" and s.view("permission").applies == "live"
    new = await s.write("llm-deepseek", lambda sec: deep_merge(sec, {"baseURL": "http://127.0.0.1:9"}), 0)
    assert new.revision == 1 and new.user == {"baseURL": "http://127.0.0.1:9"}
    assert new.value["models"] == view.value["models"]  # base still under the user layer
    assert on_disk(tmp_path) == {
        "version": 2,
        "namespaces": {"llm-deepseek": {"baseURL": "http://127.0.0.1:9"}},
    }
    again = await s.write(
        "llm-deepseek", lambda sec: deep_merge(sec, {"baseURL": "http://127.0.0.1:9"}), None
    )
    assert again.revision == 1  # a deep-equal write changes nothing
    assert store(tmp_path).view("llm-deepseek").user == {"baseURL": "http://127.0.0.1:9"}  # read back


async def test_conflicts_rejections_and_exposure(tmp_path: Path) -> None:
    s = store(tmp_path)
    await s.write("permission", lambda _: {"defaultPreset": "read-only"}, 0)
    with pytest.raises(SettingsConflict) as conflict:
        await s.write("permission", lambda _: {"defaultPreset": "danger-full-access"}, 0)
    assert conflict.value.details() == {"ns": "permission", "expected": 0, "actual": 1}
    with pytest.raises(SettingsRejected) as bad:
        await s.write("permission", lambda _: {"defaultPreset": "yolo"}, None)
    details = bad.value.details()
    assert details["ns"] == "permission" and "defaultPreset" in str(bad.value)
    assert [issue["loc"] for issue in details["issues"]] == [["defaultPreset"]]  # located, in words
    with pytest.raises(SettingsRejected, match="not a namespace name"):
        await s.write("Bad_Name", lambda _: {}, None)
    for hidden in ("agent-default-model", "no-such-thing"):  # same answer: no probing
        with pytest.raises(SettingsNotExposed) as info:
            await s.write(hidden, lambda _: {}, None)
        assert str(info.value) == f"settings namespace {hidden!r} is not exposed"
    with pytest.raises(SettingsRejected, match="http"):
        await s.write("llm-deepseek", lambda _: {"baseURL": "ftp://x"}, None)
    assert (
        s.view("permission").value == {"defaultPreset": "read-only", "rules": []}
        and s.revision("permission") == 1
    )
    assert "llm-deepseek" not in on_disk(tmp_path)["namespaces"]


async def test_writes_to_one_namespace_run_in_call_order(tmp_path: Path) -> None:
    s = store(tmp_path)
    writes = [
        s.write("ui-onboarding", (lambda v: lambda _: {"welcomeNoticeVersion": v})(str(i)), i)
        for i in range(20)
    ]
    views = await asyncio.gather(*writes)  # each expects the revision the previous one produced
    assert [v.revision for v in views] == list(range(1, 21))
    assert on_disk(tmp_path)["namespaces"]["ui-onboarding"] == {"welcomeNoticeVersion": "19"}


async def test_concurrent_namespaces_do_not_lose_each_others_writes(tmp_path: Path) -> None:
    s = store(tmp_path)
    await asyncio.gather(
        s.write("permission", lambda _: {"defaultPreset": "read-only"}, None),
        s.write("ui-onboarding", lambda _: {"welcomeNoticeVersion": "v1"}, None),
        s.write("agent-presets", lambda _: {"default": "chat"}, None),
    )
    assert set(on_disk(tmp_path)["namespaces"]) == {"permission", "ui-onboarding", "agent-presets"}


async def test_hand_edits_raise_the_revision_and_call_listeners(tmp_path: Path) -> None:
    s = store(tmp_path)
    changed: list[str] = []
    s.on_change(changed.append)
    s.watch.start()
    try:
        await s.write("permission", lambda _: {"defaultPreset": "read-only"}, None)
        assert changed == ["permission"]
        doc = on_disk(tmp_path)
        doc["namespaces"]["permission"] = {"defaultPreset": "danger-full-access"}
        doc["namespaces"]["ui-onboarding"] = {"welcomeNoticeVersion": "x"}
        doc["namespaces"]["someone-elses"] = {"kept": True}
        (tmp_path / "settings.json").write_text(json.dumps(doc))
        assert await eventually(lambda: len(changed) >= 4, 5)
        assert sorted(changed[1:]) == ["permission", "someone-elses", "ui-onboarding"]
        assert s.view("permission").value == {"defaultPreset": "danger-full-access", "rules": []}
        assert s.revision("permission") == 2 and s.revision("ui-onboarding") == 1
        (tmp_path / "settings.json").write_text("{ not json")
        await asyncio.sleep(0.3)
        assert s.view("permission").value == {"defaultPreset": "danger-full-access", "rules": []}  # kept
        with pytest.raises(SettingsRejected, match="not valid JSON"):  # never written over
            await s.write("agent-presets", lambda _: {"default": "chat"}, None)
        assert (tmp_path / "settings.json").read_text() == "{ not json"
        (tmp_path / "settings.json").write_text(json.dumps(doc))  # fixed by hand: writes again
        await s.write("agent-presets", lambda _: {"default": "chat"}, None)
        assert on_disk(tmp_path)["namespaces"]["someone-elses"] == {"kept": True}  # never dropped
    finally:
        await s.watch.stop()


async def test_an_invalid_hand_edit_is_ignored_for_resolution_but_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    doc = {"version": 2, "namespaces": {"permission": {"defaultPreset": "nonsense"}}}
    (tmp_path / "settings.json").write_text(json.dumps(doc))
    s = store(tmp_path)
    assert s.section("permission").default_preset == "auto"
    assert "ignoring the invalid section" in caplog.text
    assert s.view("permission").user == {"defaultPreset": "nonsense"}
    with pytest.raises(SettingsRejected):  # an update merges into the bad section: still invalid
        await s.write("permission", lambda sec: deep_merge(sec, {}), None)
    fixed = await s.write("permission", lambda _: {"defaultPreset": "read-only"}, None)
    assert fixed.value == {"defaultPreset": "read-only", "rules": []}


# ---- migration ------------------------------------------------------------------------------------


def test_version_1_files_are_migrated_once(tmp_path: Path) -> None:
    v1 = {
        "revision": 7,
        "llm": {"provider": "openai-compatible", "baseUrl": "http://127.0.0.1:1234/v1", "model": "qwen"},
    }
    (tmp_path / "settings.json").write_text(json.dumps(v1))
    (tmp_path / "credentials.json").write_text(
        json.dumps({"openai-compatible": "sk-v1-key-000", "deepseek": "sk-ds-000"})
    )
    assert migrate(tmp_path) is True
    spaces = on_disk(tmp_path)["namespaces"]
    assert spaces["agent-default-model"] == {"provider": "openai-compatible", "model": "qwen"}
    assert spaces["llm-openai-compatible"] == {
        "profiles": [
            {
                "id": "openai-compatible",
                "name": "OpenAI-compatible server",
                "baseURL": "http://127.0.0.1:1234/v1",
                "apiKeyEnv": "OPENAI_COMPATIBLE_API_KEY",
                "models": [{"id": "qwen"}],
            }
        ]
    }
    creds = json.loads((tmp_path / "credentials.json").read_text())
    assert creds == {
        "version": 2,
        "credentials": {"OPENAI_COMPATIBLE_API_KEY": "sk-v1-key-000", "DEEPSEEK_API_KEY": "sk-ds-000"},
    }
    assert stat.S_IMODE((tmp_path / "credentials.json").stat().st_mode) == 0o600
    assert json.loads((tmp_path / "settings.v1.json").read_text()) == v1
    assert "sk-" not in (tmp_path / "settings.v1.json").read_text()
    assert migrate(tmp_path) is False  # once
    s = store(tmp_path)
    assert s.section("llm-openai-compatible").profiles[0].base_url == "http://127.0.0.1:1234/v1"


def test_version_1_deepseek_selection(tmp_path: Path) -> None:
    v1 = {
        "revision": 1,
        "llm": {"provider": "deepseek", "baseUrl": "http://proxy.example/ds", "reasoningEffort": "max"},
    }
    (tmp_path / "settings.json").write_text(json.dumps(v1))
    migrate(tmp_path)
    spaces = on_disk(tmp_path)["namespaces"]
    assert spaces == {
        "agent-default-model": {"provider": "deepseek", "reasoningEffort": "max"},
        "llm-deepseek": {"baseURL": "http://proxy.example/ds"},
    }


# ---- credentials ----------------------------------------------------------------------------------


async def test_credentials_env_over_file_never_shown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    creds = CredentialStore(tmp_path, {"FROM_ENV": "sk-env-value-123"})
    changed: list[str] = []
    creds.on_change(changed.append)
    assert creds.view("NOPE").dump() == {"configured": False, "writable": True}
    await creds.set("MY_KEY", "sk-file-value-456")
    assert changed == ["MY_KEY"] and creds.value("MY_KEY") == "sk-file-value-456"
    assert creds.view("MY_KEY").dump() == {"configured": True, "source": "file", "writable": True}
    assert creds.view("FROM_ENV").dump() == {"configured": True, "source": "env", "writable": False}
    assert creds.value("FROM_ENV") == "sk-env-value-123"
    with pytest.raises(CredentialRejected) as shadowed:
        await creds.set("FROM_ENV", "sk-other")
    assert shadowed.value.details() == {"ref": "FROM_ENV"} and "environment" in str(shadowed.value)
    with pytest.raises(CredentialRejected):
        await creds.unset("FROM_ENV")
    with pytest.raises(CredentialRejected, match="blank"):
        await creds.set("MY_KEY", "   ")
    await creds.unset("NEVER_SET")  # succeeds, changes nothing
    assert changed == ["MY_KEY"]
    path = tmp_path / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "sk-file-value-456" not in repr(creds) + caplog.text
    await creds.unset("MY_KEY")
    assert creds.value("MY_KEY") is None and json.loads(path.read_text())["credentials"] == {}


async def test_a_move_re_reads_a_hand_edit_first_and_refuses_a_broken_file_as_set_does(
    tmp_path: Path,
) -> None:
    creds = CredentialStore(tmp_path, {})  # the watch is not started: only the re-read sees edits
    moved: list[str] = []
    creds.on_change(moved.append)
    await creds.set("OLD_API_KEY", "sk-old-value-1")
    by_hand = {"OLD_API_KEY": "sk-old-value-1", "NEW_API_KEY": "sk-hand-new-2", "EXTRA_API_KEY": "sk-extra-3"}
    creds.path.write_text(json.dumps({"version": 2, "credentials": by_hand}))
    with pytest.raises(CredentialRejected, match="NEW_API_KEY already holds another key") as taken:
        await creds.move("OLD_API_KEY", "NEW_API_KEY")
    assert taken.value.details() == {"ref": "NEW_API_KEY"}
    assert json.loads(creds.path.read_text())["credentials"] == by_hand
    moved.clear()
    await creds.move("OLD_API_KEY", "FREE_API_KEY")
    assert moved == ["OLD_API_KEY", "FREE_API_KEY"]
    after = {"NEW_API_KEY": "sk-hand-new-2", "EXTRA_API_KEY": "sk-extra-3", "FREE_API_KEY": "sk-old-value-1"}
    assert json.loads(creds.path.read_text())["credentials"] == after
    broken = b'{"version": 2, "credentials": {"FREE_API_KEY": "sk-old-value-1",}}\n'
    creds.path.write_bytes(broken)
    with pytest.raises(CredentialRejected) as by_set:
        await creds.set("OTHER_API_KEY", "sk-other-value-4")
    with pytest.raises(CredentialRejected) as by_move:
        await creds.move("FREE_API_KEY", "NEWER_API_KEY")
    assert str(by_move.value) == str(by_set.value) and str(by_move.value).endswith(
        "fixed (Open file) or reset."
    )
    assert by_move.value.details() == {"ref": "FREE_API_KEY"}
    assert creds.path.read_bytes() == broken and creds.value("FREE_API_KEY") == "sk-old-value-1"


async def test_credentials_file_edit_is_noticed(tmp_path: Path) -> None:
    creds = CredentialStore(tmp_path, {}, poll_interval=0.05)
    changed: list[str] = []
    creds.on_change(changed.append)
    creds.watch.start()
    try:
        (tmp_path / "credentials.json").write_text(
            json.dumps({"version": 2, "credentials": {"A_KEY": "sk-edited-1"}})
        )
        assert await eventually(lambda: changed == ["A_KEY"], 5)
        assert creds.value("A_KEY") == "sk-edited-1"
    finally:
        await creds.watch.stop()
