"""Folder trust and approvals: a cloned repository's `.mcp.json` stays inert until the person
trusts the folder and approves the exact entry; a changed entry asks again (docs/decisions.md,
"MCP servers")."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from contract.methods import (
    MCP_APPROVE,
    MCP_LIST,
    SESSION_CREATE,
    WORKSPACE_CREATE,
    WORKSPACE_LIST,
    WORKSPACE_SET_TRUST,
)
from host.engine.sandbox import support
from tests.api.conftest import Host
from tests.api.support import err, event, eventually, ok, prompt
from tests.mcp.conftest import BIN, write_servers
from tests.support.scripted_llm import Reply, ScriptedLlmServer

WAIT = 60.0


def marker_server(marker: Path, extra: str = "") -> dict[str, Any]:
    """A real server (mcp-server-time) started through a shell that first leaves a marker in its
    project, and tries to leave one beside the project (the sandbox must refuse that one)."""
    outside = marker.parent.parent / "OUTSIDE"
    script = f"touch {marker}; touch {outside}; exec {BIN / 'mcp-server-time'} --local-timezone UTC {extra}"
    return {"command": "/bin/sh", "args": ["-c", script]}


def cloned_repo(repo: Path, marker: Path) -> Path:
    """A cloned repository whose `.mcp.json` would leave `marker` (inside it: the sandbox lets a
    server write only in its project)."""
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    write_servers(repo / ".mcp.json", {"clock": marker_server(marker)})
    return repo


async def state(client: Any, sid: str) -> tuple[bool, str]:
    listed = await ok(client, MCP_LIST, {"sessionId": sid})
    (server,) = listed.servers
    return listed.trusted, server.state


async def test_nothing_a_cloned_repo_brings_runs_before_trust_and_approval(
    host: Host, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    repo = tmp_path / "cloned"
    marker = repo / "MARKER"
    cloned_repo(repo, marker)
    client = host.client()
    mux = await host.mux(client)
    created = await ok(client, WORKSPACE_CREATE, {"path": str(repo)})
    wid = created.workspace.workspace_id
    assert created.workspace.trusted is False
    sid = (await ok(client, SESSION_CREATE, {"workspaceId": wid})).session_id
    llm.enqueue(Reply(text="hello"))
    await prompt(client, sid, "hi")
    await mux.next(event("turn/end", sid), within=WAIT)
    assert not marker.exists()
    assert not any(t["function"]["name"].startswith("mcp__") for t in llm.requests[0].get("tools", []))
    listed = await ok(client, MCP_LIST, {"sessionId": sid})
    (server,) = listed.servers
    assert (listed.trusted, server.state, server.scope) == (False, "needs-trust", "project")
    assert server.command_line.startswith("/bin/sh -c ") and str(marker) in server.command_line

    # an approval before trust is recorded but still runs nothing
    await ok(client, MCP_APPROVE, {"workspaceId": wid, "name": "clock", "digest": server.digest})
    assert await state(client, sid) == (False, "needs-trust")
    assert not marker.exists()

    trusted = await ok(client, WORKSPACE_SET_TRUST, {"workspaceId": wid, "trusted": True})
    assert trusted.workspace.trusted is True
    assert await eventually(lambda: marker.exists(), within=WAIT)
    assert await eventually_state(client, sid, "ready")
    if support().available:  # inside the sandbox: the project is the one writable place
        (running,) = (await ok(client, MCP_LIST, {"sessionId": sid})).servers
        assert running.sandboxed is True
        assert not (tmp_path / "OUTSIDE").exists()

    # the entry changes (another command line): it asks again, and the old process is stopped
    marker.unlink()
    write_servers(repo / ".mcp.json", {"clock": marker_server(marker, "--help >/dev/null; true")})
    assert await state(client, sid) == (True, "needs-approval")
    stale = {"workspaceId": wid, "name": "clock", "digest": server.digest}
    await err(client, MCP_APPROVE, stale, "mcp-server-changed")
    assert not marker.exists()


async def test_untrusting_stops_the_project_servers(
    host: Host, llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    repo = tmp_path / "cloned"
    marker = repo / "MARKER"
    cloned_repo(repo, marker)
    client = host.client()
    wid = (await ok(client, WORKSPACE_CREATE, {"path": str(repo)})).workspace.workspace_id
    sid = (await ok(client, SESSION_CREATE, {"workspaceId": wid})).session_id
    await ok(client, WORKSPACE_SET_TRUST, {"workspaceId": wid, "trusted": True})
    assert await state(client, sid) == (True, "needs-approval")
    await ok(client, MCP_APPROVE, {"workspaceId": wid, "name": "clock"})
    assert await eventually_state(client, sid, "ready")
    await ok(client, WORKSPACE_SET_TRUST, {"workspaceId": wid, "trusted": False})
    assert await state(client, sid) == (False, "needs-trust")
    listed = await ok(client, WORKSPACE_LIST, {})
    assert [w.trusted for w in listed.items] == [False]
    await err(client, MCP_APPROVE, {"workspaceId": wid, "name": "nope"}, "mcp-server-not-found")


async def eventually_state(client: Any, sid: str, wanted: str) -> bool:
    for _ in range(600):
        if (await state(client, sid))[1] == wanted:
            return True
        await asyncio.sleep(0.1)
    return False
