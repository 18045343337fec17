"""The method map's rows and their policies (contract/methods.py; docs/architecture.md, "Method
map"): every method whose request names a session says what it does to it, and one that changes
it is subagent-fenced or says why it is not."""

from __future__ import annotations

import pytest

import contract.methods as methods
from contract import sessions as s
from contract.methods import METHODS, Method, policy_problems
from contract.workspaces import WorkspaceListRequest, WorkspaceListValue


def test_every_row_declares_its_session_policy() -> None:
    problems = [p for m in METHODS.values() for p in policy_problems(m)]
    assert problems == []


def test_the_rows_that_change_a_session_are_fenced_or_say_why() -> None:
    changing = [m for m in METHODS.values() if m.session == "changes"]
    assert {"session.prompt", "session.delete", "goal.clear", "permission.set"} <= {m.key for m in changing}
    for m in changing:
        assert m.subagent_fenced != bool(m.unfenced_because.strip()), m.key
    assert METHODS["session.prompt"].subagent_fenced and METHODS["job.stop"].unfenced_because


def test_a_row_that_changes_a_session_unfenced_and_silent_is_a_problem() -> None:
    silent = Method("session.poke", s.CancelRequest, s.Accepted, session="changes")
    assert policy_problems(silent) == [
        "session.poke: changes a session: subagent_fenced=True, or unfenced_because='why'"
    ]
    why = Method("session.poke", s.CancelRequest, s.Accepted, session="changes", unfenced_because="x")
    assert policy_problems(why) == []
    fenced = Method("session.poke", s.CancelRequest, s.Accepted, session="changes", subagent_fenced=True)
    assert policy_problems(fenced) == []


def test_a_request_naming_a_session_needs_a_policy_and_only_then() -> None:
    unsaid = Method("session.poke", s.CancelRequest, s.Accepted)
    assert policy_problems(unsaid) == [
        "session.poke: its request carries sessionId: say session='reads' or 'changes'"
    ]
    stray = Method("workspace.poke", WorkspaceListRequest, WorkspaceListValue, subagent_fenced=True)
    assert policy_problems(stray) == [
        "workspace.poke: its request carries no sessionId: no session policy applies"
    ]
    reasoned = Method(
        "session.poke", s.CancelRequest, s.Accepted, session="reads", unfenced_because="reads only"
    )
    assert policy_problems(reasoned) == [
        "session.poke: unfenced_because is only for a method that changes a session unfenced"
    ]


def test_each_handle_is_named_after_its_key_and_is_the_registered_row() -> None:
    for m in METHODS.values():
        assert getattr(methods, m.constant) is m
    assert methods.SESSION_SELECT_MODEL.key == "session.selectModel"
    assert methods.AGENT_PRESET_OPEN_DOCUMENT.key == "agentPreset.openDocument"
    misnamed = {"SESSION_LISTING": Method("session.list", s.ListRequest, s.ListValue)}
    with pytest.raises(TypeError, match="must be named SESSION_LIST, not SESSION_LISTING"):
        methods._collect(misnamed)


def test_policies_are_keywords_only() -> None:
    with pytest.raises(TypeError):
        Method("session.list", s.ListRequest, s.ListValue, True)  # type: ignore[call-arg]  # the point
    assert not hasattr(methods.SESSION_LIST, "version"), "version meant nothing and went (docs/decisions.md)"
