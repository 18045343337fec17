"""`engine.agents`: a session's agent and its input — prompting, steering, stopping, editing its
queue, giving it context, compacting its conversation and its context meter (docs/architecture.md,
"Agents", "Compaction")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from contract.content import MessageSource, TextBlock
from contract.sessions import AttachInput, PromptContent
from host.engine.agent import compaction
from host.engine.agent.agent import Agent
from host.engine.agent.model_choice import ModelChoice
from host.engine.agent.pool import AgentPool
from host.engine.agent.timezones import check_time_zone
from host.engine.errors import AgentBusy, ModelUnavailable, QueueItemNotFound
from host.engine.llm.base import LlmAdapter
from host.engine.services.finder import Finder
from host.engine.services.health import StorageHealth
from host.engine.sessions.lookup import Header
from host.engine.sessions.media import Blocks
from host.engine.store import SessionHeader, Store


class Agents:
    """A session's agent (`attach`) and its input: prompt, steer, cancel, queue edits, injected
    context, compaction, the context meter."""

    def __init__(
        self,
        pool: AgentPool,
        store: Store,
        header: Header,
        models: ModelChoice,
        adapter_for: Callable[[str], LlmAdapter | None],
        blocks: Blocks,
        health: StorageHealth,
        finder: Finder,
    ) -> None:
        self._pool = pool
        self._store = store
        self._header = header
        self._models = models
        self._adapter_for = adapter_for
        self._blocks = blocks
        self._health = health
        self._finder = finder

    async def attach(self, session_id: str) -> Agent:
        """The session's agent, resuming a cold session (concurrent resumes share one load)."""
        return await self._pool.attach(session_id)

    def attached(self) -> list[str]:
        """The sessions with a live agent."""
        return list(self._pool.agents)

    async def prompt(
        self,
        session_id: str,
        mode: str,
        content: list[PromptContent],
        rpc_id: str,
        client_time_zone: str | None = None,
        attach: Sequence[str | AttachInput] = (),
    ) -> str:
        """Queue or steer user input (with the files, folders and MCP resources `attach` names,
        read now); returns the inbox item id."""
        if client_time_zone is not None:
            check_time_zone(client_time_zone)
        attached = await self._finder.attach(session_id, list(attach)) if attach else []
        await self._health.admit()  # while writes fail: probes now, no waiting out the backoff
        agent = await self._pool.attach(session_id)
        selection = self._models.current(session_id, agent.journal)
        if self._adapter_for(selection.provider) is None:
            raise ModelUnavailable(selection.provider, selection.model)
        blocks = [*self._blocks(content), *attached]
        source = MessageSource(kind="user", rpc_id=rpc_id, client_time_zone=client_time_zone)
        if mode == "steer":
            item = agent.input.steer(blocks, source)
        elif mode == "queue":
            item = agent.input.queue(blocks, source)
        else:
            raise AgentBusy(f"unknown prompt mode {mode!r}")
        await self._health.saved(agent.journal, agent.journal.last_seq)  # accepted = on disk
        return item

    async def cancel(self, session_id: str, clear_queue: bool = False) -> bool:
        """Abort the running turn; queued input stays (the next item starts) unless
        `clear_queue`. A no-op on an idle or cold session."""
        agent = self._pool.get(session_id)
        if agent is None:
            await self._header(session_id)
            return False
        return agent.cancel("user", clear_queue=clear_queue)

    async def update_queue(self, session_id: str, item_id: str, action: Any) -> None:
        """`action` is a contract EditAction / RemoveAction / SteerAction (never resumes)."""
        await self._header(session_id)
        agent = self._pool.get(session_id)
        if agent is None:
            raise QueueItemNotFound(item_id, "the session has no queued input")
        content = None
        if action.kind == "edit":
            paths = [a.path for a in action.attach]
            attached = await self._finder.attach(session_id, paths) if paths else []
            content = [*self._blocks(action.content), *attached]
        agent.input.update_queue(item_id, action.kind, content)

    async def inject(
        self, session_id: str, text: str, plugin: str = "host", meta: dict[str, Any] | None = None
    ) -> str:
        """Context for the agent's next step (placement `context`); it never runs the model by
        itself. Returns the message id."""
        agent = await self._pool.attach(session_id)
        return agent.input.inject([TextBlock(text=text)], plugin, meta)

    async def compact(self, session_id: str, command_id: str | None = None) -> compaction.CompactOutcome:
        """Summarise the session's conversation now (`/compact`); refused while a turn runs."""
        agent = await self._pool.attach(session_id)
        return await agent.compact(command_id)

    async def context_projection(
        self, session_id: str, header: SessionHeader | None
    ) -> dict[str, int] | None:
        """`{tokens, window}`: live for an attached session, else from the newest answer's usage."""
        agent = self._pool.get(session_id)
        if agent is not None:
            return agent.context_view()
        if header is None:
            return None
        latest = await self._store.latest_of_types(session_id, ("assistant/message", "compact/summary"))
        if latest is None:
            return None
        if latest.type == "compact/summary":
            summary = latest.data.get("summary") or []
            tokens = sum(len(str(b.get("text", ""))) for b in summary if isinstance(b, dict)) // 4
        else:
            usage = latest.data.get("usage") or {}
            tokens = int(usage.get("inputTokens", 0)) + int(usage.get("outputTokens", 0))
            if tokens == 0:
                return None
        window = self._models.context_window(self._models.current(session_id, None, header))
        return {"tokens": tokens, "window": window}
