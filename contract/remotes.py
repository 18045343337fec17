"""The `remote.*` domain: remote hosts reached over SSH (docs/decisions.md, "Remote hosts").

A remote host is a machine the person reaches with the system's OpenSSH client; HarnessDesk
brings its own server there, starts it on a Unix socket and relays that host's methods and
frames through the local host, so the window talks to one address only. `hostId` names a host in
every request; sessions made there (`session.create {hostId, cwd}`) are then addressed by their
own ids like any other.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, field_validator

from contract._base import WireModel

HostId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
"""A remote host's id as a request carries it."""

RemoteMode = Literal["detached", "attached"]
"""`detached`: the remote server outlives the SSH connection (turns keep running while the laptop
sleeps) and stops itself after an idle period; `attached`: it ends with the SSH session (for
hosts that kill what a finished session left running)."""

SettingsFrom = Literal["here", "remote"]
"""Whose model settings a remote session uses: `here` (this computer's, handed over the SSH
channel for the server's launch and kept in its memory only) or `remote` (the remote's own
settings.json and credentials)."""

RemoteState = Literal["disconnected", "connecting", "connected", "reconnecting", "failed"]
"""`disconnected` only in `remote.list`: a host nobody asked to connect (or disconnected)."""

TARGET = re.compile(
    r"^(?:(?P<user>[A-Za-z0-9._][A-Za-z0-9._-]*)@)?"
    r"(?P<host>[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])"
    r"(?::(?P<port>[0-9]{1,5}))?$"
)
"""`[user@]host[:port]`, or a `~/.ssh/config` alias (a host without user or port). Nothing that
ssh would read as an option (a leading `-`) or a second word."""


def parse_target(text: str) -> tuple[str | None, str, int | None]:
    """(user, host, port) of a target; ValueError when it is not one."""
    found = TARGET.fullmatch(text.strip())
    if found is None or found.group("host").startswith("-"):
        raise ValueError("not a target: write user@host, user@host:port or a ~/.ssh/config alias")
    port = found.group("port")
    if port is not None and not 0 < int(port) < 65536:
        raise ValueError(f"port must be 1-65535, not {port}")
    return found.group("user"), found.group("host"), int(port) if port else None


class RemoteHostView(WireModel):
    host_id: str
    name: str
    target: str
    mode: RemoteMode
    state: RemoteState
    detail: str | None = Field(default=None, description="why it failed or is reconnecting, in words")
    settings_from: SettingsFrom = "here"
    sandbox: bool | None = Field(
        default=None, description="whether the remote offers the sandbox (null: not connected yet)"
    )


class RemoteAddRequest(WireModel):
    target: str = Field(min_length=1, max_length=300, description="user@host[:port] or a ~/.ssh/config alias")
    name: str | None = Field(default=None, min_length=1, max_length=100)
    mode: RemoteMode = "detached"
    settings_from: SettingsFrom = "here"

    @field_validator("target")
    @classmethod
    def _target(cls, v: str) -> str:
        parse_target(v)
        return v.strip()


class RemoteAddValue(WireModel):
    host_id: str


class RemoteListRequest(WireModel):
    pass


class RemoteConfigEntry(WireModel):
    """A `Host` entry of `~/.ssh/config` the person may pick (no wildcards)."""

    alias: str
    host_name: str | None = None
    user: str | None = None
    port: int | None = None


class RemoteListValue(WireModel):
    items: list[RemoteHostView]
    ssh_config: list[RemoteConfigEntry] = Field(
        default_factory=list, description="the aliases of ~/.ssh/config, to pick from"
    )


class RemoteRef(WireModel):
    host_id: HostId


class RemoteUpdateRequest(WireModel):
    host_id: HostId
    name: str | None = Field(default=None, min_length=1, max_length=100)
    mode: RemoteMode | None = None
    settings_from: SettingsFrom | None = None


class RemoteTestValue(WireModel):
    reachable: bool
    detail: str = Field(description="what was found, or why it could not be reached, in words")
    latency_ms: float | None = Field(default=None, ge=0)


class RemoteDone(WireModel):
    done: Literal[True] = True


class RemoteConnectValue(WireModel):
    state: RemoteState


class TrustHostKeyRequest(WireModel):
    host_id: HostId
    fingerprint: str = Field(
        min_length=8, max_length=200, pattern=r"^SHA256:[A-Za-z0-9+/=]+$", description="what the person saw"
    )


# ---- frames ----------------------------------------------------------------------------------


class HostRemoteStatus(WireModel):
    """A remote host's connection changed (on the host stream and the mux)."""

    type: Literal["host/remote-status"] = "host/remote-status"
    host_id: str
    state: Literal["connecting", "connected", "reconnecting", "failed", "disconnected"]
    detail: str | None = None


class RemoteSecretRequested(WireModel):
    """SSH asks for a passphrase or a password (`SSH_ASKPASS`): an answerable server-request on
    the host stream, answered with `RemoteSecretAnswer` (or `cancelled`). Never stored."""

    type: Literal["remote/secret-requested"] = "remote/secret-requested"
    host_id: str
    prompt: str = Field(description="ssh's own prompt text")
    echo: bool = Field(default=False, description="true for a yes/no confirmation, false for a secret")


class RemoteSecretResolved(WireModel):
    type: Literal["remote/secret-resolved"] = "remote/secret-resolved"
    host_id: str
    request_rpc_id: str


class RemoteSecretAnswer(WireModel):
    """The `client-response` value for `remote/secret-requested`."""

    host_id: str
    secret: str = Field(max_length=4096)
