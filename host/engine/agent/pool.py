"""The attached agents: one per session, resumed from the store on first use.

Resuming a cold session repairs a crashed turn (written this time), announces the session on
the mux (`session/subscribed` before any of its events), folds its conversation and replays its
inbox (input queued before a crash or restart then runs). Concurrent resumes of one session share
one in-flight future.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from contract.content import Message
from contract.events import TurnEndReason
from contract.frames import SessionSubscribed
from contract.sessions import ModelSelection
from host.engine.agent.agent import Agent, AgentDeps, TurnEnded
from host.engine.agent.attention import Attention
from host.engine.agent.pending import PendingTable
from host.engine.agent.prompt_gates import PromptGates
from host.engine.agent.slots import TurnSlots
from host.engine.agent.transcript import fold_surface
from host.engine.errors import AgentBusy, SessionNotFound
from host.engine.files.snapshots import Snapshotter
from host.engine.integrations.hooks.service import HookService
from host.engine.llm.base import LlmAdapter
from host.engine.presets.composition import Composition
from host.engine.sessions.bus import Bus
from host.engine.sessions.inbox import REPLAYED, replay
from host.engine.sessions.journal import Journal
from host.engine.sessions.repair import Unsaved, crash_repair
from host.engine.store import SessionHeader, Store
from host.engine.tools.base import JobControl, SubagentControl
from host.engine.tools.permissions.policy import PermissionService

log = logging.getLogger(__name__)

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
        gates: PromptGates | None = None,
        *,
        agents: dict[str, Agent] | None = None,
        snapshots: Snapshotter | None = None,
        hooks: HookService | None = None,
        idle: Callable[[Agent], None] | None = None,
        slots: TurnSlots | None = None,
        attention: Attention | None = None,
    ) -> None:
        """`agents`: the map this pool fills (one per session), handed first to the parts that
        only look an attached agent up (`agents.get`), so they are built before the pool
        (docs/architecture.md, "The engine")."""
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
        self.snapshots = snapshots
        """The folder's snapshots around changing steps (docs/architecture.md, "Snapshots")."""
        self.gates = gates
        self.hooks = hooks
        """The hooks every session's tool calls pass (host/engine/integrations/hooks/)."""
        self.agents: dict[str, Agent] = agents if agents is not None else {}
        self._attaching: dict[str, asyncio.Future[Agent]] = {}
        self.resumes = 0
        """How many sessions were loaded (concurrent resumes share one load)."""
        self.failed: dict[str, TurnEndReason] = {}
        """Session → the turn/end reason its open turn gets on the next load (a store failure)."""
        self.unsaved: dict[str, Unsaved] = {}
        """Session → its open turn's started calls and their results when a store failure
        abandoned it: the repair saves those results late (host/engine/sessions/repair.py)."""
        self._abandoned: dict[str, Agent] = {}
        self._subagents: Callable[[SessionHeader], SubagentControl | None] = lambda header: None
        """A loading session's way to start subagents (None: it may not); `serve_subagents`."""
        self._turn_ended: list[TurnEnded] = []
        self.idle = idle
        """Told when an agent's loop drained its inbox (the goal driver)."""
        self._loaded: list[Callable[[SessionHeader], None]] = []
        """Called with each header as its session loads (before its agent starts)."""
        self._slots = slots
        self._attention = attention
        self._shut = False

    # ---- what parts built after the pool hook in (docs/architecture.md, "The engine") ----------

    def on_loaded(self, listener: Callable[[SessionHeader], None]) -> None:
        """`listener(header)` as each session loads, before its agent starts."""
        self._loaded.append(listener)

    def on_turn_ended(self, listener: TurnEnded) -> None:
        """`listener` at every agent's turn/end, after the listeners added before it."""
        self._turn_ended.append(listener)

    def serve_subagents(self, control_for: Callable[[SessionHeader], SubagentControl | None]) -> None:
        """What a loading session's `task` calls reach (the subagent service, which is built on
        this pool: the one cycle of the engine, closed here once)."""
        self._subagents = control_for

    def _ended(self, agent: Agent, first: Message, reason: TurnEndReason, answer: Message | None) -> None:
        for listener in self._turn_ended:
            listener(agent, first, reason, answer)

    # ---- the doors' lookups -------------------------------------------------------------------

    @property
    def closing(self) -> bool:
        """The host is closing (`shut`)."""
        return self._shut

    def shut(self) -> None:
        """The host is closing: no session attaches from now on."""
        self._shut = True

    def check_open(self) -> None:
        """AgentBusy once the host is closing."""
        if self._shut:
            raise AgentBusy("the host is shutting down")

    def get(self, session_id: str) -> Agent | None:
        return self.agents.get(session_id)

    async def attach(self, session_id: str) -> Agent:
        """The session's agent, resuming a cold session (concurrent resumes share one load);
        AgentBusy once the host is closing."""
        self.check_open()
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

    def abandon(self, session_id: str, reason: TurnEndReason) -> bool:
        """Drop the session's agent without writing (a store failure); its open turn on disk is
        closed with `reason` when the session is next loaded. False when it was not attached."""
        self.failed[session_id] = reason
        agent = self.agents.pop(session_id, None)
        if agent is None:
            return False
        self.unsaved.setdefault(session_id, {}).update(agent.unsaved_calls())
        agent.abandon()
        self._abandoned[session_id] = agent
        return True

    async def resume(self, session_ids: Iterable[str]) -> None:
        """Load the sessions whose inbox holds input queued before a restart or crash (it runs
        now). One that cannot be loaded (a damaged row, a session salvage dropped) is logged in
        one line and left for when it is opened: it never stops the app from starting."""
        for session_id in session_ids:
            try:
                await self.attach(session_id)
            except Exception as exc:
                log.error("session %s could not resume its queued input: %s", session_id, exc)

    async def _load(self, session_id: str) -> Agent:
        old = self._abandoned.pop(session_id, None)
        if old is not None:
            await old.stopped(2.0)
        header = await self._store.header(session_id)
        if header is None:
            raise SessionNotFound(session_id)
        self.resumes += 1
        repairs = await crash_repair(
            self._store, header, self.failed.pop(session_id, None), self.unsaved.pop(session_id, None)
        )
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
            subagents=self._subagents(header),
            turn_ended=self._ended,
            snapshots=self.snapshots,
            gates=self.gates,
            idle=self.idle,
            hooks=self.hooks,
            slots=self._slots if header.origin != "subagent" else None,
            attention=self._attention,
        )
        cwd = Path(header.cwd or self._default_cwd)
        composition = await self._compose(header, surface.messages(), cwd)
        spec = lambda: (composition.preset.sandbox, composition.preset.approval)  # noqa: E731
        policy = await self._permissions.open(journal, cwd, spec)
        agent = Agent(journal, cwd, deps, surface, header.last_turn + 1, composition, policy, inbox)
        for listener in self._loaded:
            listener(header)
        self.agents[session_id] = agent
        agent.start()
        return agent

    def busy(self, session_id: str) -> bool:
        """The session's agent works or holds input (it cannot be unloaded)."""
        agent = self.agents.get(session_id)
        return agent is not None and bool(agent.running or agent.turn_open or agent.input.queue_items())

    async def release(self, session_id: str) -> None:
        """Unload an idle session's agent (before it is deleted); AgentBusy while it works."""
        agent = self.agents.get(session_id)
        if agent is None:
            return
        if self.busy(session_id):
            raise AgentBusy("the session is working; stop it before deleting it")
        del self.agents[session_id]
        await agent.dispose()
        self._permissions.close(session_id)  # it held the session's log and policy for good

    def forget(self, session_id: str) -> None:
        """A deleted session: no store-failure verdict waits for its next load."""
        self.failed.pop(session_id, None)
        self.unsaved.pop(session_id, None)
        self._abandoned.pop(session_id, None)

    async def dispose_all(self, bound: float | None = None) -> None:
        """Dispose every agent (running turns end `aborted {by: disposed}`), waiting at most
        `bound` seconds."""
        disposing = [asyncio.ensure_future(a.dispose()) for a in list(self.agents.values())]
        if disposing:
            await asyncio.wait(disposing, timeout=None if bound is None else max(0.0, bound))
