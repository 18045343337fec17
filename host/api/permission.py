"""`permission.*`: a session's "Allow always" rules can be revoked (they are listed in the
session projection `permissions`); `permission.set` switches its mode or its network switch."""

from __future__ import annotations

from contract import permissions as pm
from contract.methods import PERMISSION_REVOKE, PERMISSION_SET
from host.api.registry import implements
from host.engine.engine import Engine


@implements(PERMISSION_REVOKE)
async def revoke(engine: Engine, p: pm.RevokeRequest) -> pm.RevokeValue:
    return pm.RevokeValue(revoked=await engine.config.revoke_permission(p.session_id, p.tool, p.scope))


@implements(PERMISSION_SET)
async def set(engine: Engine, p: pm.PermissionSetRequest) -> pm.PermissionSetValue:
    return pm.PermissionSetValue(
        permissions=await engine.config.set_permission(p.session_id, p.preset, p.network)
    )
