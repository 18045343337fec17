"""The sandbox around every process the agent starts (docs/decisions.md, "Sandbox and the four modes").

Callers (the bash tool, background jobs, MCP stdio servers, hooks) build their argv as before and
exec `wrap(argv, policy)` instead when the session runs sandboxed. `support()` says, once per
process, which mechanism this machine offers; when it is `none`, `wrap` raises
`SandboxUnavailable` and no sandboxed mode is offered — a command never runs unsandboxed silently.
"""

from host.engine.sandbox.bwrap import bwrap_argv
from host.engine.sandbox.policy import (
    SECRET_PATHS,
    Confinement,
    SandboxPolicy,
    SandboxSupport,
    SandboxUnavailable,
    protected_paths,
)
from host.engine.sandbox.probe import reset_support, support, wrap

__all__ = [
    "SECRET_PATHS",
    "Confinement",
    "SandboxPolicy",
    "SandboxSupport",
    "SandboxUnavailable",
    "bwrap_argv",
    "protected_paths",
    "reset_support",
    "support",
    "wrap",
]
