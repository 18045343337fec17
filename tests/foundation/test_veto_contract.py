"""The veto records and command codes of the contract (spec 07 §5): shapes as clients read them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from contract.errors import ERROR_MODELS
from contract.events import SessionEvent
from contract.vetoes import STDERR_SUMMARY_CHARS, stderr_summary


@pytest.mark.parametrize("code", ["command-error", "unknown-command"])
def test_command_codes_parse_with_empty_details_and_fail_without(code: str) -> None:
    model = ERROR_MODELS[code]
    parsed = model.model_validate({"code": code, "message": "unknown command /nope", "details": {}})
    assert parsed.dump() == {"code": code, "message": "unknown command /nope", "details": {}}
    with pytest.raises(ValidationError):
        model.model_validate({"code": code, "message": "m"})
    with pytest.raises(ValidationError):
        model.model_validate({"code": code, "message": "m", "details": {"extra": 1}})


def test_internal_carries_a_goal_code_or_nothing() -> None:
    model = ERROR_MODELS["internal"]
    assert model.model_validate({"code": "internal", "message": "m", "details": {}}).dump()["details"] == {}
    goal = {"code": "internal", "message": "stale", "details": {"goalCode": "GOAL_STALE_REVISION"}}
    assert model.model_validate(goal).dump() == goal
    with pytest.raises(ValidationError):
        model.model_validate({"code": "internal", "message": "m", "details": {"goalCode": "NOPE"}})


def event(etype: str, data: dict[str, object]) -> SessionEvent:
    return SessionEvent.model_validate({"type": etype, "seq": 3, "time": 5, "data": data})


def test_prompt_blocked_and_hook_records_validate_as_the_spec_writes_them() -> None:
    event(
        "prompt/blocked",
        {
            "content": [{"type": "text", "text": "rm -rf the build dir"}],
            "source": {"kind": "user", "rpcId": "9b2"},
            "reason": "Destructive requests need a ticket number.",
        },
    )
    invoked = {
        "turn": 9,
        "point": "UserPromptSubmit",
        "dialect": "claude",
        "handlerId": "claude:UserPromptSubmit:4",
    }
    event("hook/invoked", invoked)
    result = {
        "turn": 9,
        "point": "UserPromptSubmit",
        "handlerId": "claude:UserPromptSubmit:4",
        "decision": "block",
        "exitCode": 2,
        "stderrSummary": "Destructive requests need a ticket number.",
        "durationMs": 812,
    }
    event("hook/result", result)
    for bad in ({**invoked, "dialect": "vim"}, {**invoked, "handlerId": ""}):
        with pytest.raises(ValidationError):
            event("hook/invoked", bad)
    with pytest.raises(ValidationError):
        event("hook/result", {**result, "durationMs": -1})
    with pytest.raises(ValidationError):
        event("prompt/blocked", {"content": [], "source": {"kind": "user"}, "reason": ""})


def test_the_stderr_summary_is_trimmed_cut_and_omitted_when_empty() -> None:
    assert stderr_summary("  \n ") is None
    assert stderr_summary("  denied \n") == "denied"
    long = stderr_summary("x" * 2000)
    assert long is not None and len(long) == STDERR_SUMMARY_CHARS + 1 and long.endswith("…")
