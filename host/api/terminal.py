"""`terminal.*`: the person's shells beside a session (docs/decisions.md, "Terminal and files");
every method is privileged (the loopback fence refuses them to a `--trusted-host` browser)."""

from __future__ import annotations

from contract import terminals as t
from contract.methods import (
    TERMINAL_ACK,
    TERMINAL_ATTACH,
    TERMINAL_CLOSE,
    TERMINAL_INPUT,
    TERMINAL_LIST,
    TERMINAL_OPEN,
    TERMINAL_RESIZE,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(TERMINAL_OPEN)
async def open(engine: Engine, p: t.TerminalOpenRequest) -> t.TerminalOpenValue:
    return t.TerminalOpenValue(terminal_id=await engine.terminals.open(p.session_id, p.cols, p.rows))


@implements(TERMINAL_INPUT)
async def input(engine: Engine, p: t.TerminalInputRequest) -> t.TerminalDone:
    engine.terminals.input(p.terminal_id, p.data)
    return t.TerminalDone()


@implements(TERMINAL_RESIZE)
async def resize(engine: Engine, p: t.TerminalResizeRequest) -> t.TerminalDone:
    engine.terminals.resize(p.terminal_id, p.cols, p.rows)
    return t.TerminalDone()


@implements(TERMINAL_CLOSE)
async def close(engine: Engine, p: t.TerminalRef) -> t.TerminalDone:
    await engine.terminals.close(p.terminal_id)
    return t.TerminalDone()


@implements(TERMINAL_LIST)
async def list(engine: Engine, p: t.TerminalListRequest) -> t.TerminalListValue:
    return t.TerminalListValue(items=await engine.terminals.list(p.session_id))


@implements(TERMINAL_ATTACH)
async def attach(engine: Engine, p: t.TerminalAttachRequest) -> t.TerminalAttachValue:
    return engine.terminals.attach(p.terminal_id, p.viewer)


@implements(TERMINAL_ACK)
async def ack(engine: Engine, p: t.TerminalAckRequest) -> t.TerminalDone:
    engine.terminals.ack(p.terminal_id, p.viewer, p.seq)
    return t.TerminalDone()
