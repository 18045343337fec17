"""The agent's durable inbox (docs/architecture.md, "Agents"): two pending lists that change only
through `agent/inbox/spliced` events.

- `next-turn`: FIFO input, one turn per message (`session.prompt mode:"queue"`, a steer while no
  turn is open, steering that missed its turn).
- `next-step`: input the running turn claims at its next step: a person's steering, and context
  the host injects (approval notices, job completions). Context never wakes the agent.

A splice is built and applied in one synchronous step and its event is appended in that same
step, so replaying the log's splices rebuilds both lists exactly; a forked child starts empty at
its `session/end-seed`.
"""

from __future__ import annotations

from collections.abc import Iterable

from contract.content import Message
from contract.events import InboxSpliced, InboxTarget, SessionEvent
from contract.frames import Placement, QueuedInboxItem
from host.engine.sessions import events
from host.engine.sessions.events import NewEvent

REPLAYED = ("agent/inbox/spliced", "session/end-seed")
"""The event types a replay reads."""


def is_steering(message: Message) -> bool:
    """A person's input (as opposed to context the host injected)."""
    return message.source.kind == "user"


class InboxLists:
    def __init__(self) -> None:
        self.next_turn: list[Message] = []
        self.next_step: list[Message] = []

    def of(self, target: InboxTarget) -> list[Message]:
        return self.next_turn if target == "next-turn" else self.next_step

    def apply(self, data: InboxSpliced) -> None:
        """Apply one splice (clamped to the list, so a foreign or damaged log cannot crash a load)."""
        items = self.of(data.target)
        start = min(data.start, len(items))
        items[start : start + (data.removed_count or 0)] = data.inserted

    def splice(
        self,
        target: InboxTarget,
        start: int,
        removed: int = 0,
        inserted: list[Message] | None = None,
        canceled: bool = False,
    ) -> NewEvent[InboxSpliced]:
        """Change a list now; returns the event the caller appends in the same step."""
        new = events.inbox_spliced(target, start, removed, inserted or [], canceled)
        self.apply(new.data)
        return new

    def append(self, target: InboxTarget, message: Message) -> NewEvent[InboxSpliced]:
        return self.splice(target, len(self.of(target)), 0, [message])

    def find(self, message_id: str) -> tuple[InboxTarget, int] | None:
        for target in ("next-turn", "next-step"):
            for index, message in enumerate(self.of(target)):
                if message.id == message_id:
                    return target, index
        return None

    def steering(self) -> list[Message]:
        return [m for m in self.next_step if is_steering(m)]

    def items(self) -> list[QueuedInboxItem]:
        """The `session/queue` view: next-turn input, then next-step input."""
        out = [QueuedInboxItem(id=m.id, placement="queued", message=m) for m in self.next_turn]
        for message in self.next_step:
            placement: Placement = "steering" if is_steering(message) else "context"
            out.append(QueuedInboxItem(id=message.id, placement=placement, message=message))
        return out

    def __bool__(self) -> bool:
        return bool(self.next_turn or self.next_step)


def replay(log: Iterable[SessionEvent]) -> InboxLists:
    """The lists as the log leaves them (only splices after the newest `session/end-seed`)."""
    lists = InboxLists()
    for event in log:
        if event.type == "session/end-seed":
            lists = InboxLists()
        elif event.type == "agent/inbox/spliced":
            lists.apply(InboxSpliced.model_validate(event.data))
    return lists
