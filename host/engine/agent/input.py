"""An agent's input side, which the agent holds as `agent.input` (a collaborator, not a base
class): the durable inbox as the API and the running turn use it (docs/architecture.md, "Agents";
the loop itself is host/engine/agent/agent.py).

`queue`, `steer` and `inject` add input, `update_queue` edits it, the turn claims steering and
context at its steps; every change is an `agent/inbox/spliced` event in the session's log
(host/engine/sessions/inbox.py) and the `session/queue` frame is published once that event is committed
(durable before visible).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

from contract.content import ContentBlock, Message, MessageSource
from contract.events import TurnTrigger
from contract.frames import QueuedInboxItem, SessionQueue
from host.engine.errors import AgentBusy, QueueItemNotFound, SteerUnavailable
from host.engine.sessions import events
from host.engine.sessions.bus import Bus
from host.engine.sessions.events import NewEvent
from host.engine.sessions.inbox import InboxLists, is_steering
from host.engine.sessions.journal import Journal

MAX_QUEUE = 100


class AgentInput:
    """The inbox lists, the queue subscribers were last shown, the next turns' triggers and the
    loop's wake-up; what it reads of its agent comes as three callables."""

    def __init__(
        self,
        journal: Journal,
        bus: Bus,
        inbox: InboxLists,
        running: Callable[[], bool],
        turn_open: Callable[[], bool],
        disposed: Callable[[], bool],
    ) -> None:
        self.session_id = journal.session_id
        self._journal = journal
        self._bus = bus
        self.inbox = inbox
        self._running = running
        self._turn_open = turn_open
        self._disposed = disposed
        self._shown_queue = inbox.items()
        """The last `session/queue` released to subscribers (the inbox as replayed is on disk)."""
        self.triggers: dict[str, TurnTrigger] = {}
        """Next-turn message id → the trigger its turn records (not durable: `queue` after a load)."""
        self.wake = asyncio.Event()
        """Set when next-turn input arrives (the agent's loop waits on it)."""

    def queue(self, content: list[ContentBlock], source: MessageSource) -> str:
        """Next-turn input; wakes an idle agent. Returns the message id (the queue item's id)."""
        self._check_open()
        message = events.new_message("user", list(content), source)
        self.triggers[message.id] = "queue" if self._running() else "user"
        self.record(self.inbox.append("next-turn", message))
        self.wake.set()
        return message.id

    def steer(self, content: list[ContentBlock], source: MessageSource) -> str:
        """Next-step input for the running turn; with no turn open, next-turn input."""
        self._check_open()
        message = events.new_message("user", list(content), source)
        if self._turn_open():
            self.record(self.inbox.append("next-step", message))
        else:
            self.triggers[message.id] = "queue" if self._running() else "steer"
            self.record(self.inbox.append("next-turn", message))
            self.wake.set()
        return message.id

    def inject(self, content: list[ContentBlock], plugin: str, meta: dict[str, Any] | None = None) -> str:
        """Context the next step sees (placement `context`); it never wakes the agent."""
        if self._disposed():
            raise AgentBusy("the session is closing")
        origin: dict[str, Any] = {"kind": "plugin", "plugin": plugin}
        if meta:
            origin["meta"] = meta
        message = events.new_message("user", list(content), MessageSource.model_validate(origin))
        self.record(self.inbox.append("next-step", message))
        return message.id

    def clear_person_input(self) -> bool:
        """Drop the person's queued and steering input (context stays); whether any was there."""
        news: list[NewEvent[Any]] = []
        if self.inbox.next_turn:
            news.append(self.inbox.splice("next-turn", 0, len(self.inbox.next_turn), canceled=True))
        for index in reversed(range(len(self.inbox.next_step))):
            if is_steering(self.inbox.next_step[index]):
                news.append(self.inbox.splice("next-step", index, 1, canceled=True))
        if news:
            self.record(*news)
        return bool(news)

    def queue_items(self) -> list[QueuedInboxItem]:
        return self.inbox.items()

    def shown_queue(self) -> list[QueuedInboxItem]:
        """The queue as subscribers were last shown it: only committed input (a late client's
        snapshot must not show a prompt a crash could still take back)."""
        return self._shown_queue

    def update_queue(self, item_id: str, kind: str, content: list[ContentBlock] | None = None) -> None:
        """Edit, remove or promote to steering one queued (or steering) item, by message id."""
        found = self.inbox.find(item_id)
        if found is None or not is_steering(self.inbox.of(found[0])[found[1]]):
            raise QueueItemNotFound(item_id, "the item was already claimed or removed")
        target, index = found
        message = self.inbox.of(target)[index]
        if kind == "edit":
            edited = message.model_copy(update={"content": list(content or [])})
            self.record(self.inbox.splice(target, index, 1, [edited]))
        elif kind == "remove":
            self.record(self.inbox.splice(target, index, 1, canceled=True))
        elif kind == "steer":
            if target == "next-step":
                return  # already steering
            if not self._turn_open():
                raise SteerUnavailable(item_id, "no turn is running to steer")
            self.record(self.inbox.splice(target, index, 1), self.inbox.append("next-step", message))
        else:
            raise ValueError(f"unknown queue action {kind!r}")

    def record(self, *news: NewEvent[Any]) -> None:
        """Log inbox splices (already applied to the lists) and publish the queue."""
        self._journal.append_all(list(news))
        self.publish_queue()

    def claim_step(self) -> tuple[NewEvent[Any], list[Message]] | None:
        messages = list(self.inbox.next_step)
        if not messages:
            return None
        return self.inbox.splice("next-step", 0, len(messages)), messages

    def claimed(self) -> None:
        self.publish_queue()

    def has_steering(self) -> bool:
        return bool(self.inbox.steering())

    def _check_open(self) -> None:
        if self._disposed():
            raise AgentBusy("the session is closing")
        if len(self.inbox.next_turn) >= MAX_QUEUE:
            raise AgentBusy(f"the queue is full ({MAX_QUEUE} items)")

    def publish_queue(self, durable: bool = True) -> None:
        """Publish the queue once the splice that changed it is committed (durable before
        visible); a splice whose write failed is never shown. Disposal shows the emptied queue."""
        items = self.inbox.items()
        after = self._journal.last_ticket if durable else None
        frame = SessionQueue(session_id=self.session_id, items=items)
        self._bus.publish("mux", frame, after=after, then=partial(self._queue_shown, items))

    def drop(self) -> None:
        """A disposed agent: the in-memory lists go (what reached the disk is replayed at the next
        load) and subscribers are shown the emptied queue."""
        if self.inbox.next_turn or self.inbox.next_step:
            self.inbox = InboxLists()
            self.publish_queue(durable=False)

    def _queue_shown(self, items: list[QueuedInboxItem]) -> None:
        self._shown_queue = items

    def late_steering(self) -> None:
        """Steering that missed its turn becomes next-turn input (context stays for the next step)."""
        moved: list[Message] = []
        news: list[NewEvent[Any]] = []
        for index in reversed(range(len(self.inbox.next_step))):
            message = self.inbox.next_step[index]
            if is_steering(message):
                news.append(self.inbox.splice("next-step", index, 1))
                moved.insert(0, message)
        news.append(self.inbox.splice("next-turn", len(self.inbox.next_turn), 0, moved))
        self.record(*news)
