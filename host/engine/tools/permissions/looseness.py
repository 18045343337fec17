"""How much a permission preset lets run without asking, in one order (docs/decisions.md,
"Loosening is privileged").

read-only < workspace-write < auto < danger-full-access (`contract.permissions.LOOSENESS_ORDER`,
which the web UI gets as `PERMISSION_LOOSENESS`). `auto` (sandboxed writes without asking) is
named before its preset exists, so it slots in where it belongs. A name this order does
not know counts as the loosest (a change to it is loosening); a preset whose approval is `never`
is at least `auto`, whatever its name.
"""

from __future__ import annotations

from contract.permissions import LOOSENESS_ORDER as ORDER

NEVER_ASKS = ORDER.index("auto")


def looseness(name: str, approval: str | None = None) -> int:
    """The rank of preset `name` (higher lets more run unasked); `approval` its approval policy."""
    rank = ORDER.index(name) if name in ORDER else len(ORDER) - 1
    return max(rank, NEVER_ASKS) if approval == "never" else rank


def loosens(before: tuple[str, str | None], after: tuple[str, str | None]) -> bool:
    """Whether going from `before` to `after` (each `(name, approval)`) lets more run unasked."""
    return looseness(*after) > looseness(*before)
