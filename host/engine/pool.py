"""The attached agents: one per session, resumed from the store on first use.

Resuming a cold session repairs a crashed turn (written this time), announces the session on
the mux (`session/subscribed` before any of its events), folds its conversation and replays its
inbox (input queued before a crash or restart then runs). Concurrent resumes of one session share
one in-flight future.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from contract.content import Message
from contract.events import SessionEvent
from contract.frames import SessionSubscribed
from contract.sessions import ModelSelection
from host.engine.agent import Agent, AgentDeps
from host.engine.bus import Bus
from host.engine.composition import Composition
from host.engine.errors import AgentBusy, SessionNotFound
from host.engine.inbox import REPLAYED, replay
from host.engine.journal import Journal
from host.engine.llm.base import LlmAdapter
from host.engine.pending import PendingTable
from host.engine.permissions.policy import PermissionService
from host.engine.repair import repair_events
from host.engine.store import SessionHeader, Store
from host.engine.surface import fold_surface
from host.engine.tools.base import JobControl

SelectionFor = Callable[[str, Journal], ModelSelection]
Compose = Callable[[SessionHeader, list[Message], Path], Awaitable[Composition]]
"""A resumed session's composition (its recorded preset, project, skills, plan mode)."""


class AgentPool:
    def __init__(
        self,
        store: Store,
        bus: Bus,
        pending: PendingTable,
        compose: Compose,
        adapter_for: Callable[[str], LlmAdapter | None],
        selection_for: SelectionFor,
        permissions: PermissionService,
        context_window: Callable[[ModelSelection], int],
        default_cwd: str,
        step_cap: int,
        job_control: Callable[[str], JobControl] | None = None,
    ) -> None:
        self._store = store
        self._bus = bus
        self._pending = pending
        self._compose = compose
        self._adapter_for = adapter_for
        self._selection_for = selection_for
        self._permissions = permissions
        self._context_window = context_window
        self._default_cwd = default_cwd
        self._step_cap = step_cap
        self._job_control = job_control
        self.agents: dict[str, Agent] = {}
        self._attaching: dict[str, asyncio.Future[Agent]] = {}
        self.resumes = 0
        """How many sessions were loaded (concurrent resumes share one load)."""

    def get(self, session_id: str) -> Agent | None:
        return self.agents.get(session_id)

    async def attach(self, session_id: str) -> Agent:
        agent = self.agents.get(session_id)
        if agent is not None:
            return agent
        future = self._attaching.get(session_id)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._attaching[session_id] = future
            try:
                future.set_result(await self._load(session_id))
            except BaseException as exc:
                future.set_exception(exc)
                future.exception()  # retrieved: joiners re-raise it, no "never retrieved" noise
            finally:
                del self._attaching[session_id]
        return await asyncio.shield(future)

    async def _load(self, session_id: str) -> Agent:
        header = await self._store.header(session_id)
        if header is None:
            raise SessionNotFound(session_id)
        self.resumes += 1
        repairs: list[SessionEvent] = []
        if header.open_turn_start is not None:
            repairs = repair_events(await self._store.events(session_id, header.open_turn_start))
        journal = Journal(header, self._store, self._bus)
        self._bus.publish("mux", SessionSubscribed(session_id=session_id, last_seq=header.last_seq))
        journal.extend(repairs)
        surface = fold_surface(await self._store.surface_events(session_id))
        inbox = replay(await self._store.events_of_types(session_id, REPLAYED))
        deps = AgentDeps(
            store=self._store,
            bus=self._bus,
            pending=self._pending,
            adapter_for=self._adapter_for,
            selection=lambda: self._selection_for(session_id, journal),
            permissions=self._permissions,
            context_window=self._context_window,
            jobs=self._job_control(session_id) if self._job_control is not None else None,
            step_cap=self._step_cap,
        )
        cwd = Path(header.cwd or self._default_cwd)
        composition = await self._compose(header, surface.messages(), cwd)
        spec = lambda: (composition.preset.sandbox, composition.preset.approval)  # noqa: E731
        policy = await self._permissions.open(journal, cwd, spec)
        agent = Agent(journal, cwd, deps, surface, header.last_turn + 1, composition, policy, inbox)
        self.agents[session_id] = agent
        agent.start()
        return agent

    async def release(self, session_id: str) -> None:
        """Unload an idle session's agent (before it is deleted); AgentBusy while it works."""
        agent = self.agents.get(session_id)
        if agent is None:
            return
        if agent.running or agent.turn_open or agent.queue_items():
            raise AgentBusy("the session is working; stop it before deleting it")
        del self.agents[session_id]
        await agent.dispose()

    async def dispose_all(self) -> None:
        await asyncio.gather(*(a.dispose() for a in list(self.agents.values())))
