"""A turn's approval requests: ask (with a preview of a file change), log, wait, and tell the agent
(docs/architecture.md, "Approvals and questions")."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.approvals import ApprovalOutcome, ApprovalWhy
from contract.content import ToolCallBlock
from contract.filechange import FileChange
from host.engine.agent.pending import PendingTable
from host.engine.presets.prompt_texts import approval_notice
from host.engine.sandbox import secret_values
from host.engine.sessions import events
from host.engine.sessions.journal import Journal
from host.engine.store import ids
from host.engine.tools.base import Tool, ToolOutput
from host.engine.tools.permissions.rules import suggestion
from host.engine.tools.permissions.sandboxing import leaving_text
from host.engine.tools.permissions.scope import always_words, label, scope_words
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

ALLOWED = ("allowed-once", "allowed-always")


@dataclass(frozen=True)
class Decision:
    outcome: ApprovalOutcome
    note: str | None = None
    """A rejection's note from the person."""

    @property
    def allowed(self) -> bool:
        return self.outcome in ALLOWED

    def refusal(self) -> ToolOutput:
        """The tool result of a call that was not allowed: the note, when there is one, is what
        the agent reads (docs/decisions.md, "UX pass")."""
        if self.outcome == "rejected" and self.note:
            text = f"The user rejected this call. Their note: {self.note}"
        else:
            text = f"The user did not allow this call ({self.outcome})."
        return ToolOutput(text, True, "REJECTED")


class Approvals:
    """One per turn: at most one approval is open at a time."""

    def __init__(
        self,
        journal: Journal,
        pending: PendingTable,
        session_id: str,
        cwd: Path,
        grant: Callable[[str, str], None],
        notice: Callable[[str], None],
    ) -> None:
        self.journal = journal
        self.pending = pending
        self.session_id = session_id
        self.cwd = cwd
        self.grant = grant
        self.notice = notice
        self.open: tuple[str, str] | None = None
        """(approval id, rpc id) of the request waiting for an answer."""
        self.rejoin: Callable[[], Awaitable[None]] | None = None
        """Awaited after an answer (`TurnServices.rejoin`)."""

    async def ask(
        self, call: ToolCallBlock, tool: Tool, args: dict[str, Any], scope: str, why: str | None = None
    ) -> Decision:
        """`why`: a PreToolUse hook's reason for asking (shown first on the card)."""
        approval_id = ids.approval_id()
        allowed = label(call.name, scope)
        reason = f"{call.name} needs your approval."  # what "Allow always" keeps: `always`
        always = always_words(call.name, scope)
        # the same reason as parts, for a client's own language (docs/decisions.md, "Languages")
        parts = ApprovalWhy(hook=why or None)
        leaving = leaving_text(call.name, args)
        if leaving:  # asks every time: a rule never lets a command out (docs/decisions.md)
            reason = f"{leaving} “Allow always” would allow {allowed} inside the sandbox only"
            parts.leaving = "outside-sandbox" if args.get("outside_sandbox") is True else "network"
            parts.rule = scope_words(scope)
        note = getattr(tool, "approval_note", None)  # an MCP tool says whose it is (docs/decisions.md)
        if isinstance(note, str) and note:
            reason = f"{note} {reason}"
            parts.mcp_server = getattr(tool, "server", None)
            parts.mcp_tool = getattr(tool, "raw_name", None)
            parts.mcp_read_only = bool(getattr(tool, "read_only", False))
        if why:
            reason = f"A hook asks: {why}. {reason}"
        preview = await self._preview(tool, args)
        # "Always allow commands like this": the pattern rule offered (docs/decisions.md, "Rules by
        # pattern"); never for a call that leaves the sandbox, which no rule covers
        offered = None if leaving else suggestion(tool, call.name, args, self.cwd)
        self.journal.append(events.approval_asked(approval_id, call.name, call.id, reason, preview, parts))
        rpc_id, future = self.pending.ask_approval(
            self.session_id, approval_id, call.name, call.id, reason, args, preview, always, parts, offered
        )
        self.open = (approval_id, rpc_id)
        try:
            outcome = await asyncio.shield(future)
        except asyncio.CancelledError:
            self.pending.cancel(rpc_id)
            self.decided("cancelled")
            raise
        decision = Decision(outcome, self.pending.take_note(rpc_id))
        self.decided(outcome, decision.note)
        if self.rejoin is not None:
            await self.rejoin()  # a paused run queues for a slot again (docs/decisions/automations.md)
        if outcome == "allowed-always":
            self.grant(call.name, scope)
        text = approval_notice(call.name, call.id, str(outcome), allowed)
        if text is not None:  # the user's answer, as context for the next step
            self.notice(text)
        return decision

    def decided(self, outcome: ApprovalOutcome, note: str | None = None) -> None:
        if self.open is not None:
            self.journal.append(events.approval_decided(self.open[0], outcome, note))
            self.open = None

    async def _preview(self, tool: Tool, args: dict[str, Any]) -> FileChange | None:
        """What a file tool would change (None for other tools, or when it cannot tell)."""
        preview = getattr(tool, "preview", None)
        if preview is None:
            return None
        try:
            change: FileChange | None = await TOOL_WORKERS.run(preview, args, self.cwd)
        except Exception as exc:  # the call itself will report the problem; ask without a diff
            log.debug("no preview for %s: %s", tool.name, exc)
            return None
        if change is not None and change.diff is not None:
            change.diff = secret_values.redact(change.diff)
        return change
