"""The `Engine`'s methods for an agent's work beyond a prompt: stopping it, editing its queue,
giving it context, compacting its conversation, its context meter, and its background jobs
(docs/architecture.md, "Agents", "Compaction", "Background jobs"). A mixin of the facade, so
`engine.py` keeps one job."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contract.content import ContentBlock, TextBlock
from contract.frames import SessionJobs as SessionJobsFrame
from contract.jobs import JobOutputValue, JobView
from contract.sessions import ModelSelection
from host.engine import compaction, events
from host.engine.agent import Agent
from host.engine.bus import Bus
from host.engine.errors import QueueItemNotFound
from host.engine.jobs import Job, JobRegistry, SessionJobs, ended_text
from host.engine.journal import Journal
from host.engine.llm.registry import AdapterRegistry
from host.engine.llm.windows import default_window
from host.engine.lost_jobs import APP_CLOSED, LostJob, lost_text
from host.engine.pool import AgentPool
from host.engine.store import SessionHeader, Store

log = logging.getLogger(__name__)

JOBS_DIR = "jobs"
ENDED_TAIL_BYTES = 2_000
"""How much of an ended job's output its agent is shown (the rest via job_output)."""


class AgentWork:
    """Mixed into `Engine`, which provides the attributes declared here."""

    data_dir: Path
    store: Store
    bus: Bus
    pool: AgentPool
    registry: AdapterRegistry
    jobs: JobRegistry
    _lost_jobs: list[LostJob]

    if TYPE_CHECKING:  # provided by Engine

        async def attach(self, session_id: str) -> Agent: ...

        async def _header(self, session_id: str) -> SessionHeader: ...

        def current_selection(
            self, session_id: str, journal: Journal | None = None, header: SessionHeader | None = None
        ) -> ModelSelection: ...

        def _blocks(self, content: list[Any]) -> list[ContentBlock]: ...

    def _open_jobs(self) -> JobRegistry:
        registry = JobRegistry(self.data_dir / JOBS_DIR, self._publish_jobs, self._job_ended)
        self._lost_jobs = registry.clear_leftovers()
        return registry

    async def record_lost_jobs(self) -> None:
        """At start: each job the previous run lost in a crash gets a `job/lost` in its session
        (shown in its log) and its agent is told as context. A session that cannot be loaded is
        logged in one line and never stops the start."""
        lost, self._lost_jobs = self._lost_jobs, []
        for job in lost:
            try:
                agent = await self.attach(job.session_id)
            except Exception as exc:
                log.error("session %s could not record its lost job %s: %s", job.session_id, job.view.id, exc)
                continue
            view = job.view
            agent.journal.append(events.job_lost(view.id, view.label, view.started_at, APP_CLOSED))
            agent.inject([TextBlock(text=lost_text(job))], "jobs", {"jobId": view.id})

    # ---- input control --------------------------------------------------------------------

    async def cancel(self, session_id: str, clear_queue: bool = False) -> bool:
        """Abort the running turn; queued input stays (the next item starts) unless
        `clear_queue`. A no-op on an idle or cold session."""
        agent = self.pool.get(session_id)
        if agent is None:
            await self._header(session_id)
            return False
        return agent.cancel("user", clear_queue=clear_queue)

    async def update_queue(self, session_id: str, item_id: str, action: Any) -> None:
        """`action` is a contract EditAction / RemoveAction / SteerAction (never resumes)."""
        await self._header(session_id)
        agent = self.pool.get(session_id)
        if agent is None:
            raise QueueItemNotFound(item_id, "the session has no queued input")
        content = self._blocks(action.content) if action.kind == "edit" else None
        agent.update_queue(item_id, action.kind, content)

    async def inject(
        self, session_id: str, text: str, plugin: str = "host", meta: dict[str, Any] | None = None
    ) -> str:
        """Context for the agent's next step (placement `context`); it never runs the model by
        itself. Returns the message id."""
        agent = await self.attach(session_id)
        return agent.inject([TextBlock(text=text)], plugin, meta)

    # ---- compaction and the context meter ---------------------------------------------------

    async def compact(self, session_id: str, command_id: str | None = None) -> compaction.CompactOutcome:
        """Summarise the session's conversation now (`/compact`); refused while a turn runs."""
        agent = await self.attach(session_id)
        return await agent.compact(command_id)

    def context_window(self, selection: ModelSelection) -> int:
        """Tokens the model holds: the configured value (the model's `contextWindow` setting, the
        built-in model's context size) when there is one, else the built-in table
        (docs/decisions.md, "Long sessions")."""
        window = self.registry.context_window(selection.provider, selection.model)
        return window or default_window(selection.provider, selection.model)

    async def context_projection(
        self, session_id: str, header: SessionHeader | None
    ) -> dict[str, int] | None:
        """`{tokens, window}`: live for an attached session, else from the newest answer's usage."""
        agent = self.pool.get(session_id)
        if agent is not None:
            return agent.context_view()
        if header is None:
            return None
        latest = await self.store.latest_of_types(session_id, ("assistant/message", "compact/summary"))
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
        window = self.context_window(self.current_selection(session_id, None, header))
        return {"tokens": tokens, "window": window}

    # ---- background jobs --------------------------------------------------------------------

    def job_control(self, session_id: str) -> SessionJobs:
        return SessionJobs(self.jobs, session_id)

    async def list_jobs(self, session_id: str) -> list[JobView]:
        await self._header(session_id)
        return self.jobs.views(session_id)

    async def stop_job(self, session_id: str, job_id: str) -> None:
        """End a job and every process it started (an ended job is left as it is)."""
        await self._header(session_id)
        await self.jobs.stop(session_id, job_id, "the user")

    async def job_output(
        self, session_id: str, job_id: str, offset: int | None, limit: int
    ) -> JobOutputValue:
        await self._header(session_id)
        return await self.jobs.read(session_id, job_id, offset, limit)

    def _publish_jobs(self, session_id: str, views: list[JobView]) -> None:
        self.bus.publish("mux", SessionJobsFrame(session_id=session_id, jobs=views))

    async def _job_ended(self, job: Job) -> None:
        """Tell the job's agent (as context for its next step) that the job ended."""
        agent = self.pool.get(job.session_id)
        if agent is None:
            return
        tail = await self.jobs.read(job.session_id, job.id, None, ENDED_TAIL_BYTES)
        agent.inject([TextBlock(text=ended_text(job, tail.text))], "jobs", {"jobId": job.id})
