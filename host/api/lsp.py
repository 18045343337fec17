"""`lsp.*`: the language servers Settings lists (docs/decisions.md, "Language servers")."""

from __future__ import annotations

from contract import lsp as ls
from contract.methods import LSP_STATUS
from host.api.registry import implements
from host.engine.engine import Engine


@implements(LSP_STATUS)
async def status(engine: Engine, p: ls.LspStatusRequest) -> ls.LspStatusValue:
    return await engine.reach.lsp_status()
