"""The agent's tools, run in the session's cwd (docs/architecture.md, "Tools"), with what governs
them: permission modes and grants, background jobs, web access."""

from __future__ import annotations

from host.engine.tools.base import Tool, ToolContext, ToolOutput
from host.engine.tools.bash import BashTool
from host.engine.tools.common import BaseTool, ToolError
from host.engine.tools.files import EditFileTool, ListDirTool, ReadFileTool, WriteFileTool
from host.engine.tools.image import ReadImageTool
from host.engine.tools.interact import AskUserTool, TodoWriteTool
from host.engine.tools.jobs import JobOutputTool, JobStopTool
from host.engine.tools.lsp import LspTool
from host.engine.tools.reach import Reach
from host.engine.tools.search import GlobTool, GrepTool
from host.engine.tools.task import TaskTool
from host.engine.tools.web import WebFetchTool, WebSearchTool

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
    ReadImageTool,
    WebFetchTool,
    WebSearchTool,
    LspTool,
)
"""Every built-in tool (the last four only where the engine gives them what they reach)."""


def build_tools(reach: Reach | None = None) -> dict[str, Tool]:
    """A fresh set of every tool, by name (the order is the order the model sees them in).
    `reach` gives the web, image and language-server tools what they use; without it they are
    left out (docs/architecture.md, "Tools")."""
    r = reach or Reach()
    made: list[BaseTool] = [
        BashTool(),
        ReadFileTool(r.images),
        WriteFileTool(r.code),
        EditFileTool(r.code),
        ListDirTool(),
        GlobTool(),
        GrepTool(),
    ]
    if r.images is not None:
        made.append(ReadImageTool(r.images))
    if r.web is not None:
        made += [WebFetchTool(r.web), WebSearchTool(r.web)]
    if r.code is not None:
        made.append(LspTool(r.code))
    made += [JobOutputTool(), JobStopTool(), TodoWriteTool(), AskUserTool(), TaskTool()]
    tools: dict[str, Tool] = {}
    for tool in made:
        tools[tool.name] = tool  # type: ignore[assignment]  # class-level name/description satisfy Tool
    return tools


__all__ = ["BaseTool", "Reach", "Tool", "ToolContext", "ToolError", "ToolOutput", "build_tools"]
