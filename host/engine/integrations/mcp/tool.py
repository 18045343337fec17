"""An MCP server's tool as one of the agent's tools (docs/decisions.md, "MCP servers").

Every MCP tool is a writing tool for the permission policy: every call is approved like `bash`
(a `readOnlyHint` only changes the wording: it comes from the server, which may lie). Results
are mapped to text, with images and audio as placeholders, structured content as compact JSON,
and capped like `bash` output.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from host.engine.integrations.mcp.connection import McpConnection, ToolInfo
from host.engine.integrations.mcp.failures import describe
from host.engine.integrations.mcp.names import public_name
from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.bash import MAX_OUTPUT_CHARS
from host.engine.tools.common import safe_output


def cap(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Head and tail of a long result, like `bash` output."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters not shown …]\n{text[-half:]}"


def result_text(raw_name: str, result: Any) -> str:
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            size = len(getattr(block, "data", "") or "") * 3 // 4
            parts.append(f"[{kind}: {block.mime_type}, {size} bytes, content discarded]")
        elif kind == "resource_link":
            parts.append(f'[resource_link name="{block.name}" uri="{block.uri}"]')
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            parts.append(
                f"[resource {resource.uri}]\n{text}" if text is not None else f"[resource {resource.uri}]"
            )
        else:
            parts.append(f"[{kind or 'unknown'} content discarded]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, separators=(",", ":"), ensure_ascii=False))
    if not parts:
        return f"({raw_name} returned no text content)"
    return "\n".join(parts)


class McpTool:
    """One tool of one connection; looks the connection up at call time (it may restart)."""

    needs_approval = True

    def __init__(self, server: str, info: ToolInfo, connection: McpConnection) -> None:
        self.server = server
        self.raw_name = info.raw_name
        self.name = public_name(server, info.raw_name)
        self.read_only = info.read_only
        self.task_required = info.task_required
        shown = info.description.strip() or info.title or info.raw_name
        self.description = f"[MCP server {server}] {shown}"
        schema = info.input_schema if info.input_schema.get("type") == "object" else {"type": "object"}
        self.parameters: dict[str, Any] = schema
        self._connection = connection

    @property
    def approval_note(self) -> str:
        """What the approval card says about this tool (the hint is the server's claim)."""
        if self.read_only:
            return f"MCP tool {self.raw_name} of server {self.server} (the server says it is read-only)."
        return f"MCP tool {self.raw_name} of server {self.server} (it may change things)."

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        if self.task_required:
            return ToolOutput(
                f"{self.name} needs task-augmented calls, which HarnessDesk does not make.",
                True,
                "UNSUPPORTED",
            )
        args = arguments if isinstance(arguments, dict) else {}
        try:
            result = await self._connection.call(self.raw_name, args)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            timeout = self._connection.entry.call_timeout
            return ToolOutput(f"{self.name} did not answer within {timeout:g} s.", True, "TIMEOUT")
        except Exception as exc:
            return ToolOutput(f"{self.name} failed: {describe(exc)}", True, "MCP_ERROR")
        text = cap(result_text(self.raw_name, result))
        if getattr(result, "is_error", False):
            return safe_output(ToolOutput(text, True, "MCP_TOOL_ERROR"))
        return safe_output(ToolOutput(text))
