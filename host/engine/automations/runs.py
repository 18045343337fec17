"""Starting one run: a new session in its own worktree (or in the folder itself outside a git
repository), titled, set to the automation's model, preset and permission, its prompt sent as
the first message (docs/decisions/automations.md).

`Drive` is what a run needs from the engine, as callables, so this package depends on no
service directly.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from contract.sessions import AttachInput, PromptContent
from contract.worktrees import WorktreeSpec
from host.engine.automations.schedule import zone

if TYPE_CHECKING:
    from host.engine.agent.agent import Agent

SUMMARY_ASK = (
    "This task runs unattended: the person reads the result later in an inbox. When you are"
    " done, begin your final answer with one short line that sums up what you did or found."
)
"""Given to every run as context beside its prompt (the person's words stay as they wrote them):
the first line of the final answer is the run's summary."""

MAX_SUMMARY = 200

PROMPT: TypeAdapter[list[PromptContent]] = TypeAdapter(list[PromptContent])
ATTACH: TypeAdapter[list[AttachInput]] = TypeAdapter(list[AttachInput])


@dataclass(frozen=True)
class Drive:
    """The engine's parts a run uses."""

    create_session: Callable[[str, str, str | None, WorktreeSpec | None], Awaitable[str]]
    """(folder, the run's preallocated session id, agent preset, worktree or None) → session id."""
    rename: Callable[[str, str], Awaitable[Any]]
    set_permission: Callable[[str, str], Awaitable[Any]]
    select_model: Callable[[str, str, str], Awaitable[Any]]
    inject: Callable[[str, str], Awaitable[Any]]
    """(session, text): context for the session's next step."""
    prompt: Callable[[str, list[PromptContent], str, str, Sequence[AttachInput]], Awaitable[Any]]
    """(session, content, rpc id, time zone, attach)."""
    agent: Callable[[str], Agent | None]
    asking: Callable[[str], int]
    """How many approvals and questions the session waits on."""
    changed_files: Callable[[str], Awaitable[int]]
    discard: Callable[[str], Awaitable[None]]
    """Removes a run's session and its worktree."""
    exists: Callable[[str], Awaitable[bool]]
    pause_after_minutes: Callable[[], int]


def title(name: str, zone_name: str | None, now: datetime) -> str:
    return f"{name} — {now.astimezone(zone(zone_name)).strftime('%Y-%m-%d %H:%M')}"


def content_of(spec: dict[str, Any]) -> list[PromptContent]:
    return PROMPT.validate_python(spec["prompt"])


def attach_of(spec: dict[str, Any]) -> list[AttachInput]:
    return ATTACH.validate_python(spec.get("attach") or [])


async def launch(
    drive: Drive, spec: dict[str, Any], session_id: str, run_id: str, in_repository: bool, now: datetime
) -> None:
    """Create the run's session and send its prompt; raises what the engine raised."""
    worktree = WorktreeSpec() if in_repository else None
    sid = await drive.create_session(spec["cwd"], session_id, spec.get("preset"), worktree)
    zone_name = spec["trigger"].get("timeZone")
    await drive.rename(sid, title(spec["name"], zone_name, now))
    await drive.set_permission(sid, spec["permission"])
    model = spec.get("model")
    if model:
        provider, _, name = model.partition("/")
        await drive.select_model(sid, provider, name or provider)
    await drive.inject(sid, SUMMARY_ASK)
    await drive.prompt(sid, content_of(spec), run_id, zone(zone_name).key, attach_of(spec))


def summary_of(text: str) -> str:
    """The first line with words in it, without Markdown's leading marks, capped."""
    for line in text.splitlines():
        clean = line.strip().lstrip("#>*-• ").strip().strip("*_").strip()
        if clean.lower().startswith("summary:"):
            clean = clean[len("summary:") :].strip()
        if clean:
            return clean if len(clean) <= MAX_SUMMARY else clean[: MAX_SUMMARY - 1] + "…"
    return ""
