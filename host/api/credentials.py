"""`credentials.*`: secrets by reference. A value goes in through `set`, never out."""

from __future__ import annotations

from contract import credentials as cr
from host.api.registry import implements
from host.engine.engine import Engine


@implements("credentials.describe")
async def describe(engine: Engine, p: cr.CredentialsDescribeRequest) -> cr.CredentialsDescribeValue:
    return cr.CredentialsDescribeValue(
        credentials=engine.config.credentials(p.refs), file=engine.config.config_file("credentials.json")
    )


@implements("credentials.set")
async def set_credential(engine: Engine, p: cr.SetRequest) -> cr.Done:
    await engine.config.set_credential(p.ref, p.value)
    return cr.Done()


@implements("credentials.move")
async def move_credential(engine: Engine, p: cr.MoveRequest) -> cr.Done:
    await engine.config.move_credential(p.ref, p.to)
    return cr.Done()


@implements("credentials.unset")
async def unset_credential(engine: Engine, p: cr.UnsetRequest) -> cr.Done:
    await engine.config.unset_credential(p.ref)
    return cr.Done()
