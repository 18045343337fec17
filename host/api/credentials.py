"""`credentials.*`: secrets by reference. A value goes in through `set`, never out."""

from __future__ import annotations

from contract import credentials as cr
from contract.methods import CREDENTIALS_DESCRIBE, CREDENTIALS_MOVE, CREDENTIALS_SET, CREDENTIALS_UNSET
from host.api.registry import implements
from host.engine.engine import Engine


@implements(CREDENTIALS_DESCRIBE)
async def describe(engine: Engine, p: cr.CredentialsDescribeRequest) -> cr.CredentialsDescribeValue:
    return cr.CredentialsDescribeValue(
        credentials=engine.config.credentials(p.refs), file=engine.config.config_file("credentials.json")
    )


@implements(CREDENTIALS_SET)
async def set_credential(engine: Engine, p: cr.SetRequest) -> cr.Done:
    await engine.config.set_credential(p.ref, p.value)
    return cr.Done()


@implements(CREDENTIALS_MOVE)
async def move_credential(engine: Engine, p: cr.MoveRequest) -> cr.Done:
    await engine.config.move_credential(p.ref, p.to)
    return cr.Done()


@implements(CREDENTIALS_UNSET)
async def unset_credential(engine: Engine, p: cr.UnsetRequest) -> cr.Done:
    await engine.config.unset_credential(p.ref)
    return cr.Done()
