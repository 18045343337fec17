"""The four modes as the engine decides them, on a machine with the sandbox and without one
(host/engine/tools/permissions/policy.py `decide` and `sandbox_for`; real tools, real bwrap probe)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host.engine.sandbox import Confinement, reset_support
from host.engine.sandbox.probe import FORCE_ENV, probe_bwrap
from host.engine.tools import build_tools
from host.engine.tools.permissions.modes import preset
from host.engine.tools.permissions.policy import SessionPermissions

TOOLS = build_tools()


def perms(mode: str, cwd: Path, network: bool = False) -> SessionPermissions:
    confinement = Confinement(data_dir=cwd / "data")
    return SessionPermissions("s-1", cwd, preset(mode), network=network, confinement=confinement)


def verdict(p: SessionPermissions, name: str, **arguments: Any) -> str:
    return p.decide(TOOLS[name], name, arguments).verdict


@pytest.fixture
def sandbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if not probe_bwrap().available:
        pytest.skip("no bubblewrap here")
    monkeypatch.delenv(FORCE_ENV, raising=False)
    reset_support()
    yield
    monkeypatch.undo()
    reset_support()


def test_without_a_sandbox_auto_asks_like_ask_and_read_only_runs_no_command(tmp_path: Path) -> None:
    reset_support()  # the suite's machine has none (tests/conftest.py)
    auto = perms("auto", tmp_path)
    assert auto.preset.name == "workspace-write" and not auto.sandboxed
    assert verdict(auto, "bash", command="ls") == "ask"
    assert verdict(auto, "write_file", path="a.txt", content="x") == "ask"
    assert auto.sandbox_for("bash", {"command": "ls"}) is None  # runs bare only after the person said yes
    projection = auto.projection()
    assert [o.value for o in projection.options] == ["read-only", "workspace-write", "danger-full-access"]
    assert projection.badge.startswith("Ask — no sandbox on this machine")
    assert projection.sandbox is not None and projection.sandbox.kind == "none"
    assert verdict(perms("read-only", tmp_path), "bash", command="ls") == "deny"


@pytest.mark.usefixtures("sandbox")
def test_with_the_sandbox_each_mode_decides_and_says_what_a_call_runs_under(tmp_path: Path) -> None:
    auto = perms("auto", tmp_path)
    assert auto.sandboxed and verdict(auto, "bash", command="make") == "allow"
    assert verdict(auto, "write_file", path="src/a.py", content="x") == "allow"
    assert verdict(auto, "bash", command="pip install x", network=True) == "ask"
    assert verdict(auto, "bash", command="cp x ~/", outside_sandbox=True) == "ask"
    for protected in (".git/hooks/pre-commit", ".git/config", ".mcp.json", "AGENTS.md", ".harnessdesk/x"):
        assert verdict(auto, "write_file", path=protected, content="x") == "deny", protected
    inside = auto.sandbox_for("bash", {"command": "make"})
    assert inside is not None and inside.write and not inside.network and inside.data_dir == tmp_path / "data"
    networked = auto.sandbox_for("bash", {"command": "pip install x", "network": True})
    assert networked is not None and networked.network
    assert auto.sandbox_for("bash", {"command": "x", "outside_sandbox": True}) is None

    online = perms("auto", tmp_path, network=True)
    assert verdict(online, "bash", command="curl x", network=True) == "allow"  # the switch is on

    ask = perms("workspace-write", tmp_path)
    assert verdict(ask, "bash", command="make") == "ask"
    assert verdict(ask, "write_file", path="AGENTS.md", content="x") == "deny"
    assert ask.sandbox_for("bash", {"command": "make"}) is not None

    read_only = perms("read-only", tmp_path)
    assert verdict(read_only, "bash", command="ls") == "allow"
    assert verdict(read_only, "bash", command="ls", network=True) == "deny"
    assert verdict(read_only, "write_file", path="a.txt", content="x") == "deny"
    ro = read_only.sandbox_for("bash", {"command": "ls"})
    assert ro is not None and not ro.write

    full = perms("danger-full-access", tmp_path)
    assert verdict(full, "bash", command="rm -rf build") == "allow"
    assert verdict(full, "write_file", path=".git/hooks/pre-commit", content="x") == "allow"
    assert full.sandbox_for("bash", {"command": "x"}) is None
    assert [o.value for o in auto.projection().options] == [
        "read-only",
        "auto",
        "workspace-write",
        "danger-full-access",
    ]
