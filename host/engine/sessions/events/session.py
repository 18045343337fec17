"""Session-level events: the title, the end of a seed, presets, commands, plan mode, permissions."""

from __future__ import annotations

from typing import Literal

from contract.commands import CommandDone, CommandOutcome, CommandRun, CommandSource, PlanMode
from contract.events import (
    ApprovalPolicySet,
    EndSeed,
    PermissionPresetSet,
    SandboxModeSet,
    SessionRewound,
    SessionTitle,
    TitleSource,
)
from contract.filechange import RestoredFile
from contract.presets import AgentPresetSelected
from host.engine.sessions.events.base import NewEvent


def session_title(title: str, kind: Literal["user", "auto"]) -> NewEvent[SessionTitle]:
    return NewEvent("session/title", SessionTitle(title=title, source=TitleSource(kind=kind)))


def end_seed() -> NewEvent[EndSeed]:
    return NewEvent("session/end-seed", EndSeed())


def agent_preset_selected(agent_preset: str) -> NewEvent[AgentPresetSelected]:
    return NewEvent("agent-preset/selected", AgentPresetSelected(agent_preset=agent_preset))


def command_run(command_id: str, name: str, args: str | None) -> NewEvent[CommandRun]:
    run = CommandRun(command_id=command_id, name=name, args=args, source=CommandSource(kind="user"))
    return NewEvent("command/run", run)


def command_done(
    command_id: str, kind: CommandOutcome, text: str | None, source_event_seq: int | None = None
) -> NewEvent[CommandDone]:
    done = CommandDone(command_id=command_id, kind=kind, text=text, source_event_seq=source_event_seq)
    return NewEvent("command/done", done)


def plan_mode(active: bool) -> NewEvent[PlanMode]:
    return NewEvent("plan/mode", PlanMode(active=active))


def permission_preset(preset: str) -> NewEvent[PermissionPresetSet]:
    return NewEvent("permission/preset", PermissionPresetSet(preset=preset))


def sandbox_mode(
    mode: str, mechanism: str | None = None, network: bool | None = None
) -> NewEvent[SandboxModeSet]:
    return NewEvent("sandbox/mode", SandboxModeSet(mode=mode, mechanism=mechanism, network=network))


def approval_policy(policy: str) -> NewEvent[ApprovalPolicySet]:
    return NewEvent("approval/policy", ApprovalPolicySet(policy=policy))


def session_rewound(at_seq: int, restored: list[RestoredFile]) -> NewEvent[SessionRewound]:
    """The session rewound in place to the message at `at_seq` (docs/decisions.md, "Rewind in
    place")."""
    return NewEvent("session/rewound", SessionRewound(at_seq=at_seq, restored_files=restored))
