"""The `lsp` tool: code navigation through the folder's language server (docs/decisions.md,
"Language servers"). Offered only where a server could run (installed, on, and a sandbox)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import Args, BaseTool, PathText, ToolError, resolve_inside
from host.engine.tools.reach import CodeIntel


class LspArgs(Args):
    operation: Literal["definition", "references", "hover", "document_symbols", "workspace_symbols"]
    path: PathText | None = Field(
        default=None, description="The file (every operation but workspace_symbols)."
    )
    line: int = Field(
        default=1, ge=1, description="1-based line of the symbol (definition, references, hover)."
    )
    column: int = Field(default=1, ge=1, description="1-based column of the symbol.")
    query: str = Field(default="", max_length=200, description="workspace_symbols: the name to look for.")

    @model_validator(mode="after")
    def _path_given(self) -> LspArgs:
        if self.operation != "workspace_symbols" and not self.path:
            raise ValueError(f"{self.operation} needs a path")
        return self


class LspTool(BaseTool):
    name = "lsp"
    description = (
        "Ask the project's language server: a symbol's definition, its references, hover (type and"
        " docs), a file's symbols, or symbols across the workspace by name. Lines and columns are 1-based."
    )
    Arguments = LspArgs

    def __init__(self, code: CodeIntel) -> None:
        super().__init__()
        self._code = code

    def offered(self) -> bool:
        return self._code.available(Path("."))

    async def execute(self, args: LspArgs, ctx: ToolContext) -> ToolOutput:
        path = resolve_inside(ctx.cwd, args.path) if args.path else None
        if path is not None and not path.is_file():
            raise ToolError(f"File not found: {args.path}", "NOT_FOUND")
        text = await self._code.query(
            ctx.cwd, args.operation, path, args.line, args.column, args.query, ctx.sandbox
        )
        return ToolOutput(text)
