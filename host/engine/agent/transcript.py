"""The conversation the model sees: surface nodes in log order, compaction replacements applied
(docs/architecture.md, "Compaction").

A node is one surface event (`user/message`, `steering/message`, `assistant/message`,
`tool/result`) and its message. A replacing event (`surfaceOp: {op: "replace", start, end}`)
takes the place of the nodes at positions `start..end` of the surface as it stood (`start > end`
inserts without removing). Folding a log and extending the surface live give the same nodes,
so positions written live mean the same thing on replay.

Token counts are estimates (docs/decisions.md, "Long sessions"): the provider's own count for
the newest answer when there is one, plus the characters of what came after it at a fixed
characters-per-token rate.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from contract.content import (
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
)
from contract.events import ReplaceOp, SessionEvent

CHARS_PER_TOKEN = 4.0
"""Remote models (BPE tokenizers on mostly-English code and prose)."""
IMAGE_CHARS = 3_200
"""An image counts like ~800 tokens (a mid-size image on most vision models)."""
MESSAGE_OVERHEAD_CHARS = 16
"""Role markers and separators per message."""


def message_chars(message: Message) -> int:
    """The size of a message as the model reads it, in characters."""
    total = MESSAGE_OVERHEAD_CHARS
    for block in message.content:
        if isinstance(block, TextBlock | ReasoningBlock):
            total += len(block.text)
        elif isinstance(block, ToolCallBlock):
            total += len(block.name) + len(block.arguments)
        elif isinstance(block, ToolResultBlock):
            total += len(block.content)
        elif isinstance(block, ImageBlock):
            total += IMAGE_CHARS
    return total


def event_message(event: SessionEvent) -> Message | None:
    """The model-visible message an event carries (user/steering/assistant/tool result)."""
    data = event.data
    if event.type in ("user/message", "steering/message"):
        return Message.model_validate(data)
    if event.type in ("assistant/message", "tool/result"):
        return Message.model_validate(data["message"])
    return None


@dataclass(slots=True)
class Node:
    seq: int
    message: Message
    chars: int


class Surface:
    """The surface nodes of one session, in order."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._anchor: tuple[int, int] | None = None
        """(nodes up to and including the newest answer with usage, the tokens its provider
        counted for prompt + answer); None until an answer reports usage, and after a
        replacement."""

    def __len__(self) -> int:
        return len(self.nodes)

    def add(self, seq: int, message: Message, usage: Usage | None = None) -> None:
        self.nodes.append(Node(seq, message, message_chars(message)))
        if usage is not None and (usage.input_tokens or usage.output_tokens):
            self._anchor = (len(self.nodes), usage.input_tokens + usage.output_tokens)

    def replace(self, start: int, end: int, seq: int, message: Message) -> None:
        """Positions `start..end` give way to `message` (`start > end`: insert at `start`)."""
        node = Node(seq, message, message_chars(message))
        stop = end + 1 if end >= start else start
        self.nodes[start:stop] = [node]
        self._anchor = None

    def messages(self) -> list[Message]:
        """What a model request carries (messages left empty by an interrupted answer are not)."""
        return [n.message for n in self.nodes if n.message.content]

    def chars(self, start: int = 0, end: int | None = None) -> int:
        return sum(n.chars for n in self.nodes[start:end])

    def estimate(self, fixed_chars: int, chars_per_token: float = CHARS_PER_TOKEN) -> int:
        """Tokens a request of the whole surface would take (`fixed_chars`: system prompt and
        tool descriptions, already inside the provider's count when there is one)."""
        if self._anchor is not None:
            count, tokens = self._anchor
            return tokens + round(self.chars(count) / chars_per_token)
        return round((fixed_chars + self.chars()) / chars_per_token)


def fold_surface(events: Iterable[SessionEvent]) -> Surface:
    """The surface of a log, from its surface events in seq order. A `session/rewound` folds the
    surface again from the events before its `atSeq` (docs/decisions.md, "Rewind in place"), so
    the rewound turns, and a compaction among them, are as if they had not been."""
    surface = Surface()
    seen: list[SessionEvent] = []
    for event in events:
        if event.type == "session/rewound":
            at = int(event.data.get("atSeq", 0))
            surface = fold_surface([e for e in seen if e.seq < at])
            seen.append(event)
            continue
        seen.append(event)
        message = event_message(event)
        if message is None:
            continue
        op = event.surface_op
        if isinstance(op, ReplaceOp):
            surface.replace(op.start, op.end, event.seq, message)
            continue
        usage = None
        if event.type == "assistant/message":
            raw = event.data.get("usage")
            usage = Usage.model_validate(raw) if isinstance(raw, dict) else None
        surface.add(event.seq, message, usage)
    return surface
