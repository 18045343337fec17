"""Each session's permission policy, enforced in the engine: its mode, its network switch and
its scoped rules. `decide` runs before every tool call; `sandbox_for` says what the call then
runs under (docs/decisions.md, "Sandbox and the four modes").

A session is pinned to the default preset of the moment it is created (the `permission`
namespace); the pin is a host-side row, logged as `permission/preset`, `sandbox/mode` and
`approval/policy` when the session is first opened. "Allow always" rules are host-side rows too
(`host/engine/store/grants.py`); the session projection `permissions` shows both and
`revoke` drops a rule at once (the next matching call asks again).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from contract.frames import SessionProjection
from contract.permissions import PERMISSIONS_KEY, PatternRule, PermissionRule, PermissionsProjection
from host.engine.sandbox import Confinement, SandboxPolicy, support
from host.engine.sandbox.binds import NO_BINDS, SandboxBinds
from host.engine.sessions import events
from host.engine.sessions.bus import Bus
from host.engine.sessions.journal import Journal, now_ms
from host.engine.store import Store
from host.engine.store.grants import WHOLE_TOOL, Grant
from host.engine.tools.base import Tool
from host.engine.tools.permissions.modes import Preset, applied, capped, options, preset
from host.engine.tools.permissions.rules import WEB_FETCH, verdict
from host.engine.tools.permissions.sandboxing import (
    Escalation,
    badge,
    blocked_write,
    escalation,
    read_only_refusal,
    sandbox_status,
    stored_policy,
    stored_value,
)
from host.engine.tools.permissions.scope import covers, label, scope_for, scope_words

Verdict = Literal["allow", "ask", "deny"]


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    scope: str = ""
    """For `ask`: what an "Allow always" answer remembers."""
    message: str = ""
    """For `deny`: the tool error the model and the user read."""


def takes_path(tool: Tool) -> bool:
    return "path" in tool.parameters.get("properties", {})


AgentCap = Callable[[], tuple[str | None, str | None]]
"""The session's agent preset's (sandbox, approval): it may make the session stricter."""

SANDBOXED_TOOLS = frozenset({"bash", "write_file", "edit_file"})
"""What Auto runs without asking: commands in the sandbox and file edits inside the folder."""
NETWORK_READS = frozenset({WEB_FETCH})
"""Tools the host runs itself that read the network: they ask in every mode but Full access,
Read-only included (they change nothing here), unless a rule allows them (docs/decisions.md,
"Web fetch and private addresses")."""

Patterns = Callable[[], Sequence[PatternRule]]
"""The rules of the `permission` namespace as they are now (a change applies at the next call)."""


@dataclass
class SessionPermissions:
    """An open session's preset and rules; its turns ask `decide` before every tool call."""

    session_id: str
    cwd: Path
    pinned: Preset
    rules: list[Grant] = field(default_factory=list)
    unlogged: bool = False
    """Pinned at creation but not logged yet: the first turn logs it (a session stays lazy)."""
    cap: AgentCap = lambda: (None, None)
    network: bool = False
    """The session's "Allow network" switch: sandboxed commands reach the network unasked."""
    confinement: Confinement = field(default_factory=Confinement)
    """What the sandbox hides (the data folder, the host's token file …) and whom it tells."""
    patterns: Patterns = lambda: ()
    """The rules a person wrote by pattern (docs/decisions.md, "Rules by pattern")."""
    binds: SandboxBinds = NO_BINDS
    """A worktree session's share of the shared git directory (docs/decisions.md, "Worktree
    sessions"): bound writable when its commands may write."""

    @property
    def preset(self) -> Preset:
        """What applies: the pin, made stricter by the agent preset (which is fixed once a turn
        ran); Auto runs as Ask where there is no sandbox."""
        return applied(capped(self.pinned.name, *self.cap()), support().available)

    @property
    def sandboxed(self) -> bool:
        """Commands run inside the sandbox (a sandboxed mode on a machine that has one)."""
        return self.preset.sandboxed and support().available

    def log_pin(self, journal: Journal) -> None:
        """`permission/preset`, `sandbox/mode`, `approval/policy`, once, before the first turn."""
        if self.unlogged:
            self.unlogged = False
            self.log_modes(journal, preset_too=True)

    def log_modes(self, journal: Journal, preset_too: bool = False) -> None:
        """What really applies now: the mode, the sandbox (mechanism and network), the asking."""
        now = self.preset
        if preset_too:
            journal.append(events.permission_preset(now.name))
        mechanism = support().kind if now.sandboxed else "none"
        journal.append(events.sandbox_mode(now.sandbox, mechanism, self.network))
        journal.append(events.approval_policy(now.approval))

    def decide(self, tool: Tool, name: str, arguments: dict[str, Any]) -> Decision:
        rule = verdict(self.patterns(), tool, name, arguments, self.cwd)
        if rule is not None and rule.decision == "deny":  # a deny wins, in every mode
            where = f" in {rule.folder}" if rule.folder else ""
            return Decision(
                "deny",
                message=f"Refused by the user's rule: {rule.tool} `{rule.pattern}` is denied{where}"
                " (Settings → Permissions). Do not try to get around it; ask the user if it is needed.",
            )
        if not tool.needs_approval:
            return Decision("allow")
        mode = self.preset
        if mode.sandboxed:
            blocked = blocked_write(name, arguments, self.cwd)
            if blocked:
                return Decision("deny", message=blocked)
        wants = escalation(name, arguments, self.network) if self.sandboxed else None
        if mode.sandbox == "read-only" and name not in NETWORK_READS:
            if name == "bash" and self.sandboxed and wants is None:
                return Decision("allow")  # runs in the read-only sandbox
            return Decision("deny", message=read_only_refusal(name, mode.title, self.sandboxed))
        if mode.approval == "never":
            return Decision("allow")
        path = takes_path(tool)
        scope = scope_for(name, arguments, self.cwd, path)
        if wants is not None:
            return Decision("ask", scope=scope)  # leaving the sandbox asks every time
        if mode.approval == "on-request" and name in SANDBOXED_TOOLS:
            return Decision("allow")
        if rule is not None:  # an allow rule (never for what leaves the sandbox: asked above)
            return Decision("allow")
        if any(r.tool == name and covers(r.scope, name, arguments, self.cwd, path) for r in self.rules):
            return Decision("allow")
        return Decision("ask", scope=scope)

    def sandbox_for(self, name: str, arguments: dict[str, Any]) -> SandboxPolicy | None:
        """What an allowed call runs under: None is no sandbox (Full access, a machine without
        one in Ask, or an approved request to run one command outside it)."""
        if not self.sandboxed:
            return None
        wants = escalation(name, arguments, self.network)
        if wants is Escalation.OUTSIDE:
            return None
        write = self.preset.sandbox != "read-only"
        network = self.network or wants is Escalation.NETWORK
        return self.confinement.policy(
            self.cwd,
            write=write,
            network=network,
            writable=self.binds.writable,
            read_only=self.binds.read_only,
        )

    def projection(self) -> PermissionsProjection:
        now = self.preset
        found = support()
        return PermissionsProjection(
            options=options(found.available),
            current_value=now.name,
            badge=badge(now, found.available, self.network),
            network=self.network,
            sandbox=sandbox_status(found),
            rules=[
                PermissionRule(
                    tool=r.tool,
                    scope=r.scope,
                    label=label(r.tool, r.scope),
                    created_at=r.created_at,
                    words=scope_words(r.scope),
                )
                for r in self.rules
            ],
        )


CapFor = Callable[[str], Awaitable[tuple[str | None, str | None]]]
"""A session id → its agent preset's (sandbox, approval), for a session that is not open."""


class PermissionService:
    def __init__(
        self,
        store: Store,
        bus: Bus,
        default_preset: Callable[[], str],
        cap_for: CapFor | None = None,
        binds: Callable[[Path], SandboxBinds] | None = None,
        *,
        confinement: Confinement,
        patterns: Patterns = lambda: (),
    ) -> None:
        self._confinement = confinement
        self._patterns = patterns
        self._binds = binds
        self._store = store
        self._bus = bus
        self._default = default_preset
        self._cap_for = cap_for
        self._pinned: dict[str, str] = {}
        self._open: dict[str, tuple[SessionPermissions, Journal]] = {}

    def pin(self, session_id: str) -> None:
        """At `session.create`: the session gets the default preset of this moment."""
        self._pinned[session_id] = preset(self._default()).name

    async def inherit(self, child_id: str, parent_id: str) -> None:
        """A fork keeps its parent's preset (never its rules: asking again costs one click)."""
        parent = self._open.get(parent_id)
        name: str | None
        if parent is not None:
            name, network = parent[0].pinned.name, parent[0].network
        else:
            name, network = stored_value(await self._store.policy(parent_id))
        kept = stored_policy(preset(name or self._default()).name, network)
        self._store.set_policy(child_id, kept, now_ms())

    def pin_child(self, child_id: str, parent: SessionPermissions) -> None:
        """A subagent runs with what applies to its parent (never more: the parent's agent preset
        caps it too) and starts with the parent's "Allow always" rules."""
        self._pinned[child_id] = stored_policy(parent.preset.name, parent.network)
        for rule in parent.rules:
            self._store.add_grant(child_id, rule)

    async def open(self, journal: Journal, cwd: Path, cap: AgentCap | None = None) -> SessionPermissions:
        """The session's policy when its agent is loaded. A session created by this host is
        pinned now and logged by its first turn; one from before this version, or imported, is
        pinned to the default preset of now without a log entry (its log is not rewritten)."""
        sid = journal.session_id
        name, network = stored_value(await self._store.policy(sid))
        unlogged = False
        if name is None:
            pinned = self._pinned.pop(sid, None)
            name, network = stored_value(pinned)
            name = preset(name or self._default()).name
            self._store.set_policy(sid, stored_policy(name, network), now_ms())
            unlogged = pinned is not None and journal.last_seq < 0
        rules = [g for g in await self._store.grants(sid) if g.scope != WHOLE_TOOL]
        binds = await asyncio.to_thread(self._binds, cwd) if self._binds is not None else NO_BINDS
        perms = SessionPermissions(
            sid,
            cwd,
            preset(name),
            rules,
            unlogged,
            cap or (lambda: (None, None)),
            network,
            self._confinement,
            self._patterns,
            binds,
        )
        self._open[sid] = (perms, journal)
        return perms

    def close(self, session_id: str) -> None:
        self._open.pop(session_id, None)

    def grant(self, perms: SessionPermissions, tool: str, scope: str) -> None:
        """Remember "Allow always" for `(tool, scope)` and show it."""
        if any(r.tool == tool and r.scope == scope for r in perms.rules):
            return
        rule = Grant(tool, scope, now_ms())
        perms.rules.append(rule)
        ticket = self._store.add_grant(perms.session_id, rule)
        self._publish(perms, after=ticket)  # shown once it is on disk (docs/decisions.md)

    async def revoke(self, session_id: str, tool: str, scope: str) -> bool:
        """Drop one rule (False when there was none). The caller checked the session exists."""
        live = self._open.get(session_id)
        if live is not None:
            perms = live[0]
            before = len(perms.rules)
            perms.rules = [r for r in perms.rules if not (r.tool == tool and r.scope == scope)]
            found = len(perms.rules) != before
        else:
            found = any(g.tool == tool and g.scope == scope for g in await self._store.grants(session_id))
        if not found:
            return False
        ticket = self._store.revoke_grants(session_id, tool, scope)
        if live is not None:
            self._publish(live[0], after=ticket)
        else:
            header = await self._store.header(session_id)
            seq = header.last_seq if header is not None else -1
            self._push(session_id, (await self.projection(session_id)).dump(), seq, after=ticket)
        await self._store.flush()  # the answer says it is gone: it is, on disk
        return True

    async def projection(self, session_id: str) -> PermissionsProjection:
        live = self._open.get(session_id)
        if live is not None:
            return live[0].projection()
        name, network = stored_value(await self._store.policy(session_id) or self._pinned.get(session_id))
        rules = [g for g in await self._store.grants(session_id) if g.scope != WHOLE_TOOL]
        cap = await self._cap_for(session_id) if self._cap_for is not None else (None, None)
        perms = SessionPermissions(
            session_id, Path("."), preset(name or self._default()), rules, cap=lambda: cap, network=network
        )
        return perms.projection()

    def switch(self, session_id: str, name: str) -> tuple[Preset, Preset]:
        """`/permission <preset>` on an open session: pin `name` from now on. Logs
        `permission/preset`, then only the knob events whose applied value changed; returns the
        applied preset (after the agent preset's cap) before and after."""
        perms, journal = self._open[session_id]
        perms.log_pin(journal)  # a blank session's creation pin comes first in its log
        before = perms.preset
        perms.pinned = preset(name)
        self._store.set_policy(session_id, stored_policy(perms.pinned.name, perms.network), now_ms())
        after = perms.preset
        journal.append(events.permission_preset(after.name))
        if after.sandbox != before.sandbox:
            journal.append(events.sandbox_mode(after.sandbox, self._mechanism(after), perms.network))
        if after.approval != before.approval:
            journal.append(events.approval_policy(after.approval))
        self._publish(perms)
        return before, after

    def set_network(self, session_id: str, allow: bool) -> bool:
        """The open session's "Allow network" switch; logs `sandbox/mode` when it changes.
        Returns whether it changed."""
        perms, journal = self._open[session_id]
        if perms.network == allow:
            return False
        perms.log_pin(journal)
        perms.network = allow
        self._store.set_policy(session_id, stored_policy(perms.pinned.name, allow), now_ms())
        now = perms.preset
        journal.append(events.sandbox_mode(now.sandbox, self._mechanism(now), allow))
        self._publish(perms)
        return True

    @staticmethod
    def _mechanism(mode: Preset) -> str:
        return support().kind if mode.sandboxed else "none"

    def refresh(self, session_id: str) -> None:
        """Show an open session's permissions again (its agent preset changed)."""
        if session_id in self._open:
            self._publish(self._open[session_id][0])

    def _publish(self, perms: SessionPermissions, after: int | None = None) -> None:
        journal = self._open[perms.session_id][1]
        self._push(perms.session_id, perms.projection().dump(), journal.last_seq, after)

    def _push(self, session_id: str, value: Any, seq: int, after: int | None = None) -> None:
        """`after`: the ticket of the write this change made; the frame waits until it commits."""
        frame = SessionProjection(session_id=session_id, key=PERMISSIONS_KEY, value=value, seq=max(seq, 0))
        self._bus.publish("mux", frame, after=after)
