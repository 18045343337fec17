"""`engine.subagents` (the door `host/api` and the `task` tool use): starting a child for a
`task` call and running it to its answer, and `subagent.list / history / prompt / interrupt`
(docs/architecture.md, "Subagents")."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pydantic import ValidationError

from contract.content import Message, MessageSource, TextBlock
from contract.events import SessionEvent, SubagentDescriptor, TurnEndReason
from contract.sessions import AttachInput, Projections, PromptContent
from contract.subagents import Activity, ContinuableChild, DiagnosticChild, OneShotChild, SubagentListEntry
from host.engine.agent.agent import Agent
from host.engine.agent.model_choice import ModelChoice
from host.engine.agent.pool import AgentPool
from host.engine.agent.presets import PresetService
from host.engine.agent.subagents import SubagentTracker, task_output
from host.engine.agent.timezones import check_time_zone
from host.engine.errors import (
    AgentBusy,
    EngineError,
    SubagentCatalogDiagnostic,
    SubagentDeliveryUnavailable,
    SubagentNotFound,
    SubagentNotResumable,
    SubagentParentUnavailable,
    SubagentUnauthorized,
)
from host.engine.services.finder import Finder
from host.engine.sessions import events
from host.engine.sessions.events import NewEvent
from host.engine.sessions.journal import now_ms
from host.engine.sessions.lookup import Announce
from host.engine.sessions.media import Blocks
from host.engine.sessions.titles import normalise
from host.engine.settings.selection import Selections
from host.engine.store import SessionHeader, Store, ids
from host.engine.tools.base import SubagentControl, ToolOutput
from host.engine.tools.permissions.policy import PermissionService

log = logging.getLogger(__name__)

HistoryPage = tuple[list[SessionEvent], bool, Projections | None]
History = Callable[[str, int | None, int], Awaitable[HistoryPage]]
"""A session's history page (the session service's), which a child's history is."""

LABEL_MAX = 120
REFUSED = "this is a subagent's session: message it through its parent (subagent.prompt)"
DESCRIPTOR = ("subagent/descriptor",)


class ParentControl:
    """A parent session's `SubagentControl` (what its `task` calls reach)."""

    def __init__(self, door: Subagents, parent_id: str) -> None:
        self._door = door
        self._parent_id = parent_id

    async def run_task(
        self,
        call_id: str,
        description: str,
        prompt: str,
        preset: str | None,
        emit: Callable[[NewEvent[Any]], Awaitable[None]],
    ) -> ToolOutput:
        return await self._door.run_task(self._parent_id, call_id, description, prompt, preset, emit)


class Subagents:
    """The `task` tool's children: `subagent.*` and the fence that keeps direct input off a
    subagent.

    `engine.subagents`; its tracker is built first and given to the pending table (a child's
    approvals show in its parent's window) and the pool (a child's lineage as it loads);
    `Engine.open()` registers `turn_ended` and `control_for` with the pool."""

    def __init__(
        self,
        pool: AgentPool,
        store: Store,
        tracker: SubagentTracker,
        models: ModelChoice,
        selections: Selections,
        announce: Announce,
        blocks: Blocks,
        presets: PresetService,
        permissions: PermissionService,
        history: History,
        finder: Finder,
    ) -> None:
        self._pool = pool
        self._store = store
        self._models = models
        self._selections = selections
        self._announce = announce
        self._blocks = blocks
        self._presets = presets
        self._permissions = permissions
        self._history = history
        self._finder = finder
        """Reads what `subagent.prompt` attaches, as `session.prompt` does."""
        self.tracker = tracker
        """The children's lineage, descriptors, slots and waiters."""
        self._deliveries: set[asyncio.Task[None]] = set()

    def control_for(self, header: SessionHeader) -> SubagentControl | None:
        """What a session's `task` calls reach (a subagent starts no subagents of its own)."""
        return None if header.origin == "subagent" else ParentControl(self, header.id)

    def turn_ended(self, agent: Agent, first: Message, reason: TurnEndReason, answer: Message | None) -> None:
        """Every agent's turn/end: the tracker settles a waiting `task` call, or gives the answer
        of a child's turn nobody waited for, which goes to its parent as context."""
        delivery = self.tracker.turn_ended(agent, first, reason, answer)
        if delivery is None:
            return
        parent_id, text = delivery
        task = asyncio.create_task(self._deliver_answer(parent_id, agent.session_id, text))
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)

    async def close(self) -> None:
        for task in list(self._deliveries):
            task.cancel()
        await asyncio.gather(*self._deliveries, return_exceptions=True)

    # ---- the `task` tool ------------------------------------------------------------------

    async def run_task(
        self,
        parent_id: str,
        call_id: str,
        description: str,
        prompt: str,
        preset: str | None,
        emit: Callable[[NewEvent[Any]], Awaitable[None]],
    ) -> ToolOutput:
        """Start a child of `parent_id` (once a slot is free), run `prompt` to its final answer
        and return that answer; cancelling this cancels the child."""
        async with self.tracker.slot(parent_id):
            try:
                child = await self._spawn(parent_id, description, preset)
            except EngineError as exc:
                return ToolOutput(f"The subagent could not start: {exc}", True, "SUBAGENT_UNAVAILABLE")
            label = self.tracker.lineage[child.session_id].label
            await emit(events.subagent_spawned(call_id, child.session_id, label, child.composition.preset.id))
            source = MessageSource.model_validate(
                {
                    "kind": "plugin",
                    "plugin": "task",
                    "meta": {"parentSessionId": parent_id, "callId": call_id},
                }
            )
            message_id = child.input.queue([TextBlock(text=prompt)], source)
            return task_output(await self.tracker.wait(child, message_id))

    async def _spawn(self, parent_id: str, description: str, preset: str | None) -> Agent:
        self._pool.check_open()
        parent = self._pool.get(parent_id)
        if parent is None:
            raise AgentBusy("the parent session is not running")
        preset_id = await self._presets.resolve(preset or parent.composition.preset.id)
        label = normalise(description, LABEL_MAX) or "Subagent"
        child_id = ids.session_id()
        header = SessionHeader(
            id=child_id,
            created_at=now_ms(),
            cwd=str(parent.cwd),
            parent_session=parent_id,
            agent_preset=preset_id,
            title=label,
            title_source="auto",
            origin="subagent",
        )
        self._store.register(header)
        self._permissions.pin_child(child_id, parent.policy)
        spec = await asyncio.to_thread(self._presets.roster.runnable, preset_id)
        if spec.model is None:  # the preset names no model: the parent's
            self._selections.inherit(child_id, self._models.current(parent_id, parent.journal))
        self.tracker.loaded(header)
        self._announce(header)
        child = await self._pool.attach(child_id)
        if parent.composition.plan_active and child.composition.set_plan(True):
            child.journal.append(events.plan_mode(True))  # a planning parent's children plan too
        selection = self._models.current(child_id, child.journal)
        allow = list(spec.tools) if spec.tools is not None else None
        descriptor = events.subagent_descriptor(label, selection.provider, selection.model, preset_id, allow)
        self.tracker.descriptors[child_id] = descriptor.data
        child.opening.append(descriptor)
        return child

    async def _deliver_answer(self, parent_id: str, child_id: str, text: str) -> None:
        try:
            parent = await self._pool.attach(parent_id)
            parent.input.inject([TextBlock(text=text)], "subagent", {"childSessionId": child_id})
        except AgentBusy:
            pass  # the host is closing: the answer stays in the child's conversation
        except Exception:
            log.exception("could not give subagent %s's answer to its parent %s", child_id, parent_id)

    # ---- the fence ------------------------------------------------------------------------

    async def refuse_subagent(self, session_id: str) -> None:
        """`agent-busy` for a subagent's session: people message it through its parent."""
        agent = self._pool.get(session_id)
        header = agent.journal.header if agent is not None else await self._store.header(session_id)
        if header is not None and header.origin == "subagent":
            raise AgentBusy(REFUSED)

    async def subagent_tree(self, session_id: str) -> list[str]:
        """Every subagent below `session_id`, children before their own children."""
        return await subagent_tree(self._store, session_id)

    # ---- subagent.* -----------------------------------------------------------------------

    async def list_subagents(self, parent_id: str) -> tuple[list[SubagentListEntry], bool]:
        """(the parent's direct children, whether the parent has a live agent)."""
        headers = await self._store.sessions()
        parents = {h.parent_session for h in headers if h.origin == "subagent"}
        entries: list[SubagentListEntry] = []
        for h in sorted(headers, key=lambda h: (h.created_at, h.id)):
            if h.origin != "subagent" or h.parent_session != parent_id:
                continue
            found = await self._descriptor(h.id)
            if isinstance(found, str):
                entries.append(DiagnosticChild(id=h.id, reason=found))  # type: ignore[arg-type]
                continue
            agent = self._pool.get(h.id)
            activity: Activity = "running" if agent is not None and agent.running else "inactive"
            nested = h.id in parents
            if found.mode == "continuable":
                label = found.label or h.title or h.id
                entries.append(ContinuableChild(id=h.id, activity=activity, has_children=nested, label=label))
            else:
                entries.append(
                    OneShotChild(id=h.id, activity=activity, has_children=nested, label=found.label)
                )
        return entries, self._pool.get(parent_id) is not None

    async def _descriptor(self, child_id: str) -> SubagentDescriptor | str:
        """The child's descriptor, or the diagnostic reason it has none."""
        known = self.tracker.descriptors.get(child_id)
        if known is not None:
            return known
        try:
            event = await self._store.latest_of_types(child_id, DESCRIPTOR)
        except Exception:
            log.exception("reading subagent %s's descriptor failed", child_id)
            return "unavailable"
        if event is None:
            return "corrupt"
        try:
            return SubagentDescriptor.model_validate(event.data)
        except ValidationError:
            known_shape = event.data.get("version") == 2 and event.data.get("mode") in (
                "one-shot",
                "continuable",
            )
            return "corrupt" if known_shape else "unsupported"

    async def _child(self, parent_id: str, child_id: str, mode: str) -> SessionHeader:
        header = await self._store.header(child_id)
        if header is None or header.origin != "subagent":
            raise SubagentNotFound(parent_id, child_id, f"{child_id} is not a subagent session")
        if header.parent_session != parent_id:
            raise SubagentUnauthorized(child_id)
        found = await self._descriptor(child_id)
        if isinstance(found, str):
            raise SubagentCatalogDiagnostic(parent_id, child_id, found)
        if found.mode != mode:
            raise SubagentNotFound(parent_id, child_id, f"{child_id} is a {found.mode} subagent, not {mode}")
        return header

    async def subagent_history(
        self, parent_id: str, child_id: str, mode: str, before_seq: int | None, max_messages: int | None
    ) -> tuple[list[SessionEvent], bool, Projections | None]:
        await self._child(parent_id, child_id, mode)
        return await self._history(child_id, before_seq, max_messages or 50)

    async def prompt_subagent(
        self,
        parent_id: str,
        child_id: str,
        content: list[PromptContent],
        rpc_id: str,
        client_time_zone: str | None = None,
        attach: Sequence[AttachInput] = (),
    ) -> str:
        """Queue a person's input in a continuable child (with what `session.prompt` takes: the
        time zone, attachments read from the child's folder); its answer reaches the parent as
        context. Returns the message id."""
        if client_time_zone is not None:
            check_time_zone(client_time_zone)
        await self._child(parent_id, child_id, "continuable")
        attached = await self._finder.attach(child_id, list(attach)) if attach else []
        try:
            await self._pool.attach(parent_id)
        except EngineError as exc:
            raise SubagentParentUnavailable(parent_id, f"the parent session cannot run here: {exc}") from exc
        try:
            child = await self._pool.attach(child_id)
        except AgentBusy as exc:
            raise SubagentDeliveryUnavailable(child_id, str(exc)) from exc
        except (EngineError, ValueError) as exc:
            raise SubagentNotResumable(child_id, f"the subagent's session cannot be loaded: {exc}") from exc
        try:
            source = MessageSource(kind="user", rpc_id=rpc_id, client_time_zone=client_time_zone)
            return child.input.queue([*self._blocks(content), *attached], source)
        except AgentBusy as exc:
            raise SubagentDeliveryUnavailable(child_id, str(exc)) from exc

    async def interrupt_subagent(self, parent_id: str, child_id: str) -> None:
        """Stop the child's running turn; accepted for a child that is idle or gone."""
        header = await self._store.header(child_id)
        if header is None or header.origin != "subagent":
            return
        if header.parent_session != parent_id:
            raise SubagentUnauthorized(child_id)
        agent = self._pool.get(child_id)
        if agent is not None:
            agent.cancel("user")


async def subagent_tree(store: Store, session_id: str) -> list[str]:
    """Every subagent below `session_id`, children before their own children."""
    headers = await store.sessions()
    out, frontier = [], [session_id]
    while frontier:
        current = frontier.pop(0)
        for h in headers:
            if h.parent_session == current and h.origin == "subagent" and h.id not in out:
                out.append(h.id)
                frontier.append(h.id)
    return out
