"""Tools over the session's background jobs (docs/architecture.md, "Background jobs"):
`job_output` reads what a job printed, `job_stop` ends one. Starting one is `bash` with
`run_in_background`."""

from __future__ import annotations

from pydantic import Field

from contract.jobs import JobView
from host.engine.errors import JobNotFound
from host.engine.tools.base import JobControl, ToolContext, ToolOutput
from host.engine.tools.common import Args, BaseTool, ToolError

READ_LIMIT = 20_000
"""Bytes one job_output call returns (a long log is read in steps with `offset`)."""


def _jobs(ctx: ToolContext) -> JobControl:
    if ctx.jobs is None:
        raise ToolError("Background jobs are not available in this session.", "UNAVAILABLE")
    return ctx.jobs


def describe(job: JobView) -> str:
    state = job.status if not job.detail else f"{job.status} ({job.detail})"
    return f"Job {job.id} [{state}]: {job.label}"


class JobOutputArgs(Args):
    job_id: str = Field(alias="jobId", min_length=1, description="The id bash returned, e.g. bash-1.")
    offset: int | None = Field(
        default=None,
        ge=0,
        description="Byte offset to read from (an earlier read's nextOffset); omit it for the newest output.",
    )


class JobOutputTool(BaseTool):
    name = "job_output"
    description = (
        "Read the output of a background job (stdout and stderr, merged) and its status. Without an"
        f" offset you get the newest output (up to {READ_LIMIT} bytes); pass the nextOffset it reports"
        " to read on from there."
    )
    Arguments = JobOutputArgs

    async def execute(self, args: JobOutputArgs, ctx: ToolContext) -> ToolOutput:
        jobs = _jobs(ctx)
        try:
            read = await jobs.read(args.job_id, args.offset, READ_LIMIT)
            job = jobs.view(args.job_id)
        except JobNotFound as exc:
            raise ToolError(f"{exc}; jobs end when the app closes.", "NOT_FOUND") from None
        lines = [describe(job)]
        if read.dropped and read.offset == read.dropped:
            lines.append(f"[the first {read.dropped} bytes are no longer kept]")
        lines.append(
            f"[bytes {read.offset}-{read.next_offset} of {read.size}; nextOffset {read.next_offset}]"
        )
        lines.append(read.text if read.text else "(no output yet)")
        return ToolOutput("\n".join(lines))


class JobStopArgs(Args):
    job_id: str = Field(alias="jobId", min_length=1, description="The id bash returned, e.g. bash-1.")


class JobStopTool(BaseTool):
    name = "job_stop"
    description = "Stop a background job: the command and every process it started are ended."
    Arguments = JobStopArgs

    async def execute(self, args: JobStopArgs, ctx: ToolContext) -> ToolOutput:
        try:
            job = await _jobs(ctx).stop(args.job_id)
        except JobNotFound as exc:
            raise ToolError(f"{exc}; jobs end when the app closes.", "NOT_FOUND") from None
        return ToolOutput(describe(job))
