"""Session events as ACP `session/update`s (docs/decisions.md, "ACP bridge").

One `UpdateMapper` per session turns each stored event (live from `events.mux`, or replayed from
`session.history` on `session/load`) into zero or more ACP updates. It keeps only what a later
event needs: the tool calls still open, so a result can name its call's kind and diff.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import SessionInfoUpdate, ToolCallLocation

TOOL_KINDS = {
    "read_file": "read",
    "write_file": "edit",
    "edit_file": "edit",
    "bash": "execute",
    "grep": "search",
    "glob": "search",
    "list_dir": "search",
    "job_output": "read",
    "job_stop": "execute",
    "todo_write": "think",
}
"""The ACP tool kind of each built-in tool; every other tool (MCP, `task`, …) is `other`."""


def tool_kind(name: str) -> str:
    return TOOL_KINDS.get(name, "other")


def parse_arguments(raw: str) -> Any:
    """A tool call's arguments as JSON when they parse (they are a string on the wire)."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def tool_title(name: str, args: Any) -> str:
    """A short line an editor shows for the call: `bash: npm test`, `edit_file: src/a.py`."""
    if isinstance(args, dict):
        for key in ("command", "path", "pattern", "description"):
            value = args.get(key)
            if isinstance(value, str) and value:
                first = value.splitlines()[0] if value.strip() else value
                return f"{name}: {first[:120]}"
    return name


def locations(cwd: str, args: Any) -> list[ToolCallLocation] | None:
    if isinstance(args, dict) and isinstance(args.get("path"), str) and args["path"]:
        path = Path(args["path"])
        return [ToolCallLocation(path=str(path if path.is_absolute() else Path(cwd) / path))]
    return None


@dataclass
class OpenCall:
    name: str
    args: Any
    path: str | None


@dataclass
class UpdateMapper:
    """Stateful translation of one session's events; `cwd` makes locations absolute."""

    cwd: str
    calls: dict[str, OpenCall] = field(default_factory=dict)

    def live(self, event: Any) -> list[Any]:
        """Updates for an event as it streams: deltas become chunks, committed messages none."""
        data = event.data
        kind = event.type
        if kind == "assistant/chunk":
            chunk = data.get("chunk", {})
            if chunk.get("type") == "text-delta" and chunk.get("text"):
                return [acp.update_agent_message_text(chunk["text"])]
            if chunk.get("type") == "reasoning-delta" and chunk.get("text"):
                return [acp.update_agent_thought_text(chunk["text"])]
            return []
        return self._common(kind, data)

    def replay(self, event: Any) -> list[Any]:
        """Updates for a stored event on `session/load`: whole messages instead of deltas."""
        data = event.data
        kind = event.type
        if kind in ("user/message", "steering/message"):
            return [acp.update_user_message_text(t) for t in _texts(data, "text")]  # data is the message
        if kind == "assistant/message":
            message = data.get("message")
            thoughts = [acp.update_agent_thought_text(t) for t in _texts(message, "reasoning")]
            return thoughts + [acp.update_agent_message_text(t) for t in _texts(message, "text")]
        if kind == "assistant/chunk":
            return []
        return self._common(kind, data)

    def _common(self, kind: str, data: dict[str, Any]) -> list[Any]:
        if kind == "tool/call":
            return [self._call(data)]
        if kind == "tool/result":
            return self._result(data)
        if kind == "todo/write":
            entries = [
                acp.plan_entry(t["content"], status=t["status"], priority="medium")
                for t in data.get("todos", [])
            ]
            return [acp.update_plan(entries)]
        if kind == "session/title" and data.get("title"):
            return [SessionInfoUpdate(session_update="session_info_update", title=data["title"])]
        return []

    def _call(self, data: dict[str, Any]) -> Any:
        name = str(data.get("name", "tool"))
        args = parse_arguments(str(data.get("arguments", "")))
        call_id = str(data.get("callId", ""))
        where = locations(self.cwd, args)
        self.calls[call_id] = OpenCall(name, args, where[0].path if where else None)
        return acp.start_tool_call(
            call_id,
            tool_title(name, args),
            kind=tool_kind(name),  # type: ignore[arg-type]  # a ToolKind literal by construction
            status="pending",
            raw_input=args,
            locations=where,
        )

    def started(self, call_id: str) -> Any:
        """The call was approved (or needs no approval) and runs now."""
        return acp.update_tool_call(call_id, status="in_progress")

    def _result(self, data: dict[str, Any]) -> list[Any]:
        message = data.get("message") or {}
        out: list[Any] = []
        for block in message.get("content", []):
            if block.get("type") != "tool-result":
                continue
            call_id = str(block.get("toolCallId", ""))
            call = self.calls.pop(call_id, None)
            failed = bool(block.get("isError")) or data.get("error") is not None
            content: list[Any] = []
            diff = _diff_content(call)
            if diff is not None and not failed:
                content.append(diff)
            text = str(block.get("content", ""))
            if text:
                content.append(acp.tool_content(acp.text_block(text)))
            out.append(
                acp.update_tool_call(
                    call_id,
                    status="failed" if failed else "completed",
                    content=content or None,
                    raw_output=text or None,
                )
            )
        return out


def _diff_content(call: OpenCall | None) -> Any:
    """What an edit tool changed, as ACP's `{type: diff, path, oldText, newText}`."""
    if call is None or call.path is None or not isinstance(call.args, dict):
        return None
    if call.name == "write_file" and isinstance(call.args.get("content"), str):
        return acp.tool_diff_content(call.path, call.args["content"], None)
    old, new = call.args.get("old_string"), call.args.get("new_string")
    if call.name == "edit_file" and isinstance(old, str) and isinstance(new, str):
        return acp.tool_diff_content(call.path, new, old)
    return None


def _texts(message: Any, block_type: str) -> Iterable[str]:
    if not isinstance(message, dict):
        return []
    return [b["text"] for b in message.get("content", []) if b.get("type") == block_type and b.get("text")]
