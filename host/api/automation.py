"""`automation.*`: prompts that run on a schedule, when files change or on demand, and the inbox of
their runs (docs/decisions/automations.md)."""

from __future__ import annotations

from contract import automations as au
from host.api.registry import implements
from host.engine.engine import Engine


@implements("automation.create")
async def create(engine: Engine, p: au.AutomationCreateRequest) -> au.AutomationCreated:
    return au.AutomationCreated(automation_id=await engine.automations.create(p))


@implements("automation.update")
async def update(engine: Engine, p: au.AutomationUpdateRequest) -> au.AutomationDone:
    await engine.automations.update(p)
    return au.AutomationDone()


@implements("automation.delete")
async def delete(engine: Engine, p: au.AutomationRef) -> au.AutomationDone:
    await engine.automations.delete(p.automation_id)
    return au.AutomationDone()


@implements("automation.list")
async def list_automations(engine: Engine, p: au.AutomationListRequest) -> au.AutomationListValue:
    return au.AutomationListValue(items=engine.automations.items())


@implements("automation.runNow")
async def run_now(engine: Engine, p: au.AutomationRef) -> au.AutomationRunNowValue:
    run_id, session_id = await engine.automations.run_now(p.automation_id)
    return au.AutomationRunNowValue(run_id=run_id, session_id=session_id)


@implements("automation.runs")
async def runs(engine: Engine, p: au.AutomationRunsRequest) -> au.AutomationRunsValue:
    return au.AutomationRunsValue(items=engine.automations.runs(p.automation_id, p.archived))


@implements("automation.markRead")
async def mark_read(engine: Engine, p: au.RunRef) -> au.AutomationDone:
    await engine.automations.mark_read(p.run_id)
    return au.AutomationDone()


@implements("automation.archiveRun")
async def archive_run(engine: Engine, p: au.RunRef) -> au.AutomationDone:
    await engine.automations.archive(p.run_id)
    return au.AutomationDone()


@implements("automation.discardRun")
async def discard_run(engine: Engine, p: au.RunRef) -> au.AutomationDone:
    await engine.automations.discard(p.run_id)
    return au.AutomationDone()
