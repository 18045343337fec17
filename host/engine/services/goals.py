"""`engine.goals`, the goal domain's service (docs/architecture.md, "Goals"): the six mutations,
each resolving the session's agent the way `command.*` does (a cold session is resumed first),
and the `goal` projection for history pages and list rows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from contract.goals import GOAL_KEY, GoalRef
from host.engine.agent.goals.domain import fold_projection
from host.engine.agent.goals.driver import GoalDriver, SessionGoals
from host.engine.errors import HostActionFailed
from host.engine.presets.goal_mounting import mounted
from host.engine.store import SessionHeader, Store

if TYPE_CHECKING:
    from host.engine.agent.agent import Agent


class Goals:
    """A session's goal: its mutations and the `goal` projection, over the goal driver.

    `engine.goals`: built on the goal driver, which `Engine.open()` hooks into the pool (idle
    and turn-end) and the prompt gates."""

    def __init__(self, store: Store, attach: Callable[[str], Awaitable[Agent]], driver: GoalDriver) -> None:
        self._store = store
        self._attach = attach
        self.driver = driver
        """The continuation driver (its `/goal` command and tools are registered by the engine)."""

    def live_values(self, agent: Agent) -> dict[str, Any]:
        """The goal value of a loaded session's list row."""
        return self.driver.live_values(agent)

    async def _goals(self, session_id: str) -> SessionGoals:
        agent = await self._attach(session_id)
        if not mounted(agent.composition.preset.id):
            raise HostActionFailed(
                f"no goal service in this session: its preset {agent.composition.preset.id!r}"
                " does not mount the goals package"
            )
        return await self.driver.of(agent)

    async def goal_create(self, session_id: str, objective: str, max_rounds: int | None) -> GoalRef:
        goals = await self._goals(session_id)
        change = self.driver.mutate(goals, lambda ledger, now: ledger.create(objective, max_rounds, now))
        assert change.goal is not None
        return GoalRef(id=change.goal.id, revision=change.goal.revision)

    async def goal_edit(
        self, session_id: str, ref: GoalRef, objective: str | None, max_rounds: int | None
    ) -> GoalRef:
        goals = await self._goals(session_id)
        change = self.driver.mutate(goals, lambda ledger, now: ledger.edit(ref, objective, max_rounds, now))
        assert change.goal is not None
        return GoalRef(id=change.goal.id, revision=change.goal.revision)

    async def goal_move(self, session_id: str, verb: str, ref: GoalRef) -> GoalRef | None:
        """pause / resume / complete / clear; the new ref (None after a clear)."""
        goals = await self._goals(session_id)
        change = self.driver.mutate(goals, lambda ledger, now: getattr(ledger, verb)(ref, now))
        if change.goal is None:
            return None
        return GoalRef(id=change.goal.id, revision=change.goal.revision)

    async def goal_projection(self, session_id: str, header: SessionHeader | None) -> dict[str, Any]:
        """`{goal: value}` for a history tail page or a list row, folded from the logged
        `goal/change` events only (a round's message never moves it); `{}` when the session's
        preset mounts no goals."""
        loaded = self.driver.sessions.get(session_id)
        if loaded is not None:
            preset: str | None = loaded.agent.composition.preset.id
        elif header is not None:
            preset = header.agent_preset
        else:
            found = await self._store.header(session_id)
            preset = found.agent_preset if found is not None else None
        if not mounted(preset):
            return {}
        await self._store.flush()
        changes = await self._store.events_of_types(session_id, ("goal/change",))
        return {GOAL_KEY: fold_projection([e.data for e in changes])}
