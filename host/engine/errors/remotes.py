"""Remote hosts over SSH (docs/decisions.md, "Remote hosts")."""

from __future__ import annotations

from typing import Literal

from contract.errors import HostKeyDetails, RemoteConnectDetails, RemoteHostDetails, RemoteUnavailableDetails
from host.engine.errors.base import EngineError


class RemoteHostNotFound(EngineError[RemoteHostDetails]):
    code = "remote-host-not-found"

    def __init__(self, host_id: str) -> None:
        super().__init__(f"no remote host {host_id}", RemoteHostDetails(host_id=host_id))


class RemoteUnavailable(EngineError[RemoteUnavailableDetails]):
    code = "remote-unavailable"

    def __init__(self, host_id: str, state: str, message: str | None = None) -> None:
        text = message or f"the remote host is not connected ({state})"
        super().__init__(text, RemoteUnavailableDetails(host_id=host_id, state=state))


class RemoteConnectFailed(EngineError[RemoteConnectDetails]):
    """`message` is the one sentence the person reads (ssh's own reason, or what the remote lacks)."""

    code = "remote-connect-failed"

    def __init__(self, host_id: str, stage: Literal["ssh", "bootstrap", "server"], message: str) -> None:
        super().__init__(message, RemoteConnectDetails(host_id=host_id, stage=stage))


class HostKeyUnknown(EngineError[HostKeyDetails]):
    code = "host-key-unknown"

    def __init__(self, host_id: str, fingerprint: str, key_type: str, shown_as: str) -> None:
        super().__init__(
            f"{shown_as} is not a known host: check that its {key_type} key is {fingerprint}"
            " before trusting it",
            HostKeyDetails(host_id=host_id, fingerprint=fingerprint, key_type=key_type),
        )


class HostKeyChanged(EngineError[HostKeyDetails]):
    code = "host-key-changed"

    def __init__(self, host_id: str, fingerprint: str, key_type: str, message: str) -> None:
        super().__init__(message, HostKeyDetails(host_id=host_id, fingerprint=fingerprint, key_type=key_type))
