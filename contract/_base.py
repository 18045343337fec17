"""Shared pydantic base: camelCase on the wire, strict about unknown fields."""

from __future__ import annotations

from typing import Any, overload

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

FROM_WIRE: dict[str, Any] = {"by_alias": True, "by_name": False}
"""Validation options for JSON that arrived over the wire: camelCase names only. Python code
may still construct models with snake_case names."""


@overload
def to_wire(value: BaseModel) -> dict[str, Any]: ...
@overload
def to_wire(value: Any) -> Any: ...
def to_wire(value: Any) -> Any:
    """A model as its wire JSON (camelCase, unset optionals left out); plain JSON unchanged."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


DEFERRED = ConfigDict(defer_build=True)
"""For module-level `TypeAdapter`s: built on first use, like every `WireModel`."""


class WireModel(BaseModel):
    """A strict wire shape: camelCase JSON, unknown fields rejected.

    Python code may use snake_case names; `dump()` always produces the wire JSON.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=False,
        defer_build=True,
    )
    """`defer_build`: a model's validator and serializer are built when it is first used, not
    when its module is imported. `serve` and the window import the whole contract at start
    and use a small part of it in their first second (docs/decisions.md, "Performance and
    packaging"); `tests/foundation/test_contract_builds.py` builds every model, so a broken one
    still fails CI instead of a user's first request."""

    def dump(self) -> dict[str, Any]:
        """The wire JSON object (camelCase, optional fields that are unset left out)."""
        return to_wire(self)


class OpenModel(WireModel):
    """A pass-through shape: known fields are checked, unknown ones travel unchanged."""

    model_config = ConfigDict(extra="allow")
