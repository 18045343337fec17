"""The base of the engine's business failures (the package's `__init__` says how they are used)."""

from __future__ import annotations

from contract.errors import BusinessError, D


class EngineError(BusinessError[D]):
    """Base of the engine's business failures (the CLI catches this one)."""
