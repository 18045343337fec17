"""Typed RPC errors: one details shape per code, fixed by one map (spec 01 "Errors").

Adding a code is one line in `ERROR_DETAILS`; the `RpcError` union is derived from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, Union

from pydantic import Field, TypeAdapter, create_model

from contract._base import OpenModel, WireModel


class NoDetails(WireModel):
    """`details` is required for every code; `{}` when there is nothing structured."""


class BadRequestDetails(WireModel):
    issues: list[dict[str, Any]]


class SessionDetails(WireModel):
    session_id: str


class AgentBusyDetails(WireModel):
    reason: str


class ModelUnavailableDetails(WireModel):
    provider: str
    model: str


class TimeZoneDetails(WireModel):
    value: str


class ItemDetails(WireModel):
    item_id: str


class ReasonDetails(WireModel):
    reason: str


class SessionConflictDetails(WireModel):
    session_id: str
    requested_cwd: str
    existing_cwd: str | None = None


class SettingsConflictDetails(WireModel):
    expected_revision: int
    actual_revision: int


class FieldDetails(OpenModel):
    """Details naming the rejected field(s); extra keys allowed for the adapter's words."""


ERROR_DETAILS: dict[str, type[WireModel]] = {
    "bad-request": BadRequestDetails,
    "internal": NoDetails,
    "cancelled": NoDetails,
    "session-not-found": SessionDetails,
    "agent-busy": AgentBusyDetails,
    "model-unavailable": ModelUnavailableDetails,
    "invalid-time-zone": TimeZoneDetails,
    "title-invalid": SessionDetails,
    "fork-unavailable": SessionDetails,
    "queue-item-not-found": ItemDetails,
    "steer-unavailable": ItemDetails,
    "attachment-error": ReasonDetails,
    "session-conflict": SessionConflictDetails,
    "settings-conflict": SettingsConflictDetails,
    "settings-rejected": FieldDetails,
    "credential-rejected": FieldDetails,
    "forbidden": ReasonDetails,
}

ErrorCode = Literal[tuple(ERROR_DETAILS)]  # type: ignore[valid-type]


class RpcErrorBase(WireModel):
    """The static face of every error model; each code's model narrows `code` and `details`."""

    code: str
    message: str
    details: Any


def _error_model(code: str, details: type[WireModel]) -> type[RpcErrorBase]:
    name = "".join(part.capitalize() for part in code.split("-")) + "Error"
    code_type: Any = Literal[code]
    return create_model(
        name,
        __base__=RpcErrorBase,
        code=(code_type, ...),
        message=(str, ...),
        details=(details, ...),
    )


ERROR_MODELS: dict[str, type[RpcErrorBase]] = {c: _error_model(c, d) for c, d in ERROR_DETAILS.items()}

if TYPE_CHECKING:
    RpcError: TypeAlias = RpcErrorBase
else:
    RpcError = Annotated[Union[tuple(ERROR_MODELS.values())], Field(discriminator="code")]
RPC_ERROR: TypeAdapter[Any] = TypeAdapter(RpcError)


def rpc_error(code: str, message: str, **details: Any) -> RpcErrorBase:
    """Build a typed error; the details are validated against the code's shape."""
    model = ERROR_MODELS[code]
    return model(code=code, message=message, details=ERROR_DETAILS[code].model_validate(details))


def bad_request(message: str, issues: list[dict[str, Any]] | None = None) -> RpcErrorBase:
    """A `bad-request` error carrying JSON-safe validation issues."""
    return rpc_error("bad-request", message, issues=issues or [])


def issues_of(exc: Exception) -> list[dict[str, Any]]:
    """JSON-safe validation issues from a pydantic ValidationError (no input echo)."""
    errors = getattr(exc, "errors", None)
    if errors is None:
        return [{"msg": str(exc)}]
    out = []
    for e in errors(include_url=False, include_input=False, include_context=False):
        out.append({"loc": [str(p) for p in e.get("loc", ())], "msg": e.get("msg"), "type": e.get("type")})
    return out
