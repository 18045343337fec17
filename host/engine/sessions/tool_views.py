"""Tool render intents: the card a client draws for a `tool/call` or `tool/result`
(docs/architecture.md, "Tool views"; the shapes are contract/views.py).

Computed when an event is delivered, from the tools' presenters as they are now; never stored.
A result's view needs its call (name and arguments), found by `callId`: within the same history
page only, or for live frames in a per-session table of open calls cleared at `turn/end`. No
presenter, a presenter that returns nothing or raises, arguments that are not JSON, or a call
that cannot be found: the event ships without a view.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

from contract.events import SessionEvent
from contract.views import ToolEventView, ToolView

log = logging.getLogger(__name__)

View = dict[str, Any]
MARKER = re.compile(r"\n?\[(exit code: (-?\d+)|killed by signal: ([A-Z0-9]+))\]\s*$")


def _fenced(text: str) -> str:
    return f"```console\n{text}\n```"


def _text(data: dict[str, Any]) -> tuple[str, bool]:
    """A result's text and whether it is an error."""
    blocks = (data.get("message") or {}).get("content") or []
    parts, error = [], bool(data.get("error"))
    for block in blocks:
        if block.get("type") == "tool-result":
            parts.append(str(block.get("content", "")))
            error = error or bool(block.get("isError"))
        elif block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "\n".join(parts), error


# ---- presenters: (arguments) → call view; (arguments, result data) → result view ---------------


def _bash_call(args: dict[str, Any]) -> View | None:
    command = args.get("command")
    if not isinstance(command, str):
        return None
    if args.get("run_in_background"):
        return {"card": "generic", "title": command, "kind": "execute", "rawInput": command}
    return {"card": "terminal", "title": command}


def _bash_result(args: dict[str, Any], data: dict[str, Any]) -> View | None:
    text, error = _text(data)
    if args.get("run_in_background") or error:
        return {"card": "generic", "content": [{"type": "text", "text": _fenced(text)}]}
    found = MARKER.search(text)
    if found is None:
        return {"card": "terminal", "output": text, "exitCode": 0}
    output = text[: found.start()]
    if found.group(2) is not None:
        return {"card": "terminal", "output": output, "exitCode": int(found.group(2))}
    return {"card": "terminal", "output": output, "signal": found.group(3)}


def _read_call(args: dict[str, Any]) -> View | None:
    path = args.get("path")
    if not isinstance(path, str):
        return None
    offset, limit = args.get("offset"), args.get("limit")
    span = f" ({offset or 1} - {(offset or 1) + limit - 1})" if isinstance(limit, int) and limit > 0 else ""
    line = offset if isinstance(offset, int) and offset >= 1 else 1
    return {
        "card": "generic",
        "title": f"Read {path}{span}",
        "kind": "read",
        "locations": [{"path": path, "line": line}],
    }


def _write_call(args: dict[str, Any]) -> View | None:
    path, content = args.get("path"), args.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return None
    diff = {"path": path, "oldText": None, "newText": content}
    return {"card": "diff", "title": f"Write {path}", "diffs": [diff], "locations": [{"path": path}]}


def _edit_call(args: dict[str, Any]) -> View | None:
    path, old, new = args.get("path"), args.get("old_string"), args.get("new_string")
    if not isinstance(path, str) or not isinstance(new, str):
        return None
    diff = {"path": path, "oldText": old if isinstance(old, str) else None, "newText": new}
    return {"card": "diff", "title": f"Edit {path}", "diffs": [diff], "locations": [{"path": path}]}


def _search_call(verb: str) -> Callable[[dict[str, Any]], View | None]:
    def present(args: dict[str, Any]) -> View | None:
        pattern = args.get("pattern")
        if not isinstance(pattern, str):
            return None
        return {"card": "generic", "kind": "search", "title": f"{verb} {pattern}", "rawInput": pattern}

    return present


CallPresenter = Callable[[dict[str, Any]], View | None]
ResultPresenter = Callable[[dict[str, Any], dict[str, Any]], View | None]

CALLS: dict[str, CallPresenter] = {
    "bash": _bash_call,
    "read_file": _read_call,
    "write_file": _write_call,
    "edit_file": _edit_call,
    "grep": _search_call("Grep"),
    "glob": _search_call("Glob"),
}
RESULTS: dict[str, ResultPresenter] = {"bash": _bash_result}


def _arguments(raw: str) -> dict[str, Any] | None:
    try:
        parsed = json.loads(raw)
    except (TypeError, ValueError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _wrap(kind: str, view: View | None) -> ToolEventView | None:
    if view is None:
        return None
    return ToolEventView.model_validate({"for": kind, "view": ToolView.model_validate(view)})


def call_view(name: str, arguments: str) -> ToolEventView | None:
    present = CALLS.get(name)
    args = _arguments(arguments) if present is not None else None
    if present is None or args is None:
        return None
    try:
        return _wrap("call", present(args))
    except Exception:
        log.exception("the %s call presenter failed", name)
        return None


def result_view(name: str, arguments: str, data: dict[str, Any]) -> ToolEventView | None:
    present = RESULTS.get(name)
    args = _arguments(arguments) if present is not None else None
    if present is None or args is None:
        return None
    try:
        return _wrap("result", present(args, data))
    except Exception:
        log.exception("the %s result presenter failed", name)
        return None


def _result_call_id(data: dict[str, Any]) -> str | None:
    message = data.get("message") or {}
    source = message.get("source") or {}
    if isinstance(source.get("callId"), str):
        return str(source["callId"])
    for block in message.get("content") or []:
        if block.get("type") == "tool-result" and isinstance(block.get("toolCallId"), str):
            return str(block["toolCallId"])
    return None


def page_views(events: Sequence[SessionEvent]) -> list[ToolEventView | None]:
    """The views of one history page: a result finds its call on the same page only."""
    calls = ViewedCalls()
    return [calls.observe(event) for event in events]


class ViewedCalls:
    """The calls seen so far on one history page, for the views of the results after them."""

    def __init__(self) -> None:
        self._calls: dict[str, tuple[str, str]] = {}
        self._presented = False
        """A call whose tool presents its results is on the page."""

    def observe(self, event: SessionEvent) -> ToolEventView | None:
        return self.observe_data(event.type, event.data)

    def observe_data(self, etype: str, data: dict[str, Any]) -> ToolEventView | None:
        """`observe` for an event known only by its type and data (a stored row, parsed)."""
        if etype == "tool/call" and str(data.get("name", "")) in RESULTS:
            self._presented = True
        return _observe_data(self._calls, etype, data)

    def may_view(self, etype: str) -> bool:
        """Whether an event of this type can get a view here: a call always may; a result only
        once a call whose tool presents results is on the page (so most results need no parse)."""
        return etype == "tool/call" or (etype == "tool/result" and self._presented)


def _observe(calls: dict[str, tuple[str, str]], event: SessionEvent) -> ToolEventView | None:
    return _observe_data(calls, event.type, event.data)


def _observe_data(
    calls: dict[str, tuple[str, str]], etype: str, data: dict[str, Any]
) -> ToolEventView | None:
    if etype == "tool/call":
        name, arguments = str(data.get("name", "")), str(data.get("arguments", ""))
        calls[str(data.get("callId", ""))] = (name, arguments)
        return call_view(name, arguments)
    if etype == "tool/result":
        call_id = _result_call_id(data)
        found = calls.get(call_id) if call_id is not None else None
        return result_view(found[0], found[1], data) if found is not None else None
    return None


class LiveViews:
    """A session's open calls for live frames (cleared at each `turn/end`)."""

    def __init__(self) -> None:
        self._calls: dict[str, tuple[str, str]] = {}

    def view(self, event: SessionEvent) -> ToolEventView | None:
        if event.type == "turn/end":
            self._calls.clear()
            return None
        if event.type not in ("tool/call", "tool/result"):
            return None
        return _observe(self._calls, event)
