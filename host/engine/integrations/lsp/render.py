"""A language server's answers as text the model reads: errors after a write, locations,
hover, symbols (paths relative to the session's folder)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

MAX_ERRORS = 20
MAX_ITEMS = 100
ERROR = 1
SYMBOL_KINDS = {
    1: "file",
    2: "module",
    3: "namespace",
    4: "package",
    5: "class",
    6: "method",
    7: "property",
    8: "field",
    9: "constructor",
    10: "enum",
    11: "interface",
    12: "function",
    13: "variable",
    14: "constant",
    22: "enum member",
    23: "struct",
    26: "type parameter",
}


def _key(d: dict[str, Any]) -> tuple[str, str]:
    return (str(d.get("message", "")), str(d.get("code", "")))


def new_errors(
    before: list[dict[str, Any]], after: list[dict[str, Any]], *, shown: str, server: str
) -> str | None:
    """The errors (never warnings) in `after` that `before` did not have, at most 20 lines."""
    had = Counter(_key(d) for d in before if d.get("severity", ERROR) == ERROR)
    fresh = []
    for d in after:
        if d.get("severity", ERROR) != ERROR:
            continue
        key = _key(d)
        if had[key] > 0:
            had[key] -= 1
            continue
        fresh.append(d)
    if not fresh:
        return None
    lines = []
    for d in fresh[:MAX_ERRORS]:
        start = (d.get("range") or {}).get("start") or {}
        where = f"{shown}:{int(start.get('line', 0)) + 1}:{int(start.get('character', 0)) + 1}"
        source = d.get("source") or server
        lines.append(f"  {where}: {d.get('message', '').strip()} [{source}]")
    more = f"\n  … {len(fresh) - MAX_ERRORS} more" if len(fresh) > MAX_ERRORS else ""
    return f"The language server ({server}) reports new errors in {shown}:\n" + "\n".join(lines) + more


def _path(uri: str, cwd: Path) -> str:
    parts = urlsplit(uri)
    path = unquote(parts.path) if parts.scheme == "file" else uri
    try:
        return os.path.relpath(path, cwd) if parts.scheme == "file" else path
    except ValueError:
        return path


def locations(result: Any, cwd: Path, what: str) -> str:
    items = result if isinstance(result, list) else [result] if result else []
    out = []
    for item in items[:MAX_ITEMS]:
        uri = item.get("uri") or item.get("targetUri")
        rng = item.get("range") or item.get("targetSelectionRange") or {}
        start = rng.get("start") or {}
        if isinstance(uri, str):
            out.append(
                f"{_path(uri, cwd)}:{int(start.get('line', 0)) + 1}:{int(start.get('character', 0)) + 1}"
            )
    if not out:
        return f"No {what} found."
    more = f"\n… {len(items) - MAX_ITEMS} more" if len(items) > MAX_ITEMS else ""
    return "\n".join(out) + more


def hover_text(result: Any) -> str:
    if not result:
        return "Nothing to show here."
    contents = result.get("contents")
    parts = contents if isinstance(contents, list) else [contents]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            texts.append(str(part.get("value", "")))
    text = "\n\n".join(t for t in texts if t.strip())
    return text[:20_000] or "Nothing to show here."


def symbols(result: Any, cwd: Path, depth: int = 0) -> str:
    lines: list[str] = []

    def walk(items: list[Any], level: int) -> None:
        for item in items:
            if len(lines) >= MAX_ITEMS * 2 or not isinstance(item, dict):
                return
            kind = SYMBOL_KINDS.get(int(item.get("kind", 0)), "symbol")
            location = item.get("location") or {}
            rng = item.get("selectionRange") or item.get("range") or location.get("range") or {}
            line = int((rng.get("start") or {}).get("line", 0)) + 1
            where = f"{_path(location['uri'], cwd)}:{line}" if "uri" in location else f"line {line}"
            lines.append(f"{'  ' * level}{item.get('name')} ({kind}) {where}")
            walk(item.get("children") or [], level + 1)

    walk(result if isinstance(result, list) else [], depth)
    return "\n".join(lines) or "No symbols found."
