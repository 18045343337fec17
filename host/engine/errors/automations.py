"""Automations and their runs (docs/decisions/automations.md)."""

from __future__ import annotations

from contract.errors import AutomationDetails
from host.engine.errors.base import EngineError


class AutomationNotFound(EngineError[AutomationDetails]):
    code = "automation-not-found"

    def __init__(self, automation_id: str | None = None, run_id: str | None = None) -> None:
        what = f"no run {run_id}" if run_id is not None else f"no automation {automation_id}"
        super().__init__(what, AutomationDetails(automation_id=automation_id, run_id=run_id))


class AutomationRunning(EngineError[AutomationDetails]):
    """At most one run of an automation at a time."""

    code = "automation-running"

    def __init__(self, automation_id: str, run_id: str) -> None:
        super().__init__(
            "this automation is running already; open its run or wait for it to finish",
            AutomationDetails(automation_id=automation_id, run_id=run_id),
        )
