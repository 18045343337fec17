"""PreToolUse and PostToolUse around one tool call (docs/decisions.md, "Hooks"): what the turn
asks before the permission policy and after the tool ran."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from contract.content import Message, MessageSource, TextBlock
from host.engine.integrations.hooks.config import ALIASES
from host.engine.integrations.hooks.decode import Merged
from host.engine.integrations.hooks.service import Firing, HookService, Record, tool_fields
from host.engine.sessions import events
from host.engine.tools.base import Tool, ToolOutput
from host.engine.tools.permissions.policy import Decision, takes_path
from host.engine.tools.permissions.scope import scope_for

NOT_RUN = frozenset({"UNKNOWN_TOOL", "BAD_ARGUMENTS", "PERMISSION_DENIED", "REJECTED", "HOOK_DENIED"})


def parsed(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


async def before(
    hooks: HookService | None,
    session_id: str,
    cwd: Path,
    turn: int,
    record: Record,
    call_id: str,
    name: str,
    args: dict[str, Any],
) -> Merged:
    if hooks is None:
        return Merged()
    fields = tool_fields(name, call_id, args)
    firing = Firing("PreToolUse", session_id, cwd, turn, record, ALIASES.get(name, name), name, fields)
    return await hooks.fire(firing)


def denied(merged: Merged) -> ToolOutput:
    return ToolOutput(merged.reason or "Error: blocked by PreToolUse hook", True, "HOOK_DENIED")


def forced(
    merged: Merged, decision: Decision, tool: Tool, name: str, args: dict[str, Any], cwd: Path
) -> Decision:
    """A hook's `ask` asks even where the policy would allow (an "Allow always" rule, a tool that
    never asks); it never turns a refusal into an ask."""
    if merged.verdict != "ask" or decision.verdict != "allow":
        return decision
    return Decision("ask", scope=scope_for(name, args, cwd, takes_path(tool)))


async def after(
    hooks: HookService | None,
    session_id: str,
    cwd: Path,
    turn: int,
    record: Record,
    call_id: str,
    name: str,
    args: dict[str, Any],
    output: ToolOutput,
) -> ToolOutput:
    if hooks is None or output.error_code in NOT_RUN:
        return output
    fields = {**tool_fields(name, call_id, args), "tool_response": output.content}
    firing = Firing("PostToolUse", session_id, cwd, turn, record, ALIASES.get(name, name), name, fields)
    merged = await hooks.fire(firing)
    if merged.verdict == "deny":
        text = (
            f"blocked by PostToolUse hook: {merged.reason}"
            if merged.reason
            else "blocked by PostToolUse hook"
        )
        # what the step changed stays recorded (and revertable): only the model's view is blocked
        return dataclasses.replace(output, content=text, is_error=True, error_code="HOOK_BLOCKED")
    if merged.contexts:
        return dataclasses.replace(output, content="\n\n".join([output.content, *merged.contexts]))
    return output


STOP_CAP = 3
"""Forced continuations from Stop hooks per turn (then the turn ends normally)."""
HOOK_SOURCE = {"kind": "plugin", "plugin": "hooks"}


async def stop(
    hooks: HookService | None, session_id: str, cwd: Path, turn: int, record: Record, forced: int
) -> str | None:
    """The reason a Stop hook gives to go on (None: let the turn end)."""
    if hooks is None:
        return None
    firing = Firing("Stop", session_id, cwd, turn, record, fields={"stop_hook_active": forced > 0})
    merged = await hooks.fire(firing)
    if merged.verdict != "deny":
        return None
    return merged.reason or "blocked by Stop hook"


def continuation(reason: str) -> Message:
    text = f"A Stop hook asks you to continue: {reason}"
    return events.new_message("user", [TextBlock(text=text)], MessageSource.model_validate(HOOK_SOURCE))


async def opening_context(
    hooks: HookService | None, session_id: str, cwd: Path, turn: int, record: Record
) -> list[Message]:
    """Before a turn's first request: SessionStart's context (turn 0, source `startup`) and what
    the turn's UserPromptSubmit hooks added, as separate messages (source plugin `hooks`)."""
    if hooks is None:
        return []
    texts: list[str] = []
    if turn == 0:
        firing = Firing("SessionStart", session_id, cwd, turn, record, "startup", None, {"source": "startup"})
        texts += (await hooks.fire(firing)).contexts
    texts += hooks.contexts.pop((session_id, turn), [])
    source = MessageSource.model_validate(HOOK_SOURCE)
    return [events.new_message("user", [TextBlock(text=t)], source) for t in texts]
