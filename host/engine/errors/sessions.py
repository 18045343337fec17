"""Sessions, their queue and input, their jobs and archives: the session-scoped failures."""

from __future__ import annotations

from contract.errors import (
    AgentBusyDetails,
    ItemDetails,
    JobDetails,
    ReasonDetails,
    SessionConflictDetails,
    SessionDetails,
    SessionExistsDetails,
)
from host.engine.errors.base import EngineError


class SessionNotFound(EngineError[SessionDetails]):
    code = "session-not-found"

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no session {session_id}", SessionDetails(session_id=session_id))


class ForkUnavailable(EngineError[SessionDetails]):
    code = "fork-unavailable"

    def __init__(self, session_id: str, message: str) -> None:
        super().__init__(message, SessionDetails(session_id=session_id))


class TitleInvalid(EngineError[SessionDetails]):
    code = "title-invalid"

    def __init__(self, session_id: str, message: str) -> None:
        super().__init__(message, SessionDetails(session_id=session_id))


class QueueItemNotFound(EngineError[ItemDetails]):
    code = "queue-item-not-found"

    def __init__(self, item_id: str, message: str) -> None:
        super().__init__(message, ItemDetails(item_id=item_id))


class SteerUnavailable(EngineError[ItemDetails]):
    code = "steer-unavailable"

    def __init__(self, item_id: str, message: str) -> None:
        super().__init__(message, ItemDetails(item_id=item_id))


class AttachmentError(EngineError[ReasonDetails]):
    code = "attachment-error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, ReasonDetails(reason=reason))


class AgentBusy(EngineError[AgentBusyDetails]):
    code = "agent-busy"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, AgentBusyDetails(reason=reason))


class SessionConflict(EngineError[SessionConflictDetails]):
    code = "session-conflict"

    def __init__(
        self, session_id: str, requested_cwd: str, existing_cwd: str | None, message: str | None = None
    ) -> None:
        details = SessionConflictDetails(
            session_id=session_id, requested_cwd=requested_cwd, existing_cwd=existing_cwd
        )
        super().__init__(message or f"session {session_id} exists with another cwd", details)


class SessionAlreadyHere(EngineError[SessionExistsDetails]):
    """An import would bring a session that is already here (nothing is written)."""

    code = "session-exists"

    def __init__(self, session_id: str, existing_cwd: str | None) -> None:
        where = f", in {existing_cwd}" if existing_cwd else ""
        super().__init__(
            f"session {session_id} is already here{where}", SessionExistsDetails(session_id=session_id)
        )


class JobNotFound(EngineError[JobDetails]):
    """No background job of that id in that session (it never existed, or the host restarted)."""

    code = "job-not-found"

    def __init__(self, session_id: str, job_id: str) -> None:
        super().__init__(f"no job {job_id} in this session", JobDetails(session_id=session_id, job_id=job_id))


class ArchiveInvalid(EngineError[ReasonDetails]):
    """`session.import`: not a session archive, damaged, or too large; one line for the user."""

    code = "archive-invalid"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, ReasonDetails(reason=reason))
