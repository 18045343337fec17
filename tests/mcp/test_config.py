"""Pure parts of MCP: public tool names (the reference's vectors), the `.mcp.json` shape with
its sources and precedence, and `${VAR}` / `${VAR:-default}` / `${cred:…}` expansion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from host.engine.integrations.mcp import config as cfg
from host.engine.integrations.mcp.names import public_name
from host.engine.tools.permissions.scope import covers, label, scope_for


def test_public_names_follow_the_reference_vectors() -> None:
    assert public_name("fixture", "admin.reset") == "mcp__fixture__admin_reset_2d9bb2dfe9aa"
    assert public_name("everything", "get-sum") == "mcp__everything__get-sum"
    long = public_name("srv", "x" * 80)
    assert len(long) == 64 and long.startswith("mcp__srv__xxx") and long != public_name("srv", "x" * 81)


def test_sources_precedence_and_broken_entries(tmp_path: Path) -> None:
    data, project = tmp_path / "data", tmp_path / "proj"
    data.mkdir()
    (project / ".harnessdesk").mkdir(parents=True)
    (data / "mcp.json").write_text(
        json.dumps({"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "b"}}})
    )
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"a": {"command": "proj-a", "oauth": {}}, "bad name!": {"command": "x"}}})
    )
    (project / ".harnessdesk" / "mcp.json").write_text("{not json")
    overrides = {"projects": {str(project): {"mcpServers": {"b": {"type": "http", "url": "https://h/mcp"}}}}}
    (data / "mcp-overrides.json").write_text(json.dumps(overrides))
    config = cfg.load(data, project)
    assert config.servers["a"].command == "proj-a" and config.servers["a"].scope == "project"
    assert config.servers["a"].warnings == ("unknown key 'oauth' ignored",)
    assert config.servers["b"].scope == "override" and config.servers["b"].transport == "http"
    assert config.servers["bad name!"].error is not None
    assert any("not JSON" in p for p in config.problems)
    cfg.write_disabled(data, str(project), "a", False)
    assert cfg.load(data, project).disabled == {"a"}
    cfg.write_disabled(data, str(project), "a", True)
    assert cfg.load(data, project).disabled == set()


def test_the_digest_changes_with_the_command() -> None:
    one = cfg.parse_entry("s", {"command": "run", "args": ["--x"]}, "project", "f")
    two = cfg.parse_entry("s", {"command": "run", "args": ["--y"]}, "project", "f")
    same = cfg.parse_entry("s", {"args": ["--x"], "command": "run"}, "project", "f")
    assert one.digest != two.digest and one.digest == same.digest
    assert one.command_line() == "run --x"


def test_expansion() -> None:
    env = {"HOME": "/home/me", "EMPTY": ""}
    creds = {"gh": "tok-1"}.get
    assert cfg.expand("${HOME}/x $HOME", env, creds) == "/home/me/x $HOME"
    assert cfg.expand("${NOPE:-fallback}", env, creds) == "fallback"
    assert cfg.expand("${EMPTY:-d}", env, creds) == "d"
    assert cfg.expand("Bearer ${cred:gh}", env, creds) == "Bearer tok-1"
    with pytest.raises(cfg.MissingValue, match="missing env NOPE"):
        cfg.expand("${NOPE}", env, creds)
    with pytest.raises(cfg.MissingValue, match="missing credential other"):
        cfg.expand("${cred:other}", env, creds)


def test_allow_always_covers_one_mcp_tool_in_one_project(tmp_path: Path) -> None:
    project, other = tmp_path / "p", tmp_path / "q"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    other.mkdir()
    scope = scope_for("mcp__git__git_add", {"files": ["a"]}, project / "sub", False)
    assert scope == f"project:{project}"
    assert covers(scope, "mcp__git__git_add", {"files": ["b"]}, project, False)
    assert not covers(scope, "mcp__git__git_add", {}, other, False)
    assert "every call in the project" in label("mcp__git__git_add", scope)
