"""The engine's default tool set."""

from __future__ import annotations

from host.engine.tools.base import Tool
from host.engine.tools.reach import Reach


def default_tools(reach: Reach | None = None) -> dict[str, Tool]:
    from host.engine.tools import build_tools

    return build_tools(reach)
