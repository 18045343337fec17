"""The optional loopback HTTP server: the fetch app behind a security fence, plus webui/."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from host.server.fence import LoopbackFence, is_loopback_host
    from host.server.peers import SandboxPeers
    from host.server.site import build_site

__all__ = ["LoopbackFence", "SandboxPeers", "build_site", "is_loopback_host"]

_WHERE = {
    "LoopbackFence": "fence",
    "is_loopback_host": "fence",
    "build_site": "site",
    "SandboxPeers": "peers",
}
"""Loaded on first use: the window imports `host.server.csp` while it starts, and the fence
would bring the whole contract with it."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'host.server' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"host.server.{module}"), name)
    globals()[name] = value
    return value
