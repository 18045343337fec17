"""How a stdio MCP server is started: the one place its argv and environment are built
(docs/decisions.md, "MCP servers").

The environment is the SDK's minimal one (`HOME LOGNAME PATH SHELL TERM USER`) plus the entry's
own `env`: nothing else of the host's reaches the server, credentials included. The argv goes
through the sandbox (`host.engine.sandbox.wrap`): the project folder is the one writable place,
the data folder (and whatever else the host's `Confinement` names) is masked, and the network is
off unless the entry says `"network": true`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from host.engine.mcp.config import Expanded
from host.engine.sandbox import Confinement, SandboxUnavailable, support, wrap

log = logging.getLogger(__name__)


def sandboxed_argv(
    argv: list[str], *, workspace: Path, network: bool, confinement: Confinement
) -> tuple[list[str], bool]:
    """(argv to exec, whether it runs in the sandbox). Without a sandbox on this machine the
    server the person configured or approved runs as it is, and its status says so (the panel
    shows "not sandboxed"): never silently."""
    if not support().available:
        return argv, False
    policy = confinement.policy(workspace, write=True, network=network)
    try:
        return list(wrap(argv, policy)), True
    except SandboxUnavailable:
        return argv, False


def stdio_parameters(
    x: Expanded, cwd: Path, *, workspace: Path, network: bool, confinement: Confinement
) -> tuple[Any, bool]:
    from mcp import StdioServerParameters

    argv, sandboxed = sandboxed_argv(
        [x.command, *x.args], workspace=workspace, network=network, confinement=confinement
    )
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(x.env), cwd=str(cwd))
    return params, sandboxed
