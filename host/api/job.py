"""`job.*`: a session's background jobs (docs/architecture.md, "Background jobs")."""

from __future__ import annotations

from contract import jobs as j
from contract.methods import JOB_LIST, JOB_OUTPUT, JOB_STOP
from contract.sessions import Accepted
from host.api.registry import implements
from host.engine.engine import Engine


@implements(JOB_LIST)
async def list_jobs(engine: Engine, p: j.JobListRequest) -> j.JobListValue:
    return j.JobListValue(jobs=await engine.jobs.list_jobs(p.session_id))


@implements(JOB_STOP)
async def stop(engine: Engine, p: j.JobRef) -> Accepted:
    await engine.jobs.stop_job(p.session_id, p.job_id)
    return Accepted()


@implements(JOB_OUTPUT)
async def output(engine: Engine, p: j.JobOutputRequest) -> j.JobOutputValue:
    return await engine.jobs.job_output(p.session_id, p.job_id, p.offset, p.limit)
