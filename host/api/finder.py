"""`finder.*`: `@` in the composer, a fuzzy finder over the session's folder
(docs/architecture.md, "The @ finder")."""

from __future__ import annotations

from contract import finder as f
from contract.methods import FINDER_FIND
from host.api.registry import implements
from host.engine.engine import Engine


@implements(FINDER_FIND)
async def find(engine: Engine, p: f.FindRequest) -> f.FindValue:
    return await engine.finder.find(p.session_id, p.query, p.limit)
