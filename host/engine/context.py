"""Prompt texts (the default system prompt, approval notices), first user words, tool-argument checks."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from contract.content import Message, TextBlock

DEFAULT_SYSTEM = (
    "You are HarnessDesk, a careful coding agent working in the directory {cwd}. "
    "Use the tools to read, search and change files and to run commands there. "
    "Keep answers short and concrete."
)


def approval_notice(tool: str, call_id: str, outcome: str, allowed: str) -> str | None:
    """What the model is told, as context, about the user's answer to an approval (None: nothing
    beyond the tool result). `allowed` says what "Allow always" covers (e.g. `bash: npm test`)."""
    if outcome == "allowed-always":
        return f"The user allowed {allowed} for the rest of this session: such calls run without asking."
    if outcome == "rejected":
        return (
            f"The user rejected your {tool} call (id {call_id}). Do not repeat it unchanged;"
            " if you need it, explain why or ask the user."
        )
    return None


def first_user_text(messages: Iterable[Message]) -> str | None:
    for message in messages:
        if message.role == "user" and message.source.kind == "user":
            # a file attached with `@` is no part of what the person said (docs/architecture.md)
            said = [b.text for b in message.content if isinstance(b, TextBlock) and b.attached is None]
            text = " ".join(said)
            if text.strip():
                return text
    return None


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _type_ok(value: Any, expected: Any) -> bool:
    names = expected if isinstance(expected, list) else [expected]
    for name in names:
        kinds = _JSON_TYPES.get(str(name))
        if kinds is None:
            return True
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, kinds):
            return True
    return False


def parse_arguments(raw: str, schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """(arguments, None) or (None, why not): JSON object, required keys, top-level types."""
    try:
        value = json.loads(raw) if raw.strip() else {}
    except ValueError as exc:
        return None, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, "arguments must be a JSON object"
    missing = [k for k in schema.get("required", []) if k not in value]
    if missing:
        return None, f"missing required arguments: {', '.join(missing)}"
    props = schema.get("properties", {})
    for key, val in value.items():
        spec = props.get(key)
        if spec is None:
            if schema.get("additionalProperties") is False:
                return None, f"unknown argument {key!r}"
            continue
        if "type" in spec and not _type_ok(val, spec["type"]):
            return None, f"argument {key!r} must be {spec['type']}"
        if "enum" in spec and val not in spec["enum"]:
            return None, f"argument {key!r} must be one of {spec['enum']}"
    return value, None
