"""What the chunks of one streamed answer said so far: the turn's record while the model speaks.

It keeps the seqs of the `assistant/chunk` events (the `sourceEventSeqs` of the answer), the
text of blocks still open, the blocks already ended, usage and the finish reason — enough to
build the answer when the stream ends, or an interrupted message when it is cut short.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from contract.content import (
    BlockEndChunk,
    BlockStartChunk,
    ContentBlock,
    FinishChunk,
    ReasoningBlock,
    ReasoningDeltaChunk,
    TextBlock,
    TextDeltaChunk,
    ToolCallBlock,
    Usage,
    UsageChunk,
)


@dataclass
class Streamed:
    seqs: list[int] = field(default_factory=list)
    partial: dict[int, list[str]] = field(default_factory=dict)
    """Open text and reasoning blocks by index: [block type, text parts…]."""
    ended: dict[int, ContentBlock] = field(default_factory=dict)
    usage: Usage | None = None
    finish: str = "stop"

    def track(self, chunk: Any, seq: int) -> None:
        self.seqs.append(seq)
        if isinstance(chunk, BlockStartChunk) and chunk.block_type != "tool-call":
            self.partial[chunk.index] = [chunk.block_type]
        elif isinstance(chunk, TextDeltaChunk | ReasoningDeltaChunk) and chunk.index in self.partial:
            self.partial[chunk.index].append(chunk.text)
        elif isinstance(chunk, BlockEndChunk):
            self.ended[chunk.index] = chunk.block
            self.partial.pop(chunk.index, None)
        elif isinstance(chunk, UsageChunk):
            self.usage = chunk.usage
        elif isinstance(chunk, FinishChunk):
            self.finish = chunk.reason

    def content(self) -> list[ContentBlock]:
        """The answer's blocks, once the stream has ended."""
        return [self.ended[i] for i in sorted(self.ended)]

    def interrupted(self) -> list[ContentBlock]:
        """What a cut-short answer said: ended text and reasoning, then open blocks' text (tool
        calls that had not ended are dropped: they were never complete)."""
        blocks = {i: b for i, b in self.ended.items() if not isinstance(b, ToolCallBlock)}
        for index, (kind, *parts) in self.partial.items():
            joined = "".join(parts)
            if joined:
                blocks[index] = TextBlock(text=joined) if kind == "text" else ReasoningBlock(text=joined)
        return [blocks[i] for i in sorted(blocks)]
