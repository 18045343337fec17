"""The `job.*` domain: background jobs an agent started (docs/architecture.md, "Background jobs").

A job is a command the agent runs with `bash {run_in_background: true}`; it belongs to its
session and dies with it. `session/jobs` frames carry the whole set after every change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract._base import WireModel
from contract.sessions import SessionId

JobStatus = Literal["running", "stopping", "completed", "killed", "failed"]


class JobView(WireModel):
    id: str = Field(min_length=1, description="`<kind>-N`, e.g. `bash-3`")
    kind: str = Field(min_length=1)
    label: str = Field(min_length=1)
    status: JobStatus
    detail: str | None = None
    started_at: int = Field(ge=0, description="ms since epoch")
    finished_at: int | None = Field(default=None, ge=0)


class JobRef(WireModel):
    session_id: SessionId
    job_id: str = Field(min_length=1, max_length=200)


# job.list
class JobListRequest(WireModel):
    session_id: SessionId


class JobListValue(WireModel):
    jobs: list[JobView]


# job.stop: JobRef -> sessions.Accepted


# job.output
MAX_OUTPUT_READ = 256 * 1024


class JobOutputRequest(WireModel):
    session_id: SessionId
    job_id: str = Field(min_length=1, max_length=200)
    offset: int | None = Field(default=None, ge=0, description="byte offset; absent = the last `limit` bytes")
    limit: int = Field(default=64 * 1024, gt=0, le=MAX_OUTPUT_READ)


class JobOutputValue(WireModel):
    text: str = Field(description="UTF-8 text of the bytes read (a split character becomes U+FFFD)")
    offset: int = Field(ge=0, description="where the text starts")
    next_offset: int = Field(ge=0, description="where the next read continues")
    size: int = Field(ge=0, description="bytes captured so far")
    dropped: int = Field(ge=0, description="bytes past the capture cap that were not kept")
