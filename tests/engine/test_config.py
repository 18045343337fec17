"""Settings layers and the credential store (file mode, env fallback, no secret leaks)."""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path

import pytest

from host.engine.config import ENV_KEY, Config, RuntimeOverrides, Secret
from host.engine.errors import CredentialRejected, InvalidTimeZone, SettingsConflict, SettingsRejected
from host.engine.timezones import check_time_zone, is_valid_time_zone


def test_defaults_user_layer_and_overrides(tmp_path: Path) -> None:
    cfg = Config(tmp_path)
    assert cfg.llm().provider == "local" and cfg.revision == 0 and cfg.user_fields() == []
    cfg.update({"provider": "deepseek", "model": "deepseek-chat"})
    assert cfg.revision == 1 and cfg.user_fields() == ["provider", "model"]
    on_disk = json.loads((tmp_path / "settings.json").read_text())
    assert on_disk == {"revision": 1, "llm": {"provider": "deepseek", "model": "deepseek-chat"}}
    again = Config(tmp_path, RuntimeOverrides(provider="openai-compatible", base_url="http://127.0.0.1:9/v1"))
    llm = again.llm()
    assert (llm.provider, llm.base_url, llm.model) == (
        "openai-compatible",
        "http://127.0.0.1:9/v1",
        "deepseek-chat",
    )
    assert again.revision == 1
    again.update({}, unset=["model"])
    assert "model" not in json.loads((tmp_path / "settings.json").read_text())["llm"]
    assert again.llm().provider == "openai-compatible"  # the override is never persisted
    assert json.loads((tmp_path / "settings.json").read_text())["llm"]["provider"] == "deepseek"


def test_revision_conflicts_and_rejections(tmp_path: Path) -> None:
    cfg = Config(tmp_path)
    cfg.update({"model": "a"}, expected_revision=0)
    with pytest.raises(SettingsConflict) as info:
        cfg.update({"model": "b"}, expected_revision=0)
    assert (info.value.expected, info.value.actual) == (0, 1)
    with pytest.raises(SettingsRejected):
        cfg.update({"provider": "nope"})
    with pytest.raises(SettingsRejected):
        cfg.update({"colour": "red"})
    assert cfg.llm().model == "a" and cfg.revision == 1


def test_corrupt_settings_file_falls_back_to_defaults(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text("{not json")
    assert Config(tmp_path).llm().provider == "local"
    (tmp_path / "settings.json").write_text(json.dumps({"revision": 3, "llm": {"provider": "bogus"}}))
    cfg = Config(tmp_path)
    assert cfg.llm().provider == "local" and cfg.revision == 3


def test_credentials_file_mode_and_no_leaks(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    cfg = Config(tmp_path, environ={})
    view = cfg.set_credential("deepseek", "sk-very-secret")
    assert view.configured and view.source == "file"
    path = tmp_path / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert cfg.key_for("deepseek") == "sk-very-secret"
    described = [v.dump() for v in cfg.describe_credentials()]
    assert "sk-very-secret" not in json.dumps(described) + repr(cfg) + caplog.text
    assert repr(Secret("sk-very-secret")) == "Secret('***')" and "sk-" not in str(Secret("sk-x"))
    assert Config(tmp_path, environ={}).key_for("deepseek") == "sk-very-secret"
    cfg.unset_credential("deepseek")
    assert cfg.key_for("deepseek") is None and not cfg.credential_view("deepseek").configured
    with pytest.raises(CredentialRejected):
        cfg.set_credential("deepseek", "   ")
    with pytest.raises(CredentialRejected):
        cfg.set_credential("someone-else", "x")


def test_credentials_that_cannot_be_saved_are_not_writable_and_rejected(tmp_path: Path) -> None:
    cfg = Config(tmp_path, environ={})
    assert cfg.credential_view("deepseek").writable
    (tmp_path / "credentials.json").mkdir()  # something that is not a file stands in the way
    assert not cfg.credential_view("deepseek").writable
    with pytest.raises(CredentialRejected) as info:
        cfg.set_credential("deepseek", "sk-unsaved")
    assert "cannot save the credential" in str(info.value) and "sk-unsaved" not in str(info.value)
    assert info.value.details() == {"ref": "deepseek"}
    assert cfg.key_for("deepseek") is None and not cfg.credential_view("deepseek").configured


def test_settings_that_cannot_be_saved_are_rejected_and_unchanged(tmp_path: Path) -> None:
    cfg = Config(tmp_path)
    (tmp_path / "settings.json").mkdir()
    with pytest.raises(SettingsRejected) as info:
        cfg.update({"model": "m"})
    assert info.value.details() == {"fields": ["model"]}
    assert cfg.revision == 0 and cfg.llm().model is None


def test_env_key_only_for_the_selected_remote_provider(tmp_path: Path) -> None:
    cfg = Config(tmp_path, environ={ENV_KEY: "env-secret"})
    assert cfg.key_for("deepseek") is None  # local is selected
    cfg.update({"provider": "deepseek"})
    assert cfg.key_for("deepseek") == "env-secret"
    assert cfg.key_for("openai-compatible") is None
    assert cfg.credential_view("deepseek").source == "env"
    cfg.set_credential("deepseek", "file-secret")
    assert cfg.key_for("deepseek") == "file-secret"  # the file wins over the env


def test_time_zone_helper() -> None:
    assert check_time_zone("UTC") == "UTC"
    assert is_valid_time_zone("Europe/Paris") and is_valid_time_zone("America/Argentina/Buenos_Aires")
    for bad in ["", "Paris", "Europe/Nowhere", "../etc/passwd", "Europe/../Paris", "EST5EDT/x"]:
        assert not is_valid_time_zone(bad)
    with pytest.raises(InvalidTimeZone) as info:
        check_time_zone("Mars/Olympus")
    assert info.value.details() == {"value": "Mars/Olympus"}
