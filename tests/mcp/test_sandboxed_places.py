"""A stdio MCP server installed below /tmp starts inside the sandbox (issue 46, item 4): the
sandbox's /tmp is a fresh one, so a server whose program or script lives in the host's /tmp
failed with "bwrap: execvp … No such file". The folder its command line names is bound
read-only (host/engine/integrations/mcp/spawn.py); it stays unwritable."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host.engine.integrations.mcp.spawn import program_places
from tests.api.conftest import Host
from tests.mcp.test_faults import FAULTY, server_in
from tests.security.sandboxing import needs_sandbox, sandbox_on

__all__ = ["sandbox_on"]


@pytest.fixture
def installed() -> Iterator[Path]:
    place = Path(tempfile.mkdtemp(prefix="harnessdesk-mcp-", dir="/tmp"))
    try:
        shutil.copy(FAULTY, place / "server.py")
        runner = place / "run.sh"
        runner.write_text(f'#!/bin/sh\nexec {sys.executable} {place / "server.py"} "$@"\n')
        runner.chmod(0o755)
        yield place
    finally:
        shutil.rmtree(place, ignore_errors=True)


def test_only_folders_below_tmp_and_run_are_named(installed: Path) -> None:
    assert program_places([str(installed / "run.sh"), "resources"]) == (installed,)
    assert program_places(["/usr/bin/python3", str(installed / "server.py"), "--x", "/etc/hosts"]) == (
        installed,
    )
    link = installed / "python"  # a venv's interpreter: a link below /tmp to one outside it
    link.symlink_to("/usr/bin/python3")
    assert program_places([str(link), "-c", "pass"]) == (installed,)
    assert program_places(["/usr/bin/env", "python3", "/tmp"]) == ()  # /tmp itself never
    assert program_places(["node", "/tmp/does-not-exist/x.js"]) == ()


@needs_sandbox
async def test_a_server_installed_below_tmp_starts_in_the_sandbox(
    host: Host, user_servers: Any, installed: Path, sandbox_on: None
) -> None:
    user_servers(
        {
            "script": {"command": sys.executable, "args": [str(installed / "server.py"), "resources"]},
            "program": {"command": str(installed / "run.sh"), "args": ["resources"]},
        }
    )
    client = host.client()
    sid = await host.create()
    for name in ("script", "program"):
        ready = await server_in(client, sid, name, {"ready", "failed"})
        assert ready.state == "ready", ready.error
        assert [t.name for t in ready.tools] == [f"mcp__{name}__poke"] and ready.sandboxed
