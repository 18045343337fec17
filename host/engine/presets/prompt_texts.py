"""Prompt texts (the default system prompt, approval notices), first user words, tool-argument checks."""

from __future__ import annotations

import json
import re
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


NO_TOOLS_SOURCE = {"kind": "plugin", "plugin": "no-tools"}
NO_TOOLS_NOTICE = (
    "<system-reminder>\nThe user is asking you to do something on their computer. You cannot: in"
    " this conversation you have no tools, so you have not read, created, changed, deleted or run"
    " anything, and you must never say that you did. Say plainly that you cannot do it here, then"
    " help with words only (explain, or write what they could do themselves).\n</system-reminder>"
)
"""Told to a model that has no tools when the person asks for an action (the built-in model
claimed it had created a file it could not create: docs/decisions.md, "Offline agent")."""

_ACTION = re.compile(
    r"\b(creat|make|made|writ|wrote|edit|chang|modif|delet|remov|renam|mov|run|ran|execut|install|fix|"
    r"build|test|commit|refactor|add|sav|open|read|list|search|download|deploy)\w*\b"
    r"|创建|新建|写入|写|修改|编辑|删除|移除|重命名|运行|执行|安装|修复|构建|测试|提交|保存|打开|读取|下载",
    re.IGNORECASE,
)
_OBJECT = re.compile(
    r"\b(file|files|folder|folders|director(?:y|ies)|code|script|command|repo|repository|project|"
    r"test|tests|package|module|function|class|branch|commit)\b|\b[\w-]+\.[a-z0-9]{1,6}\b"
    r"|文件|目录|文件夹|代码|脚本|命令|项目|仓库|函数|分支",
    re.IGNORECASE,
)


def asks_for_action(text: str) -> bool:
    """Whether a person's words ask for something only tools could do (an action verb and a
    thing on the computer: "create todo.md", "did you run the tests?", "删除这个文件")."""
    return bool(_ACTION.search(text) and _OBJECT.search(text))


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
