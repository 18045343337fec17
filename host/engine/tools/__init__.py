"""The agent's tools, run in the session's cwd (docs/architecture.md, "Tools")."""

from __future__ import annotations

from host.engine.tools.base import Tool, ToolContext, ToolOutput
from host.engine.tools.bash import BashTool
from host.engine.tools.common import BaseTool, ToolError
from host.engine.tools.files import EditFileTool, ListDirTool, ReadFileTool, WriteFileTool
from host.engine.tools.interact import AskUserTool, TodoWriteTool
from host.engine.tools.jobs import JobOutputTool, JobStopTool
from host.engine.tools.search import GlobTool, GrepTool
from host.engine.tools.task import TaskTool

TOOL_CLASSES: tuple[type[BaseTool], ...] = (
    BashTool,
    ReadFileTool,
    WriteFileTool,
    EditFileTool,
    ListDirTool,
    GlobTool,
    GrepTool,
    JobOutputTool,
    JobStopTool,
    TodoWriteTool,
    AskUserTool,
    TaskTool,
)


def build_tools() -> dict[str, Tool]:
    """A fresh set of every tool, by name (the order is the order the model sees them in)."""
    tools: dict[str, Tool] = {}
    for cls in TOOL_CLASSES:
        tool: Tool = cls()  # type: ignore[assignment]  # class-level name/description satisfy Tool
        tools[tool.name] = tool
    return tools


__all__ = ["BaseTool", "Tool", "ToolContext", "ToolError", "ToolOutput", "build_tools"]
