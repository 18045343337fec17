"""The `automation.*` domain: prompts that run by themselves — on a schedule, when files change,
or on demand — each run a new session in its own worktree, its result in an inbox
(docs/decisions/automations.md).

A run is a session like any other (`session.*` reads and drives it); what this domain adds is the
automation itself, its trigger, and the run's row: when it ran, how it ended (`outcome`), the
one-line summary it wrote, and whether the person has seen it.
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime
from typing import Annotated, Literal, Union

from cronsim import CronSim, CronSimError
from pydantic import Field, field_validator, model_validator

from contract._base import WireModel
from contract.paths import HostPath
from contract.remotes import HostId
from contract.sessions import AttachInput, PromptContent

AutomationId = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")]
RunId = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")]

AutomationPermission = Literal["auto", "read-only", "danger-full-access"]
"""Auto or Read-only; Full access only with `confirmFullAccess` (the person saw the warning)."""

RunOutcome = Literal["running", "changed", "answered", "needs-you", "failed"]
"""`changed`: the run left changed files (`changedFiles`); `answered`: it changed none;
`needs-you`: it waits on an approval or a question (paused after the setting's time); `failed`:
the model or the host failed, or the app stopped during the run."""

MAX_GLOBS = 20
MAX_CRON = 200


def cron_problem(expression: str) -> str | None:
    """Why `expression` is not a five-field cron expression the scheduler accepts, or None."""
    if len(expression.split()) != 5:
        return "a cron expression has five fields: minute hour day-of-month month day-of-week"
    try:
        CronSim(expression, datetime(2000, 1, 1, tzinfo=UTC))
    except CronSimError as exc:
        return f"not a cron expression: {exc}"
    return None


def zone_problem(name: str) -> str | None:
    """Why `name` is not an IANA time zone this host knows, or None."""
    if not name or "\x00" in name or name.startswith(("/", ".")) or ".." in name:
        return f"{name!r} is not an IANA time zone name"
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return f"{name!r} is not an IANA time zone name (like Europe/Berlin)"
    return None


class ScheduleTrigger(WireModel):
    """Runs at each time the cron expression names, in `timeZone` (default: the host's)."""

    kind: Literal["schedule"] = "schedule"
    cron: str = Field(min_length=1, max_length=MAX_CRON)
    time_zone: str | None = Field(default=None, max_length=100)

    @field_validator("cron")
    @classmethod
    def _cron(cls, v: str) -> str:
        v = " ".join(v.split())
        problem = cron_problem(v)
        if problem:
            raise ValueError(problem)
        return v

    @field_validator("time_zone")
    @classmethod
    def _zone(cls, v: str | None) -> str | None:
        if v is None:
            return v
        problem = zone_problem(v)
        if problem:
            raise ValueError(problem)
        return v


Glob = Annotated[str, Field(min_length=1, max_length=500)]


class FilesTrigger(WireModel):
    """Runs when files matching `paths` (globs relative to the automation's folder) change."""

    kind: Literal["files"] = "files"
    paths: list[Glob] = Field(min_length=1, max_length=MAX_GLOBS)

    @field_validator("paths")
    @classmethod
    def _inside(cls, v: list[str]) -> list[str]:
        for glob in v:
            parts = glob.replace("\\", "/").split("/")
            if glob.startswith(("/", "~")) or ".." in parts or "\x00" in glob:
                raise ValueError(f"{glob!r}: a pattern inside the folder, without '..'")
        return v


class ManualTrigger(WireModel):
    """Runs only on `automation.runNow`."""

    kind: Literal["manual"] = "manual"


Trigger = Annotated[Union[ScheduleTrigger, FilesTrigger, ManualTrigger], Field(discriminator="kind")]

Name = Annotated[str, Field(min_length=1, max_length=200)]


class _OnHost(WireModel):
    """`hostId`: a remote host's id (remote.list): the relay makes the call there, so the automation
    lives and runs on that host (docs/decisions/automations.md); absent: this host."""

    host_id: HostId | None = None


class _Fields(_OnHost):
    """What `create` sets and `update` changes (`update` leaves an absent field as it is)."""

    @model_validator(mode="after")
    def _full_access_confirmed(self) -> _Fields:
        if getattr(self, "permission", None) == "danger-full-access" and not getattr(
            self, "confirm_full_access", False
        ):
            raise ValueError("Full access needs confirmFullAccess: true (the person saw the warning)")
        return self


class AutomationCreateRequest(_Fields):
    name: Name
    cwd: HostPath = Field(min_length=1)
    prompt: list[PromptContent] = Field(min_length=1)
    attach: list[AttachInput] = Field(default_factory=list, max_length=20)
    """Files and folders of the run's folder sent with the prompt (`@` in the composer)."""
    model: str | None = Field(default=None, max_length=400, description="`provider/model`; absent: default")
    preset: str | None = Field(default=None, max_length=200, description="the agent preset")
    permission: AutomationPermission = "auto"
    confirm_full_access: bool = False
    trigger: Trigger
    enabled: bool = True


class AutomationUpdateRequest(_Fields):
    automation_id: AutomationId
    name: Name | None = None
    cwd: HostPath | None = Field(default=None, min_length=1)
    prompt: list[PromptContent] | None = Field(default=None, min_length=1)
    attach: list[AttachInput] | None = Field(default=None, max_length=20)
    model: str | None = Field(default=None, max_length=400)
    preset: str | None = Field(default=None, max_length=200)
    permission: AutomationPermission | None = None
    confirm_full_access: bool = False
    trigger: Trigger | None = None
    enabled: bool | None = None


class AutomationRef(_OnHost):
    automation_id: AutomationId


class AutomationCreated(WireModel):
    automation_id: str


class AutomationDone(WireModel):
    done: Literal[True] = True


class RunRef(_OnHost):
    run_id: RunId


class AutomationRun(WireModel):
    run_id: str
    automation_id: str
    automation_name: str = ""
    session_id: str | None = Field(default=None, description="null only while the run is being set up")
    started_at: int = Field(description="ms since the epoch")
    ended_at: int | None = None
    outcome: RunOutcome
    changed_files: int = Field(default=0, ge=0)
    summary: str = ""
    read: bool = False
    archived: bool = False


class AutomationItem(WireModel):
    automation_id: str
    name: str
    cwd: str
    prompt: list[PromptContent]
    attach: list[AttachInput] = Field(default_factory=list)
    model: str | None = None
    preset: str | None = None
    trigger: Trigger
    permission: AutomationPermission
    enabled: bool
    next_run_at: int | None = Field(default=None, description="ms since the epoch; null: not scheduled")
    last_run: AutomationRun | None = None


class AutomationListRequest(_OnHost):
    """The automations of this host, or of the remote host `hostId`."""


class AutomationListValue(WireModel):
    items: list[AutomationItem]


class AutomationRunNowValue(WireModel):
    run_id: str
    session_id: str


class AutomationRunsRequest(_OnHost):
    automation_id: AutomationId | None = None
    archived: bool = Field(default=False, description="also the archived runs")


class AutomationRunsValue(WireModel):
    items: list[AutomationRun]
