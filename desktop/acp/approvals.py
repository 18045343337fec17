"""Approvals and questions of an ACP session: the host's `approval/requested` becomes the
editor's permission request, and its answer goes back as the client-response; a question is
declined (ACP v1 has none). Kept apart from the agent's plumbing (desktop/acp/agent.py)."""

from __future__ import annotations

import logging
from typing import Any

from acp.schema import PermissionOption, ToolCallUpdate

from desktop.acp.session import AcpSession
from host.fetch.client import AbstractApiClient

log = logging.getLogger("desktop.acp")

PERMISSION_OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
]
OUTCOMES = {"allow_once": "allowed-once", "allow_always": "allowed-always", "reject_once": "rejected"}
NO_CHANNEL_NOTE = "no approval channel: the editor could not ask the person"


async def ask_permission(
    conn: Any, client: AbstractApiClient, session: AcpSession, rpc_id: str, frame: Any
) -> None:
    """Ask the editor (`session/request_permission`) and answer the host's `approval/requested`
    with its choice; an editor that cannot ask is a rejection with a note for the model."""
    call_id = frame.call_id or frame.approval_id
    opened = session.mapper.calls.get(call_id)
    tool_call = ToolCallUpdate(
        tool_call_id=call_id,
        title=frame.reason or (opened and f"{frame.tool_name}") or frame.tool_name,
        kind=session.kind_of(frame.tool_name),  # type: ignore[arg-type]
        raw_input=frame.arguments,
        status="pending",
    )
    await session.flushed()  # the client has seen the tool_call before it is asked
    note: str | None = None
    try:
        answer = await conn.request_permission(
            session_id=session.id, tool_call=tool_call, options=PERMISSION_OPTIONS
        )
        outcome = answer.outcome
        if getattr(outcome, "outcome", "") != "selected":
            error = {"code": "cancelled", "message": "the editor cancelled the request", "details": {}}
            await client.respond(rpc_id, {"ok": False, "error": error})
            return
        decision = OUTCOMES.get(outcome.option_id, "rejected")
    except Exception as exc:  # the client cannot ask (method not found, …): a rejection
        log.info("permission request failed: %s", exc)
        decision, note = "rejected", NO_CHANNEL_NOTE
    value: dict[str, Any] = {"sessionId": frame.session_id, "approvalId": frame.approval_id}
    value["outcome"] = decision
    if note is not None:
        value["note"] = note
    await client.respond(rpc_id, {"ok": True, "value": value})
    if decision != "rejected":
        session.push(session.mapper.started(call_id))


async def decline_question(client: AbstractApiClient, rpc_id: str) -> None:
    """ACP v1 has no questions: the model is told no one could answer and goes on."""
    error = {"code": "cancelled", "message": "the editor cannot answer questions", "details": {}}
    await client.respond(rpc_id, {"ok": False, "error": error})
