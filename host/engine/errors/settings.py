"""Settings, credentials, time zones and the privilege a loosening change needs."""

from __future__ import annotations

from contract.errors import (
    CredentialDetails,
    NamespaceDetails,
    PrivilegeDetails,
    SettingsConflictDetails,
    SettingsIssue,
    SettingsRejectedDetails,
    TimeZoneDetails,
)
from host.engine.errors.base import EngineError


class SettingsNotExposed(EngineError[NamespaceDetails]):
    """A write to a namespace outside the exposed set (an unregistered one gets the same answer,
    so nobody can probe which namespaces exist)."""

    code = "settings-not-exposed"

    def __init__(self, ns: str) -> None:
        super().__init__(f"settings namespace {ns!r} is not exposed", NamespaceDetails(ns=ns))


class SettingsRejected(EngineError[SettingsRejectedDetails]):
    """A settings write refused: bad name, invalid section, read-only or failed storage."""

    code = "settings-rejected"

    def __init__(self, ns: str, message: str, issues: list[tuple[list[str], str]] | None = None) -> None:
        located = [SettingsIssue(loc=loc, msg=msg) for loc, msg in issues or []]
        super().__init__(message, SettingsRejectedDetails(ns=ns, issues=located))


class SettingsConflict(EngineError[SettingsConflictDetails]):
    """`expectedRevision` is stale: nothing was written."""

    code = "settings-conflict"

    def __init__(self, ns: str, expected: int, actual: int) -> None:
        details = SettingsConflictDetails(ns=ns, expected=expected, actual=actual)
        super().__init__(f"{ns} is at revision {actual}, not {expected}: reload and try again", details)


class CredentialRejected(EngineError[CredentialDetails]):
    """A credential set/unset refused (the environment shadows it, or storage failed); the
    message never names the secret."""

    code = "credential-rejected"

    def __init__(self, ref: str, message: str) -> None:
        super().__init__(message, CredentialDetails(ref=ref))


class PrivilegeRequired(EngineError[PrivilegeDetails]):
    """A change that lets more run without asking, from a caller refused privileged methods (a
    `--trusted-host` browser): nothing changed (docs/decisions.md, "Loosening is privileged")."""

    code = "privilege-required"

    def __init__(self, method: str, change: str) -> None:
        message = f"{change}: only the app's window or a browser on this machine may do that"
        super().__init__(message, PrivilegeDetails(method=method, change=change))


class InvalidTimeZone(EngineError[TimeZoneDetails]):
    code = "invalid-time-zone"

    def __init__(self, value: str) -> None:
        super().__init__(f"not a time zone: {value!r}", TimeZoneDetails(value=value))
