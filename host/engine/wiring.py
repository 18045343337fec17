"""The engine's default tool set."""

from __future__ import annotations

from host.engine.tools.base import Tool


def default_tools() -> dict[str, Tool]:
    from host.engine.tools import build_tools

    return build_tools()
