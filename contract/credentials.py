"""`credentials.*`: secrets by reference (docs/architecture.md, "Settings").

A configuration names a credential by a reference (`apiKeyEnv: DEEPSEEK_API_KEY`), never by its
value. The process environment shadows the host's credential file and is read-only. A secret
travels one way only: inside `credentials.set`; no response or frame ever carries one.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from contract._base import WireModel
from contract.settings import ConfigFileView

REF_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
CredentialRef = Annotated[str, Field(min_length=1, max_length=128, pattern=REF_PATTERN)]
"""An environment-variable name (POSIX identifier)."""


class CredentialView(WireModel):
    configured: bool
    source: str | None = None
    """Which layer holds the value: `env` (the process environment) or `file`."""
    writable: bool
    """False when the environment supplies it (set/unset would be shadowed) or the file is read-only."""


# credentials.describe
class CredentialsDescribeRequest(WireModel):
    refs: list[CredentialRef] = Field(max_length=64)


class CredentialsDescribeValue(WireModel):
    credentials: dict[str, CredentialView]
    file: ConfigFileView
    """credentials.json (`problem` when it cannot be used; never a value)."""


# credentials.set / unset
class SetRequest(WireModel):
    ref: CredentialRef
    value: str = Field(min_length=1, max_length=4096, repr=False)


class UnsetRequest(WireModel):
    ref: CredentialRef


# credentials.move (docs/decisions.md, "Settings in the person's words")
class MoveRequest(WireModel):
    """The stored key of `ref` now lives under `to` (an endpoint renamed: its slot follows the
    name); `ref` is removed in the same write. No value travels."""

    ref: CredentialRef
    to: CredentialRef


class Done(WireModel):
    """`{}`: the change is made (announced as `host/credentials-changed {ref}`)."""
