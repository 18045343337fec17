"""The session events the engine writes: one constructor per event type.

Each constructor builds the contract's data model (`contract/events.py`), so an event's type and
its shape are stated once and its wire JSON is always the model's (camelCase aliases, unset
optionals left out). The journal stamps the seq and the time (`NewEvent.stamp`). One module per
family of events; callers import from `host.engine.events` only.
"""

from __future__ import annotations

from host.engine.events.base import NewEvent
from host.engine.events.compaction import (
    compact_end,
    compact_start,
    compact_summary,
    inbox_spliced,
    job_lost,
    replacement,
    subagent_descriptor,
    subagent_spawned,
)
from host.engine.events.messages import (
    Role,
    approval_asked,
    approval_decided,
    assistant_chunk,
    assistant_message,
    files_restored,
    new_message,
    steering_message,
    todo_write,
    tool_call,
    tool_result,
    user_message,
)
from host.engine.events.session import (
    agent_preset_selected,
    approval_policy,
    command_done,
    command_run,
    end_seed,
    permission_preset,
    plan_mode,
    sandbox_mode,
    session_title,
)
from host.engine.events.turns import (
    aborted,
    blocked,
    completed,
    failed,
    goal_change,
    hook_invoked,
    hook_result,
    interrupted,
    max_tokens,
    prompt_blocked,
    request_header,
    request_retry,
    step_end,
    step_start,
    turn_end,
    turn_start,
)

__all__ = [
    "NewEvent",
    "Role",
    "aborted",
    "agent_preset_selected",
    "approval_asked",
    "approval_decided",
    "approval_policy",
    "assistant_chunk",
    "assistant_message",
    "blocked",
    "command_done",
    "command_run",
    "compact_end",
    "compact_start",
    "compact_summary",
    "completed",
    "end_seed",
    "failed",
    "files_restored",
    "goal_change",
    "hook_invoked",
    "hook_result",
    "inbox_spliced",
    "interrupted",
    "job_lost",
    "max_tokens",
    "new_message",
    "permission_preset",
    "plan_mode",
    "prompt_blocked",
    "replacement",
    "request_header",
    "request_retry",
    "sandbox_mode",
    "session_title",
    "steering_message",
    "step_end",
    "step_start",
    "subagent_descriptor",
    "subagent_spawned",
    "todo_write",
    "tool_call",
    "tool_result",
    "turn_end",
    "turn_start",
    "user_message",
]
