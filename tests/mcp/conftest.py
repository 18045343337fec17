"""Fixtures for the MCP tests: real servers (PyPI `mcp-server-time`, `mcp-server-git`, the
npm `server-everything` installed by `scripts/install.sh --dev` under `.cache/npm/`) and the API
host of tests/api."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Host, carrier, host  # noqa: F401  (fixtures)

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
EVERYTHING = REPO / ".cache" / "npm" / "node_modules" / ".bin" / "mcp-server-everything"


def time_server() -> dict[str, Any]:
    return {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"]}


def needs_everything() -> None:
    if not EVERYTHING.exists() or shutil.which("node") is None:
        pytest.skip("server-everything is not installed (scripts/install.sh --dev puts it in .cache/npm)")


def git_init(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def write_servers(path: Path, servers: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


@pytest.fixture
def user_servers(host: Host) -> Any:  # noqa: F811
    def put(servers: dict[str, Any]) -> None:
        write_servers(host.data_dir / "mcp.json", servers)

    return put
