"""The sandbox side of a session's permissions: what a call asks to leave, what a file tool may
not touch, and the words a person and the model read (docs/decisions.md, "Sandbox and the four
modes")."""

from __future__ import annotations

import enum
import os
from pathlib import Path
from typing import Any

from contract.permissions import SandboxStatus
from host.engine.sandbox import SandboxSupport
from host.engine.sandbox.policy import FILE_TOOL_PROTECTED
from host.engine.tools.permissions.modes import Preset

NETWORK_SUFFIX = "+network"
"""The stored policy row is `<mode>` or `<mode>+network` (the session's "Allow network" switch)."""
FILE_WRITERS = frozenset({"write_file", "edit_file"})


class Escalation(enum.Enum):
    OUTSIDE = "outside"
    """Run this one command with no sandbox at all (full access)."""
    NETWORK = "network"
    """Run this one command in the sandbox, with network."""


def escalation(name: str, arguments: dict[str, Any], network_on: bool) -> Escalation | None:
    """What a bash call asks for beyond the sandbox (None: it stays inside)."""
    if name != "bash":
        return None
    if arguments.get("outside_sandbox") is True:
        return Escalation.OUTSIDE
    if arguments.get("network") is True and not network_on:
        return Escalation.NETWORK
    return None


def leaving_text(name: str, arguments: dict[str, Any]) -> str | None:
    """What an approval lets out of the sandbox, in words (None: nothing)."""
    if name != "bash":
        return None
    if arguments.get("outside_sandbox") is True:
        return "bash asks to run this one command WITHOUT the sandbox, with all your rights."
    if arguments.get("network") is True:
        return "bash asks to run this one command in the sandbox WITH network access."
    return None


def protected_hit(cwd: Path, raw: str) -> str | None:
    """The protected entry (`.git/hooks`, …) a file tool's path lands in, or None. By name, so a
    protected file that does not exist yet is protected too, and through symlinks."""
    root = Path(os.path.realpath(cwd))
    target = Path(os.path.realpath(root / raw))
    for entry in FILE_TOOL_PROTECTED:
        where = Path(os.path.realpath(root / entry))
        if target == where or where in target.parents:
            return entry
        plain = root / entry  # a protected entry planted as a link still counts by its name
        if target == plain or plain in target.parents:
            return entry
    return None


def blocked_write(name: str, arguments: dict[str, Any], cwd: Path) -> str | None:
    """The tool error for a file write the sandbox forbids (the same rules as bash), or None."""
    raw = arguments.get("path")
    if name not in FILE_WRITERS or not isinstance(raw, str):
        return None
    entry = protected_hit(cwd, raw)
    if entry is None:
        return None
    return (
        f"blocked by the sandbox: {entry} in {cwd} stays read-only (git, HarnessDesk or the next"
        " session would run or trust what it holds); ask the user to change it, or leave it alone."
    )


def read_only_refusal(name: str, title: str, sandboxed: bool) -> str:
    if name == "bash" and sandboxed:
        return (
            f"Refused: this session is read-only (“{title}”): commands run in a read-only sandbox and"
            " cannot ask for network or full access. Run it without outside_sandbox / network."
        )
    if name == "bash":
        return (
            f"Refused: this session is read-only (“{title}”) and this machine has no sandbox, so no"
            " command runs. Read, list and search instead."
        )
    return (
        f"Refused: this session is read-only (“{title}”), so {name} may not change files here."
        " Read, list and search instead, or ask the user to switch the session to Auto or Ask."
    )


def badge(mode: Preset, available: bool, network: bool) -> str:
    """The header's one line: what will happen in this session."""
    net = " Network allowed." if network and mode.sandboxed else ""
    if mode.name == "workspace-write" and not available:
        return "Ask — no sandbox on this machine: every write and command asks, and runs with your rights."
    if mode.name == "read-only" and not available:
        return "Read-only — no sandbox on this machine: reads and searches only, no commands."
    return f"{mode.title} — {mode.description[0].lower()}{mode.description[1:]}{net}"


def sandbox_status(found: SandboxSupport) -> SandboxStatus:
    return SandboxStatus(kind=found.kind, reason=found.reason)


def stored_policy(name: str, network: bool) -> str:
    return f"{name}{NETWORK_SUFFIX}" if network else name


def stored_value(raw: str | None) -> tuple[str | None, bool]:
    """(mode, network) from a stored policy row (an old row has no suffix: network off)."""
    if raw is None:
        return None, False
    if raw.endswith(NETWORK_SUFFIX):
        return raw[: -len(NETWORK_SUFFIX)], True
    return raw, False


BLOCKED_WRITE_MARKS = ("Read-only file system",)
BLOCKED_NETWORK_MARKS = (
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Name or service not known",
    "No address associated with hostname",
    "getaddrinfo failed",
    "nodename nor servname",
)


def blocked_hint(output: str, cwd: Path, write: bool, network: bool) -> str | None:
    """A note after sandboxed output that shows the sandbox said no, telling the model what to do."""
    notes = []
    if any(mark in output for mark in BLOCKED_WRITE_MARKS):
        if write:
            notes.append(
                f"[blocked by the sandbox: writing outside {cwd} (or to its protected .git/hooks,"
                " .git/config, .harnessdesk, .mcp.json, AGENTS.md) is not allowed; stay inside the folder,"
                " or call bash again with outside_sandbox: true to ask the user to run this one command"
                " without the sandbox]"
            )
        else:
            notes.append("[blocked by the sandbox: this session is read-only, so nothing can be written]")
    if not network and any(mark in output for mark in BLOCKED_NETWORK_MARKS):
        notes.append(
            "[blocked by the sandbox: this session has no network; call bash again with network: true to"
            " ask the user for network for this one command, or work offline]"
        )
    return "\n".join(notes) or None
