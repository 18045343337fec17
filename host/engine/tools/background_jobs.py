"""Background jobs (docs/architecture.md, "Background jobs").

`bash {command, run_in_background: true}` starts the command below the supervisor
(host/procs/supervise.py) in a process group of its own and returns the job's id at once. Its
output (stdout and stderr merged) reaches a copier thread through a pipe and goes to a file under
`<data dir>/jobs/`, which keeps only the newest `OUTPUT_CAP` bytes (docs/decisions.md,
"Long sessions"). A job ends by itself (completed / failed), by `job.stop` or the agent's
`job_stop` (killed), with its session's disposal, or with the app: the supervisor kills every
descendant, and it is signalled when the host dies (PDEATHSIG).

Every change of a session's jobs is published as a full `session/jobs` snapshot; an ended job is
reported to its agent as context (`on_end`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import secrets
import shutil
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from contract.jobs import JobOutputValue, JobStatus, JobView
from host.engine.errors import AgentBusy, JobNotFound
from host.engine.sandbox import SandboxPolicy
from host.engine.sessions.journal import now_ms
from host.engine.tools.bash import command_environment, start_shielded, supervised, terminate
from host.engine.tools.lost_jobs import LostJob, find_lost, read_output, remove_manifest, write_manifest

log = logging.getLogger(__name__)

OUTPUT_CAP = 4 * 1024 * 1024
"""Bytes of output kept per job: the newest ones (the file is cut to its newer half when full)."""
MAX_RUNNING = 8
"""Running jobs per session; another start is refused until one ends."""
KEEP_ENDED = 20
"""Ended jobs a session keeps listed (older ones are forgotten and their files removed)."""
DRAIN_BOUND = 2.0
"""Seconds to wait for the last output after the command ended."""
LABEL_MAX = 120


class OutputFile:
    """The newest ≤ `cap` bytes of a stream in a file; offsets count from the stream's start."""

    def __init__(self, path: Path, cap: int = OUTPUT_CAP) -> None:
        self.path = path
        self.cap = cap
        self.base = 0
        """Stream offset of the file's first byte (bytes before it were dropped)."""
        self.size = 0
        """Bytes the stream has produced."""
        self._lock = threading.Lock()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        self._fh = os.fdopen(fd, "w+b", buffering=0)

    def write(self, data: bytes) -> None:
        with self._lock:
            self._fh.seek(0, os.SEEK_END)
            self._fh.write(data)
            self.size += len(data)
            if self.size - self.base > self.cap:
                keep = self.cap // 2
                self._fh.seek(self.size - self.base - keep)
                newest = self._fh.read(keep)
                self._fh.seek(0)
                self._fh.write(newest)
                self._fh.truncate(len(newest))
                self.base = self.size - len(newest)

    def read(self, offset: int | None, limit: int) -> tuple[bytes, int]:
        """(bytes, their stream offset): from `offset` (or the newest `limit` bytes)."""
        with self._lock:
            start = self.size - limit if offset is None else offset
            start = min(max(start, self.base), self.size)
            self._fh.seek(start - self.base)
            return self._fh.read(min(limit, self.size - start)), start

    def close(self) -> None:
        with self._lock:
            self._fh.close()


def _copy(fd: int, out: OutputFile) -> None:
    """The copier thread: pipe → file until every writer has closed the pipe."""
    try:
        while data := os.read(fd, 65536):
            out.write(data)
    except (OSError, ValueError):
        log.exception("copying a job's output to %s failed", out.path)
    finally:
        os.close(fd)


@dataclass(eq=False)
class Job:
    id: str
    session_id: str
    label: str
    out: OutputFile
    proc: asyncio.subprocess.Process
    copier: threading.Thread
    started_at: int = field(default_factory=now_ms)
    status: JobStatus = "running"
    finished_at: int | None = None
    exit_code: int | None = None
    stopped_by: str | None = None
    ended: asyncio.Event = field(default_factory=asyncio.Event)

    def view(self) -> JobView:
        detail = None
        if self.stopped_by is not None:
            detail = f"stopped by {self.stopped_by}"
        elif self.exit_code is not None:
            code = self.exit_code
            detail = f"exit code {code}" if code < 128 else f"ended by signal {code - 128}"
        return JobView(
            id=self.id,
            kind="bash",
            label=self.label,
            status=self.status,
            detail=detail,
            started_at=self.started_at,
            finished_at=self.finished_at,
        )


def _label(command: str) -> str:
    flat = " ".join(command.split())
    return flat if len(flat) <= LABEL_MAX else flat[: LABEL_MAX - 1] + "…"


class JobRegistry:
    def __init__(
        self,
        directory: Path,
        publish: Callable[[str, list[JobView]], None],
        on_end: Callable[[Job], Awaitable[None]],
    ) -> None:
        self.directory = directory
        self._publish = publish
        self._on_end = on_end
        self._jobs: dict[str, dict[str, Job]] = {}
        self._lost: dict[str, dict[str, LostJob]] = {}
        """Jobs the previous run lost in a crash, per session (listed until the session closes)."""
        self._numbers = itertools.count(1)
        self._watchers: set[asyncio.Task[None]] = set()
        self._closed = False

    def clear_leftovers(self) -> list[LostJob]:
        """Files of a run that did not end cleanly (its jobs died with it): the jobs it lost are
        kept listed with their output; every other file goes. Returns the lost jobs."""
        lost = find_lost(self.directory)
        keep = {job.output for job in lost}
        if self.directory.is_dir():
            for entry in self.directory.iterdir():
                if entry not in keep:
                    with contextlib.suppress(OSError):
                        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        highest = 0
        for job in lost:
            self._lost.setdefault(job.session_id, {})[job.view.id] = job
            number = job.view.id.rpartition("-")[2]
            highest = max(highest, int(number) if number.isdigit() else 0)
        self._numbers = itertools.count(highest + 1)  # a new job never takes a lost one's id
        return lost

    # ---- reading --------------------------------------------------------------------------

    def sessions(self) -> list[str]:
        return [sid for sid in {**self._lost, **self._jobs} if self._jobs.get(sid) or self._lost.get(sid)]

    def views(self, session_id: str) -> list[JobView]:
        lost = [job.view for job in self._lost.get(session_id, {}).values()]
        return lost + [job.view() for job in self._jobs.get(session_id, {}).values()]

    def get(self, session_id: str, job_id: str) -> Job:
        job = self._jobs.get(session_id, {}).get(job_id)
        if job is None:
            raise JobNotFound(session_id, job_id)
        return job

    async def read(self, session_id: str, job_id: str, offset: int | None, limit: int) -> JobOutputValue:
        lost = self._lost.get(session_id, {}).get(job_id)
        if lost is not None:
            data, start, size = await asyncio.to_thread(read_output, lost.output, offset, limit)
            text = data.decode("utf-8", errors="replace")
            return JobOutputValue(
                text=text, offset=start, next_offset=start + len(data), size=size, dropped=0
            )
        job = self.get(session_id, job_id)
        data, start = await asyncio.to_thread(job.out.read, offset, limit)
        return JobOutputValue(
            text=data.decode("utf-8", errors="replace"),
            offset=start,
            next_offset=start + len(data),
            size=job.out.size,
            dropped=job.out.base,
        )

    # ---- starting and stopping ------------------------------------------------------------

    async def start(
        self, session_id: str, command: str, cwd: Path, sandbox: SandboxPolicy | None = None
    ) -> Job:
        if self._closed:
            raise AgentBusy("the host is shutting down")
        jobs = self._jobs.setdefault(session_id, {})
        if sum(1 for j in jobs.values() if j.status in ("running", "stopping")) >= MAX_RUNNING:
            raise AgentBusy(f"{MAX_RUNNING} background jobs are running in this session; stop one first")
        job_id = f"bash-{next(self._numbers)}"
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        out = OutputFile(self.directory / f"{job_id}-{secrets.token_hex(4)}.log")
        started_at = now_ms()
        read_end, write_end = os.pipe()
        try:
            write_manifest(out.path, session_id, job_id, _label(command), started_at)
            proc = await start_shielded(  # a cancel here still ends what it started
                supervised(command, end_leftovers=True, sandbox=sandbox),
                cwd=cwd,
                env=command_environment(),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_end,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except BaseException:
            os.close(read_end)
            out.close()
            out.path.unlink(missing_ok=True)
            remove_manifest(out.path)
            raise
        finally:
            os.close(write_end)
        copier = threading.Thread(target=_copy, args=(read_end, out), name=f"job-{job_id}", daemon=True)
        copier.start()
        job = Job(job_id, session_id, _label(command), out, proc, copier, started_at)
        jobs[job_id] = job
        watcher = asyncio.create_task(self._watch(job), name=f"job-{job_id}")
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
        self._forget_old(session_id)
        self._changed(session_id)
        return job

    async def stop(self, session_id: str, job_id: str, by: str) -> Job:
        """End a running job and its whole process tree; an ended job is left as it is."""
        job = self.get(session_id, job_id)
        if job.status == "running":
            job.status = "stopping"
            job.stopped_by = by
            self._changed(session_id)
            with contextlib.suppress(ProcessLookupError, TimeoutError):
                await terminate(job.proc)
        await job.ended.wait()
        return job

    async def dispose_session(self, session_id: str) -> None:
        """Every job of the session ends; the session's list becomes empty."""
        lost = self._lost.pop(session_id, {})
        for gone in lost.values():
            gone.output.unlink(missing_ok=True)
        jobs = self._jobs.get(session_id)
        if not jobs:
            if lost:
                self._publish(session_id, [])
            return
        await asyncio.gather(
            *(self.stop(session_id, j.id, "the session closing") for j in list(jobs.values())),
            return_exceptions=True,
        )
        for job in jobs.values():
            job.out.close()
            job.out.path.unlink(missing_ok=True)
        self._jobs.pop(session_id, None)
        self._publish(session_id, [])

    async def close(self, bound: float | None = None) -> None:
        """The app is closing: every job ends, the files go. Waits at most `bound` seconds (a
        stop signal): a supervisor still killing its tree is signalled again when the host
        exits (PDEATHSIG), so nothing outlives the app."""
        self._closed = True
        self._lost.clear()
        ending = [asyncio.ensure_future(self.dispose_session(sid)) for sid in list(self._jobs)]
        if ending:
            done, late = await asyncio.wait(ending, timeout=None if bound is None else max(0.0, bound))
            for task in done:
                if task.exception() is not None:
                    log.error("ending a session's jobs failed: %s", task.exception())
            if late:
                log.warning("%d session(s) still ending their jobs at shutdown", len(late))
        shutil.rmtree(self.directory, ignore_errors=True)

    # ---- the watcher ----------------------------------------------------------------------

    async def _watch(self, job: Job) -> None:
        code = await job.proc.wait()
        await asyncio.to_thread(job.copier.join, DRAIN_BOUND)
        remove_manifest(job.out.path)  # it ended while the app ran: not lost to a crash
        job.exit_code = code
        job.finished_at = now_ms()
        job.status = "killed" if job.stopped_by is not None else "completed" if code == 0 else "failed"
        job.ended.set()
        self._changed(job.session_id)
        if not self._closed and job.stopped_by != "the session closing":
            try:
                await self._on_end(job)
            except Exception:
                log.exception("reporting the end of job %s failed", job.id)

    def _forget_old(self, session_id: str) -> None:
        jobs = self._jobs.get(session_id, {})
        ended = [j for j in jobs.values() if j.ended.is_set()]
        for job in ended[: max(0, len(ended) - KEEP_ENDED)]:
            del jobs[job.id]
            job.out.close()
            job.out.path.unlink(missing_ok=True)

    def _changed(self, session_id: str) -> None:
        self._publish(session_id, self.views(session_id))


class SessionJobs:
    """One session's jobs as its tools see them (`host.engine.tools.base.JobControl`)."""

    def __init__(self, registry: JobRegistry, session_id: str) -> None:
        self._registry = registry
        self._session_id = session_id

    async def start(self, command: str, cwd: Path, sandbox: SandboxPolicy | None = None) -> JobView:
        return (await self._registry.start(self._session_id, command, cwd, sandbox)).view()

    async def read(self, job_id: str, offset: int | None, limit: int) -> JobOutputValue:
        return await self._registry.read(self._session_id, job_id, offset, limit)

    async def stop(self, job_id: str) -> JobView:
        return (await self._registry.stop(self._session_id, job_id, "the agent")).view()

    def view(self, job_id: str) -> JobView:
        return self._registry.get(self._session_id, job_id).view()


def ended_text(job: Job, tail: str) -> str:
    """What the agent is told when one of its jobs ends (placement `context`)."""
    view = job.view()
    seconds = max(0, ((job.finished_at or job.started_at) - job.started_at) // 1000)
    lines = [
        f"Background job {job.id} ended: {view.status}"
        + (f" ({view.detail})" if view.detail else "")
        + f" after {seconds} s.",
        f"Command: {job.label}",
    ]
    if tail.strip():
        lines += ["Last output:", tail.rstrip("\n")]
    else:
        lines.append("It printed nothing.")
    lines.append(f'Full output: job_output {{"jobId": "{job.id}"}}')
    return "\n".join(lines)
