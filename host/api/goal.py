"""`goal.*`: compare-and-set mutations of a session's goal (docs/architecture.md, "Goals").
The read side is the `goal` projection; domain rejections answer `internal {goalCode}`."""

from __future__ import annotations

from contract import goals as g
from contract.methods import GOAL_CLEAR, GOAL_COMPLETE, GOAL_CREATE, GOAL_EDIT, GOAL_PAUSE, GOAL_RESUME
from host.api.registry import implements
from host.engine.engine import Engine


@implements(GOAL_CREATE)
async def create(engine: Engine, p: g.GoalCreateRequest) -> g.GoalRefValue:
    return g.GoalRefValue(ref=await engine.goals.goal_create(p.session_id, p.objective, p.max_goal_rounds))


@implements(GOAL_EDIT)
async def edit(engine: Engine, p: g.GoalEditRequest) -> g.GoalRefValue:
    return g.GoalRefValue(
        ref=await engine.goals.goal_edit(p.session_id, p.ref, p.objective, p.max_goal_rounds)
    )


async def _move(engine: Engine, verb: str, p: g.GoalRefRequest) -> g.GoalRefValue:
    ref = await engine.goals.goal_move(p.session_id, verb, p.ref)
    assert ref is not None
    return g.GoalRefValue(ref=ref)


@implements(GOAL_PAUSE)
async def pause(engine: Engine, p: g.GoalRefRequest) -> g.GoalRefValue:
    return await _move(engine, "pause", p)


@implements(GOAL_RESUME)
async def resume(engine: Engine, p: g.GoalRefRequest) -> g.GoalRefValue:
    return await _move(engine, "resume", p)


@implements(GOAL_COMPLETE)
async def complete(engine: Engine, p: g.GoalRefRequest) -> g.GoalRefValue:
    return await _move(engine, "complete", p)


@implements(GOAL_CLEAR)
async def clear(engine: Engine, p: g.GoalRefRequest) -> g.GoalCleared:
    await engine.goals.goal_move(p.session_id, "clear", p.ref)
    return g.GoalCleared()
