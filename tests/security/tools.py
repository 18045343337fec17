"""Running the real tools directly, as the agent loop does (no model needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contract.questions import AnswerSet, Question
from host.engine.sessions.events import NewEvent
from host.engine.tools import ToolContext, ToolOutput, build_tools

TOOLS = build_tools()


async def _no_questions(questions: list[Question]) -> AnswerSet:
    raise AssertionError("no questions expected")


async def _no_events(new: NewEvent[Any]) -> None:
    raise AssertionError("no events expected")


def context(cwd: Path) -> ToolContext:
    return ToolContext(session_id="s-sec", cwd=cwd, ask_user=_no_questions, emit=_no_events)


async def run(name: str, cwd: Path, **arguments: Any) -> ToolOutput:
    return await TOOLS[name].run(arguments, context(cwd))
