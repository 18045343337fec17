"""`settings.*`: the configuration plane's namespaced settings (docs/architecture.md, "Settings").

A namespace (`llm-deepseek`, `permission`, …) is one section of `settings.json` with a JSON
Schema derived from its model (`contract/namespaces.py`). Every view is redacted: a field the
schema marks secret never leaves the host; `secrets` says which slots hold one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from contract._base import WireModel

NS_PATTERN = r"^[a-z][a-z0-9-]*$"
"""A namespace key. A malformed one is a `settings-rejected` answer, not a `bad-request`."""

SettingsPath = list[str]
"""A path from a section's root: object keys, or decimal indexes into a list."""

ConfigFile = Literal["settings.json", "credentials.json"]
"""The host's two configuration files in its data dir (never a path from the wire)."""


class ConfigFileView(WireModel):
    """One configuration file as the host read it (docs/decisions.md, "Configuration files that
    cannot be read")."""

    file: ConfigFile
    path: str = Field(description="where it is on the host")
    problem: str | None = None
    """Why the host cannot use it (one sentence naming the file); while set, the host runs
    without it and refuses every write to it until it is fixed by hand or reset."""


class SecretSlot(WireModel):
    path: SettingsPath
    set: bool
    """Whether the resolved value currently holds a secret there."""


class SettingsNamespaceView(WireModel):
    ns: str = Field(min_length=1)
    schema_: Any = Field(alias="schema", description="JSON Schema of the section (from its model)")
    value: Any = Field(description="resolved: schema defaults, then base, then user; secrets removed")
    base: Any = None
    """The shipped base layer (secrets removed), when the namespace declares one."""
    user: Any = None
    """The raw user section (secrets removed), when one exists: a field here is user-set."""
    applies: Literal["live", "restart"] = "live"
    secrets: list[SecretSlot]
    revision: int = Field(ge=0)
    """+1 on every real change of the raw user section, external edits of settings.json included."""


# settings.describe
class SettingsDescribeRequest(WireModel):
    pass


class SettingsDescribeValue(WireModel):
    writable: bool
    has_document: bool
    namespaces: list[SettingsNamespaceView]
    file: ConfigFileView
    """settings.json (`problem` when it cannot be used)."""


# settings.openDocument
class OpenDocumentRequest(WireModel):
    """Never a path: the host opens its own settings.json (or credentials.json)."""

    file: ConfigFile = "settings.json"


# settings.resetDocument
class ResetDocumentRequest(WireModel):
    """Set a file the host cannot use aside as `<name>.broken-<time>` and start it afresh."""

    file: ConfigFile


class ResetDocumentValue(WireModel):
    kept_as: str | None = None
    """The name the old file now has beside the new one; absent when it was usable (nothing
    was done: a hand fix may have landed before the person chose Reset)."""


class Opened(WireModel):
    opened: Literal[True] = True


# settings.update / replace / mutate
class SetOp(WireModel):
    op: Literal["set"]
    path: SettingsPath
    value: Any


class UnsetOp(WireModel):
    op: Literal["unset"]
    path: SettingsPath


SettingsPathOp = Annotated[Union[SetOp, UnsetOp], Field(discriminator="op")]


class UpdateRequest(WireModel):
    """Deep-merge `patch` into the user section (objects merge; anything else replaces)."""

    ns: str = Field(min_length=1)
    patch: dict[str, Any]
    expected_revision: int | None = Field(default=None, ge=0)


class ReplaceRequest(WireModel):
    """Set the whole user section; `{}` resets to the defaults."""

    ns: str = Field(min_length=1)
    section: dict[str, Any]
    expected_revision: int | None = Field(default=None, ge=0)


class MutateRequest(WireModel):
    """Apply path operations in order to the section as stored when the write runs."""

    ns: str = Field(min_length=1)
    ops: list[SettingsPathOp]
    expected_revision: int | None = Field(default=None, ge=0)
