"""Running one command line in a session: admission, then `command/run`, the handler,
`command/done` (docs/architecture.md, "Commands").

Nothing is logged for a line that is not a known command. A handler's `error` result is still a
match; a handler that raises is logged as an error `command/done` and then propagates (a host
bug: the carrier answers 500); a cancelled call is logged the same way and stays cancelled.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from host.engine.agent.commands.registry import CommandContext, CommandRegistry, parse_line
from host.engine.errors import PrivilegeRequired
from host.engine.sessions import events

if TYPE_CHECKING:
    from host.engine.agent.agent import Agent

log = logging.getLogger(__name__)


async def execute(registry: CommandRegistry, agent: Agent, line: str, privileged: bool = True) -> str | None:
    """The command id when `line` names a command of this session, else None (nothing logged).
    A run that would loosen the session's permissions raises PrivilegeRequired unless the caller
    is `privileged` (nothing logged either)."""
    parsed = parse_line(line)
    if parsed is None:
        return None
    name, raw = parsed
    command = registry.find(agent, name)
    if command is None:
        return None
    if not privileged:
        change = command.loosens(CommandContext(agent=agent, input=raw))
        if change is not None:
            raise PrivilegeRequired("command.execute", change)
    command_id = registry.mint_id()
    journal = agent.journal
    journal.append(events.command_run(command_id, name, raw if command.record_input else None))
    try:
        result = await command.run(CommandContext(agent=agent, input=raw, command_id=command_id))
    except asyncio.CancelledError:
        journal.append(events.command_done(command_id, "error", "The command was cancelled."))
        raise
    except Exception as exc:
        log.exception("command /%s failed", name)
        journal.append(events.command_done(command_id, "error", f"The command failed: {exc}"))
        raise
    seq = result.source_event_seq if result.kind == "success" else None
    journal.append(events.command_done(command_id, result.kind, result.text, seq))
    return command_id
