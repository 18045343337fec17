"""`hooks.approve` and the hook-file view the trust prompt shows (docs/decisions.md, "Hook
approval"): a project's `.harnessdesk/hooks.json` runs only once the person approved its exact
content; a changed file is inert until approved again."""

from __future__ import annotations

from pydantic import Field

from contract._base import WireModel
from contract.workspaces import WorkspaceId

Digest = str


class HookCommandView(WireModel):
    event: str
    matcher: str | None = None
    command: str


class HookFileView(WireModel):
    path: str
    digest: str = Field(description="sha256 of the file's bytes, what `hooks.approve` names")
    approved: bool = Field(description="this exact content was approved; otherwise the file is inert")
    commands: list[HookCommandView]
    problems: list[str] = Field(default_factory=list)


# hooks.approve (privileged)
class HooksApproveRequest(WireModel):
    workspace_id: WorkspaceId
    digest: Digest = Field(
        pattern=r"^[0-9a-f]{64}$",
        description="the digest of the content the person saw; refused when the file changed since",
    )


class HooksApproved(WireModel):
    path: str
    digest: str
