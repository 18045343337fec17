"""A project's MCP sync is shared by the callers that arrive while it waits for the project's
lock (docs/decisions/reads-wait-on-their-thread.md): twenty sessions starting a turn at once
read the config once or twice, not twenty times in a row; a caller never gets a config read
before it came, and a cancelled caller does not fail the others."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from host.engine.integrations.mcp import config as cfg
from host.engine.integrations.mcp.service import McpService
from host.engine.sandbox import Confinement
from host.engine.sessions.bus import Bus

BOUND = 30.0
"""A bound on every wait (never a timed assertion)."""


def _service(data_dir: Path) -> McpService:
    return McpService(
        data_dir,
        Bus(),
        trusted=lambda root: False,
        approvals=dict,
        credential=lambda name: None,
        confinement=Confinement(data_dir=data_dir),
    )


def _write_project_servers(root: Path, names: list[str]) -> None:
    # a project's servers in a folder nobody trusted: read and listed, never started
    servers = {n: {"command": "/nonexistent/server"} for n in names}
    (root / cfg.PROJECT_FILES[0]).write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every project whose config was read (the real reader, counted)."""
    seen: list[Path] = []
    real = cfg.load

    def counted(data_dir: Path, project: Path, **kw: Any) -> cfg.McpConfig:
        seen.append(project)
        return real(data_dir, project, **kw)

    monkeypatch.setattr(cfg, "load", counted)  # the module the service reads it from
    return seen


async def test_callers_waiting_for_the_lock_share_one_read_of_the_config(
    tmp_path: Path, loads: list[Path]
) -> None:
    service = _service(tmp_path / "data")
    (tmp_path / "data").mkdir()
    root = tmp_path / "project"
    root.mkdir()
    project = service._project(root)
    await project.lock.acquire()  # a sync already running
    try:
        callers = [asyncio.ensure_future(service.sync(root, root, wait=False)) for _ in range(20)]
        await asyncio.sleep(0)
        _write_project_servers(root, ["added-while-they-waited"])
    finally:
        project.lock.release()
    done = await asyncio.wait_for(asyncio.gather(*callers), BOUND)
    assert all(p is project for p in done)
    assert loads == [root]  # one read for all twenty
    assert list(project.config.servers) == ["added-while-they-waited"]  # read after they came
    assert service.state(project, project.config.servers["added-while-they-waited"]) == "needs-trust"
    await asyncio.wait_for(service.sync(root, root, wait=False), BOUND)
    assert loads == [root, root]  # a caller after it reads again


async def test_a_cancelled_caller_leaves_the_others_their_sync(tmp_path: Path, loads: list[Path]) -> None:
    service = _service(tmp_path / "data")
    (tmp_path / "data").mkdir()
    root = tmp_path / "project"
    root.mkdir()
    project = service._project(root)
    await project.lock.acquire()
    try:
        leader = asyncio.ensure_future(service.sync(root, root, wait=False))
        await asyncio.sleep(0)
        joiner = asyncio.ensure_future(service.sync(root, root, wait=False))
        await asyncio.sleep(0)
        leader.cancel()
        with pytest.raises(asyncio.CancelledError):
            await leader
    finally:
        project.lock.release()
    assert await asyncio.wait_for(joiner, BOUND) is project  # it ran the sync itself
    assert loads == [root]
