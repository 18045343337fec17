"""`command.*`: a session's slash commands, run by the host outside the model."""

from __future__ import annotations

from contract import commands as c
from contract.methods import COMMAND_EXECUTE, COMMAND_LIST
from host.api.registry import implements
from host.engine.engine import Engine
from host.fetch.caller import caller_privileged


@implements(COMMAND_LIST)
async def list_commands(engine: Engine, p: c.CommandListRequest) -> c.CommandListValue:
    return c.CommandListValue(commands=await engine.presets.list_commands(p.session_id))


@implements(COMMAND_EXECUTE)
async def execute(engine: Engine, p: c.CommandExecuteRequest) -> c.CommandExecuteValue:
    command_id = await engine.presets.execute_command(p.session_id, p.line, privileged=caller_privileged())
    return c.CommandExecuteValue(matched=command_id is not None, command_id=command_id)
