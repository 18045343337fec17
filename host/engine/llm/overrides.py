"""The command line's run-only configuration layer (docs/decisions.md, "Configuration").

`--provider/--base-url/--model` win over the settings for that run only and are never saved:
the provider and model choose the default model selection (until a model is picked in a session),
and the base URL applies to the route the provider flag names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuntimeOverrides:
    provider: str | None = None
    base_url: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class LlmSummary:
    """The default model selection of a data dir and whether its route can serve (no secret)."""

    provider: str
    model: str
    base_url: str | None
    active: bool
    problem: str | None
