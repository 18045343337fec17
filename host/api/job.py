"""`job.*`: a session's background jobs (docs/architecture.md, "Background jobs")."""

from __future__ import annotations

from contract import jobs as j
from contract.sessions import Accepted
from host.api.registry import implements
from host.engine.engine import Engine


@implements("job.list")
async def list_jobs(engine: Engine, p: j.JobListRequest) -> j.JobListValue:
    return j.JobListValue(jobs=await engine.jobs.list_jobs(p.session_id))


@implements("job.stop")
async def stop(engine: Engine, p: j.JobRef) -> Accepted:
    await engine.jobs.stop_job(p.session_id, p.job_id)
    return Accepted()


@implements("job.output")
async def output(engine: Engine, p: j.JobOutputRequest) -> j.JobOutputValue:
    return await engine.jobs.job_output(p.session_id, p.job_id, p.offset, p.limit)
