"""`hooks.approve`: approving a trusted project's hook file as the person saw it (docs/decisions.md,
"Hook approval"); the file and its commands are listed by `mcp.list` (`hookFiles`)."""

from __future__ import annotations

from contract import hooks as k
from contract.methods import HOOKS_APPROVE
from host.api.registry import implements
from host.engine.engine import Engine


@implements(HOOKS_APPROVE)
async def approve(engine: Engine, p: k.HooksApproveRequest) -> k.HooksApproved:
    path, digest = await engine.mcp.hooks_approve(p.workspace_id, p.digest)
    return k.HooksApproved(path=path, digest=digest)
