"""Firing hooks at the five points of a turn (docs/decisions.md, "Hooks").

Matching handlers run concurrently; each logs `hook/invoked` before and `hook/result` after it
ran, inside the open turn; the outcomes merge deny > ask > allow. A hook's allow is "no
objection": it never skips the session's approval policy or the sandbox. Project hooks are read
only when the folder is trusted and that file's content approved ("Hook approval"); the files
are read again at every firing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.vetoes import stderr_summary
from host.engine.integrations.hooks import config as cfg
from host.engine.integrations.hooks.approval import approval_name
from host.engine.integrations.hooks.decode import Merged, decode, merge
from host.engine.integrations.hooks.run import run_hook
from host.engine.sandbox import Confinement
from host.engine.sessions import events
from host.engine.sessions.events import NewEvent
from host.engine.sessions.project import project_root

Record = Callable[[NewEvent[Any]], object]


@dataclass(frozen=True)
class Firing:
    event: str
    session_id: str
    cwd: Path
    turn: int
    record: Record
    subject: str | None = None
    native: str | None = None
    fields: dict[str, Any] | None = None


class HookService:
    def __init__(
        self,
        data_dir: Path,
        trusted: Callable[[Path], bool],
        approved: Callable[[Path, str, str], bool] = lambda root, name, digest: False,
        compat: Callable[[], frozenset[str]] = frozenset,
        *,
        confinement: Confinement,
    ) -> None:
        self.data_dir = Path(data_dir)
        self._confinement = confinement
        """What a hook's sandbox hides (host/engine/sandbox/policy.py)."""
        self._trusted = trusted
        self._approved = approved
        self._compat = compat
        """The opt-in dialects whose files are read too (the `hooks` settings section)."""
        self.contexts: dict[tuple[str, int], list[str]] = {}
        """(session, turn) → context a UserPromptSubmit hook gave, for that turn's first request."""

    async def fire(self, f: Firing) -> Merged:
        root = await asyncio.to_thread(project_root, f.cwd)

        def approved(relative: str, digest: str) -> bool:
            return self._approved(root, approval_name(relative), digest)

        load = (self.data_dir, root, self._trusted(root), approved, self._compat())
        config = await asyncio.to_thread(cfg.load, *load)
        handlers = config.for_event(f.event, f.subject, f.native)
        if not handlers:
            return Merged()
        for h in handlers:
            f.record(events.hook_invoked(f.turn, f.event, h.dialect, h.handler_id, h.matcher, h.command))
        runs = await asyncio.gather(
            *(
                run_hook(h.command, payload(f, h.dialect), f.cwd, root, h.timeout, self._confinement)
                for h in handlers
            )
        )
        outcomes = []
        for h, ran in zip(handlers, runs, strict=True):
            outcome = decode(f.event, ran.exit_code, ran.stdout, ran.stderr)
            outcomes.append(outcome)
            summary = stderr_summary(ran.stderr)
            f.record(
                events.hook_result(
                    f.turn, f.event, h.handler_id, outcome.decision, ran.exit_code, summary, ran.duration_ms
                )
            )
        return merge(outcomes)


def payload(f: Firing, dialect: str) -> bytes:
    """The JSON on a hook's stdin: Claude's with a trailing newline; Codex's without, with
    `turn_id`, `model`, `permission_mode` and `tool_input` reduced to `{command}` (spec part B)."""
    doc: dict[str, Any] = {
        "session_id": f.session_id,
        "transcript_path": "" if dialect == "claude" else None,
        "cwd": str(f.cwd),
        "hook_event_name": f.event,
        **(f.fields or {}),
    }
    if dialect == "claude":
        return (json.dumps(doc, ensure_ascii=False) + "\n").encode()
    doc.update(model="", permission_mode="default", turn_id=str(f.turn))
    if "tool_name" in doc and f.native:
        doc["tool_name"] = cfg.CODEX_ALIASES.get(f.native, f.native)
        doc["tool_input"] = {"command": doc.get("tool_input", {}).get("command")}
    return json.dumps(doc, ensure_ascii=False).encode()


def tool_fields(name: str, call_id: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool part of a Pre/PostToolUse payload: Claude's names, our arguments plus theirs."""
    tool_input = dict(arguments)
    if "path" in arguments:
        tool_input.setdefault("file_path", arguments["path"])
    return {"tool_name": cfg.ALIASES.get(name, name), "tool_input": tool_input, "tool_use_id": call_id}
