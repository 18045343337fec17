"""`automation.*`: prompts that run on a schedule, when files change or on demand, and the inbox of
their runs (docs/decisions/automations.md)."""

from __future__ import annotations

from contract import automations as au
from contract.methods import (
    AUTOMATION_ARCHIVE_RUN,
    AUTOMATION_CREATE,
    AUTOMATION_DELETE,
    AUTOMATION_DISCARD_RUN,
    AUTOMATION_LIST,
    AUTOMATION_MARK_READ,
    AUTOMATION_RUN_NOW,
    AUTOMATION_RUNS,
    AUTOMATION_UPDATE,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(AUTOMATION_CREATE)
async def create(engine: Engine, p: au.AutomationCreateRequest) -> au.AutomationCreated:
    return au.AutomationCreated(automation_id=await engine.automations.create(p))


@implements(AUTOMATION_UPDATE)
async def update(engine: Engine, p: au.AutomationUpdateRequest) -> au.AutomationDone:
    await engine.automations.update(p)
    return au.AutomationDone()


@implements(AUTOMATION_DELETE)
async def delete(engine: Engine, p: au.AutomationRef) -> au.AutomationDone:
    await engine.automations.delete(p.automation_id)
    return au.AutomationDone()


@implements(AUTOMATION_LIST)
async def list_automations(engine: Engine, p: au.AutomationListRequest) -> au.AutomationListValue:
    return au.AutomationListValue(items=engine.automations.items())


@implements(AUTOMATION_RUN_NOW)
async def run_now(engine: Engine, p: au.AutomationRef) -> au.AutomationRunNowValue:
    run_id, session_id = await engine.automations.run_now(p.automation_id)
    return au.AutomationRunNowValue(run_id=run_id, session_id=session_id)


@implements(AUTOMATION_RUNS)
async def runs(engine: Engine, p: au.AutomationRunsRequest) -> au.AutomationRunsValue:
    return au.AutomationRunsValue(items=engine.automations.runs(p.automation_id, p.archived))


@implements(AUTOMATION_MARK_READ)
async def mark_read(engine: Engine, p: au.RunRef) -> au.AutomationDone:
    await engine.automations.mark_read(p.run_id)
    return au.AutomationDone()


@implements(AUTOMATION_ARCHIVE_RUN)
async def archive_run(engine: Engine, p: au.RunRef) -> au.AutomationDone:
    await engine.automations.archive(p.run_id)
    return au.AutomationDone()


@implements(AUTOMATION_DISCARD_RUN)
async def discard_run(engine: Engine, p: au.RunRef) -> au.AutomationDone:
    await engine.automations.discard(p.run_id)
    return au.AutomationDone()
