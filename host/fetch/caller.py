"""Whether the caller of a unary method may use privileged methods (docs/architecture.md,
"Method map"), for the methods whose payload decides (docs/decisions.md, "Loosening is
privileged": `command.execute {line: "/permission danger-full-access"}` is as privileged as
changing the default preset in settings).

The loopback fence (`host/server/fence.py`) judges each request and records its verdict in the
ASGI scope under `CALLER_KEY`; a browser cannot set a scope key. A request that reached the
handler without passing a fence (the desktop window's bridge, the in-process client) comes from
this machine's own process and is privileged. The handler sets `caller_privileged()` for the
duration of the call.
"""

from __future__ import annotations

from contextvars import ContextVar

from starlette.types import Scope

CALLER_KEY = "harnessdesk.caller"

_PRIVILEGED: ContextVar[bool] = ContextVar("harnessdesk_caller_privileged", default=True)


def marked(scope: Scope, privileged: bool) -> Scope:
    """A copy of `scope` carrying the fence's verdict."""
    return {**scope, CALLER_KEY: {"privileged": privileged}}


def scope_privileged(scope: Scope) -> bool:
    verdict = scope.get(CALLER_KEY)
    return bool(verdict.get("privileged", False)) if isinstance(verdict, dict) else True


def caller_privileged() -> bool:
    """Whether the unary call being served may make privileged changes."""
    return _PRIVILEGED.get()


def set_caller(privileged: bool) -> object:
    return _PRIVILEGED.set(privileged)


def reset_caller(token: object) -> None:
    _PRIVILEGED.reset(token)  # type: ignore[arg-type]
