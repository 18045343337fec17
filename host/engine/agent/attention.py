"""What each session asks of the person, at a glance (docs/decisions.md, "Parallel sessions and
attention"): one state per session, kept by the host so every window and tab agrees.

The state, first match wins:
- `needs-you`: approvals or questions wait in it (`pending` counts them; a subagent's requests are
  shown, and counted, in its parent);
- `waiting`: its turn waits for a free slot (`ahead`: turns before it, host/engine/agent/slots.py);
- `running`: its agent works;
- `failed`: its last turn ended with an error (until the next turn starts);
- `done-unread`: a turn completed after the newest seq a window marked seen (`session.markSeen`);
- `idle`.

Kept in memory for the host's life: after a restart every session starts `idle` (a finished turn
of a previous run is not news). Every change is one `host/session-attention` frame.
"""

from __future__ import annotations

from dataclasses import dataclass

from contract.frames import HostSessionAttention
from contract.sessions import Attention as AttentionView
from host.engine.sessions.bus import Bus

IDLE = AttentionView(state="idle")
"""Shared by every idle session: `session.list` asks for each one's (docs/decisions/search-lane.md)."""
UNREAD_ENDS = frozenset({"completed", "max-tokens"})
"""Turn ends a person has not seen yet is news about; one they stopped themselves is not."""


@dataclass
class _Facts:
    running: bool = False
    ahead: int | None = None
    pending: int = 0
    failed: bool = False
    ended_seq: int = -1
    """The newest turn/end worth seeing (UNREAD_ENDS)."""
    seen_seq: int = -1


class Attention:
    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._facts: dict[str, _Facts] = {}
        self._shown: dict[str, AttentionView] = {}

    def view(self, session_id: str) -> AttentionView:
        return self._shown.get(session_id) or IDLE

    def active(self) -> dict[str, AttentionView]:
        """Every session's view that is not idle (a list asks once, not once per session)."""
        return {sid: view for sid, view in self._shown.items() if view.state != "idle"}

    # ---- what the engine reports ---------------------------------------------------------

    def running(self, session_id: str, running: bool) -> None:
        self._update(session_id, running=running)

    def waiting(self, session_id: str, ahead: int | None) -> None:
        self._update(session_id, ahead=ahead)

    def pending(self, session_id: str, count: int) -> None:
        self._update(session_id, pending=count)

    def turn_started(self, session_id: str) -> None:
        self._update(session_id, failed=False)

    def turn_ended(self, session_id: str, reason: str, seq: int) -> None:
        if reason == "error":
            self._update(session_id, failed=True)
        elif reason in UNREAD_ENDS:
            self._update(session_id, ended_seq=seq)

    def seen(self, session_id: str) -> None:
        """A window shows the session to the person: every turn that ended in it is read."""
        facts = self._facts.get(session_id)
        if facts is not None:
            self._update(session_id, seen_seq=facts.ended_seq)

    def forget(self, session_id: str) -> None:
        """A deleted session."""
        self._facts.pop(session_id, None)
        self._shown.pop(session_id, None)

    # ---- the state -----------------------------------------------------------------------

    def _update(self, session_id: str, **changes: object) -> None:
        facts = self._facts.setdefault(session_id, _Facts())
        for name, value in changes.items():
            setattr(facts, name, value)
        view = _state(facts)
        if view != self.view(session_id):
            self._shown[session_id] = view
            self._bus.publish("host", HostSessionAttention(session_id=session_id, attention=view))


def _state(f: _Facts) -> AttentionView:
    if f.pending > 0:
        return AttentionView(state="needs-you", pending=f.pending)
    if f.ahead is not None:
        return AttentionView(state="waiting", ahead=f.ahead)
    if f.running:
        return AttentionView(state="running")
    if f.failed:
        return AttentionView(state="failed")
    if f.ended_seq > f.seen_seq:
        return AttentionView(state="done-unread")
    return AttentionView(state="idle")
