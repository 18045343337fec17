"""What a tool costs a model request, worked out once per tool schema instead of at every request
(docs/decisions/turn-start-work-once.md): its OpenAI wire form with every string cleaned
(host/textsafe.py), and its size in characters for the context estimates.

A tool's `parameters` is its JSON Schema, built when the tool is built (a built-in tool's from its
arguments model, an MCP tool's from its server's list) and never changed in place afterwards: a
changed tool is a new object with a new schema. So the memo is keyed on the schema object itself
(held, so its identity cannot be reused by another one) with the name and description beside it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from host.engine.llm.base import ToolSpec
from host.engine.llm.openai_format import to_openai_tool
from host.textsafe import clean_json

T = TypeVar("T")

SIZE = 512
"""Schemas remembered (the built-in tools, every MCP server's and a margin; the oldest go)."""


class _Memo:
    """Values built from (schema, name, description), kept while the same schema object is in
    use; thread-safe (a step's setup is built on a worker thread, requests on the loop)."""

    def __init__(self, size: int = SIZE) -> None:
        self._size = size
        self._entries: OrderedDict[int, tuple[dict[str, Any], str, str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.built = 0
        """Values built (not found): what a test counts."""

    def get(self, parameters: dict[str, Any], name: str, description: str, build: Callable[[], T]) -> T:
        key = id(parameters)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None and hit[0] is parameters and hit[1] == name and hit[2] == description:
                self._entries.move_to_end(key)
                value: T = hit[3]
                return value
        value = build()
        with self._lock:
            self.built += 1
            self._entries[key] = (parameters, name, description, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value


_wire = _Memo()
_chars = _Memo()


def openai_tool(spec: ToolSpec) -> dict[str, Any]:
    """The tool as a chat-completions request lists it, its strings cleaned. Shared between
    requests: never change it (the request body is built around it, then encoded)."""

    def build() -> dict[str, Any]:
        cleaned: dict[str, Any] = clean_json(to_openai_tool(spec))
        return cleaned

    return _wire.get(spec.parameters, spec.name, spec.description, build)


def schema_chars(name: str, description: str, parameters: dict[str, Any]) -> int:
    """`len(description) + len(str(parameters))`: what the context estimates count for a tool."""
    return _chars.get(parameters, name, description, lambda: len(description) + len(str(parameters)))


def built() -> tuple[int, int]:
    """(wire forms built, sizes measured) since the process started: tests count them."""
    return _wire.built, _chars.built
