"""Running one step's tool calls: in order, except that consecutive calls of a `parallel` tool
(`task`) run at the same time (docs/architecture.md, "Subagents"). Such tools bound their own
concurrency; each call still logs its own `tool/call` and `tool/result`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from contract.content import ToolCallBlock
from host.engine.tools.base import Tool


def batches(calls: list[ToolCallBlock], tools: Mapping[str, Tool]) -> list[list[ToolCallBlock]]:
    """The calls in order, consecutive calls of a parallel tool grouped together."""
    out: list[list[ToolCallBlock]] = []
    previous = False
    for call in calls:
        parallel = bool(getattr(tools.get(call.name), "parallel", False))
        if parallel and previous:
            out[-1].append(call)
        else:
            out.append([call])
        previous = parallel
    return out


async def run_calls(
    calls: list[ToolCallBlock],
    tools: Mapping[str, Tool],
    run: Callable[[ToolCallBlock], Coroutine[Any, Any, None]],
) -> None:
    """`run` every call; a group runs at once, and cancelling the caller cancels (and waits for)
    every call of the group."""
    for group in batches(calls, tools):
        if len(group) == 1:
            await run(group[0])
            continue
        async with asyncio.TaskGroup() as running:
            for call in group:
                running.create_task(run(call))
