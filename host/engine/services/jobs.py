"""`engine.jobs`: a session's background jobs (docs/architecture.md, "Background jobs"): listing,
stopping and reading them, telling an agent that its job ended, and recording at start the jobs
a crash lost."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from contract.content import TextBlock
from contract.frames import SessionJobs as SessionJobsFrame
from contract.jobs import JobOutputValue, JobView
from host.engine.agent.agent import Agent
from host.engine.sessions import events
from host.engine.sessions.bus import Bus
from host.engine.sessions.lookup import Header
from host.engine.tools.background_jobs import Job, JobRegistry, SessionJobs, ended_text
from host.engine.tools.lost_jobs import APP_CLOSED, lost_text

log = logging.getLogger(__name__)

JOBS_DIR = "jobs"
ENDED_TAIL_BYTES = 2_000
"""How much of an ended job's output its agent is shown (the rest via job_output)."""


class Jobs:
    """Background jobs: list, stop, output, and the jobs a crash lost."""

    def __init__(self, data_dir: Path, bus: Bus, header: Header, live: Callable[[str], Agent | None]) -> None:
        """Built before the agent pool (its tools reach `control`): `live` looks an attached
        agent up in the pool's map."""
        self._bus = bus
        self._header = header
        self._live = live
        self._registry = JobRegistry(data_dir / JOBS_DIR, self._publish, self._ended)
        self._lost = self._registry.clear_leftovers()

    async def record_lost_jobs(self, attach: Callable[[str], Awaitable[Agent]]) -> None:
        """At start (once the pool can `attach`): each job the previous run lost in a crash gets
        a `job/lost` in its session (shown in its log) and its agent is told as context. A session
        that cannot be loaded is logged in one line and never stops the start."""
        lost, self._lost = self._lost, []
        for job in lost:
            try:
                agent = await attach(job.session_id)
            except Exception as exc:
                log.error("session %s could not record its lost job %s: %s", job.session_id, job.view.id, exc)
                continue
            view = job.view
            agent.journal.append(events.job_lost(view.id, view.label, view.started_at, APP_CLOSED))
            agent.input.inject([TextBlock(text=lost_text(job))], "jobs", {"jobId": view.id})

    def control(self, session_id: str) -> SessionJobs:
        """What a session's tools reach (`bash` in the background, `job_output`, `job_stop`)."""
        return SessionJobs(self._registry, session_id)

    def sessions(self) -> list[str]:
        """The sessions with jobs to show (for the mux snapshot)."""
        return list(self._registry.sessions())

    def job(self, session_id: str, job_id: str) -> Job:
        """One job of the session (its `ended` event is set when it ends); JobNotFound if none."""
        return self._registry.get(session_id, job_id)

    def views(self, session_id: str) -> list[JobView]:
        return self._registry.views(session_id)

    async def list_jobs(self, session_id: str) -> list[JobView]:
        await self._header(session_id)
        return self._registry.views(session_id)

    async def stop_job(self, session_id: str, job_id: str) -> None:
        """End a job and every process it started (an ended job is left as it is)."""
        await self._header(session_id)
        await self._registry.stop(session_id, job_id, "the user")

    async def job_output(
        self, session_id: str, job_id: str, offset: int | None, limit: int
    ) -> JobOutputValue:
        await self._header(session_id)
        return await self._registry.read(session_id, job_id, offset, limit)

    async def dispose_session(self, session_id: str) -> None:
        """A deleted session's jobs end with it."""
        await self._registry.dispose_session(session_id)

    async def close(self, bound: float | None = None) -> None:
        await self._registry.close(bound)

    def _publish(self, session_id: str, views: list[JobView]) -> None:
        self._bus.publish("mux", SessionJobsFrame(session_id=session_id, jobs=views))

    async def _ended(self, job: Job) -> None:
        """Tell the job's agent (as context for its next step) that the job ended."""
        agent = self._live(job.session_id)
        if agent is None:
            return
        tail = await self._registry.read(job.session_id, job.id, None, ENDED_TAIL_BYTES)
        agent.input.inject([TextBlock(text=ended_text(job, tail.text))], "jobs", {"jobId": job.id})
