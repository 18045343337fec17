"""Small typed engine exceptions; the API layer maps each to its RpcError code."""

from __future__ import annotations


class EngineError(Exception):
    """Base of the engine's business failures. `code` is the RpcError code it maps to."""

    code = "internal"

    def details(self) -> dict[str, object]:
        return {}


class SessionNotFound(EngineError):
    code = "session-not-found"

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no session {session_id}")
        self.session_id = session_id

    def details(self) -> dict[str, object]:
        return {"sessionId": self.session_id}


class _SessionScoped(EngineError):
    def __init__(self, session_id: str, message: str) -> None:
        super().__init__(message)
        self.session_id = session_id

    def details(self) -> dict[str, object]:
        return {"sessionId": self.session_id}


class ForkUnavailable(_SessionScoped):
    code = "fork-unavailable"


class TitleInvalid(_SessionScoped):
    code = "title-invalid"


class _ItemScoped(EngineError):
    def __init__(self, item_id: str, message: str) -> None:
        super().__init__(message)
        self.item_id = item_id

    def details(self) -> dict[str, object]:
        return {"itemId": self.item_id}


class QueueItemNotFound(_ItemScoped):
    code = "queue-item-not-found"


class SteerUnavailable(_ItemScoped):
    code = "steer-unavailable"


class _Reason(EngineError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def details(self) -> dict[str, object]:
        return {"reason": self.reason}


class AttachmentError(_Reason):
    code = "attachment-error"


class AgentBusy(_Reason):
    code = "agent-busy"


class ModelUnavailable(EngineError):
    code = "model-unavailable"

    def __init__(self, provider: str, model: str, message: str | None = None) -> None:
        super().__init__(message or f"no adapter serves {provider}/{model}")
        self.provider = provider
        self.model = model

    def details(self) -> dict[str, object]:
        return {"provider": self.provider, "model": self.model}


class InvalidTimeZone(EngineError):
    code = "invalid-time-zone"

    def __init__(self, value: str) -> None:
        super().__init__(f"not a time zone: {value!r}")
        self.value = value

    def details(self) -> dict[str, object]:
        return {"value": self.value}


class SessionConflict(EngineError):
    code = "session-conflict"

    def __init__(self, session_id: str, requested_cwd: str, existing_cwd: str | None) -> None:
        super().__init__(f"session {session_id} exists with another cwd")
        self.session_id = session_id
        self.requested_cwd = requested_cwd
        self.existing_cwd = existing_cwd

    def details(self) -> dict[str, object]:
        out: dict[str, object] = {"sessionId": self.session_id, "requestedCwd": self.requested_cwd}
        if self.existing_cwd is not None:
            out["existingCwd"] = self.existing_cwd
        return out
