"""Reverting a turn's file changes (docs/decisions.md, "UX pass")."""

from __future__ import annotations

from contract.errors import (
    RevertConflictDetails,
    RevertUnavailableDetails,
)
from contract.filechange import FileConflict
from host.engine.errors.base import EngineError


class RevertUnavailable(EngineError[RevertUnavailableDetails]):
    """Nothing to revert: the turn changed no file, is already reverted, or is still running."""

    code = "revert-unavailable"

    def __init__(self, session_id: str, turn: int, reason: str, unrecorded: str | None = None) -> None:
        details = RevertUnavailableDetails(
            session_id=session_id, turn=turn, reason=reason, unrecorded=unrecorded
        )
        # a turn whose snapshots failed changed something unknown, not nothing: it says why
        lead = "Cannot revert this turn" if unrecorded is not None else "Nothing to revert"
        super().__init__(f"{lead}: {reason}.", details)


_CONFLICT_TEXT = {
    "changed": "was changed outside HarnessDesk since",
    "later-turn": "was changed again by a later turn (revert that turn first)",
    "not-saved": "has no saved earlier content to go back to",
    "stale": "is not what the Changes view showed (it changed since; look again)",
}


class RevertConflict(EngineError[RevertConflictDetails]):
    """Files that cannot be put back; nothing was changed (docs/decisions.md, "UX pass")."""

    code = "revert-conflict"

    def __init__(self, session_id: str, conflicts: list[FileConflict]) -> None:
        text = "; ".join(f"{c.path} {_CONFLICT_TEXT[c.reason]}" for c in conflicts[:5])
        more = f" (and {len(conflicts) - 5} more)" if len(conflicts) > 5 else ""
        details = RevertConflictDetails(session_id=session_id, conflicts=conflicts)
        super().__init__(f"Nothing was restored: {text}{more}.", details)
