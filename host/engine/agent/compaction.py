"""Compaction (docs/architecture.md, "Compaction"): older surface replaced by a model summary.

One attempt appends `compact/start`, asks the session's model for a summary in one request, then
appends `compact/summary`, the replacing `user/message {surfaceOp: replace}` and `compact/end` as
one write. A failed attempt appends `compact/end {error}` and changes nothing. The shadowed
events stay in the log; only the surface (what the model is sent) changes.

Automatic compaction runs before a model request whose prompt would pass `TRIGGER_RATIO` of the
model's context window and keeps the most recent surface verbatim; `/compact` summarises all of
it (docs/decisions.md, "Long sessions").
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from contract.content import (
    STREAM_CHUNK,
    BlockEndChunk,
    ImageBlock,
    Message,
    MessageSource,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
    UsageChunk,
)
from contract.sessions import ModelSelection
from host.engine.agent.transcript import Node, Surface
from host.engine.llm.base import LlmAdapter, LlmRequest, RetryHook
from host.engine.sessions import events
from host.engine.sessions.journal import Journal
from host.engine.store import ids

TRIGGER_RATIO = 0.8
"""Compact before a request whose estimated prompt passes this share of the window."""
KEEP_RATIO = 0.3
"""Automatic compaction keeps this share of the window of recent surface verbatim."""
SUMMARY_RATIO = 1 / 16
MIN_SUMMARY_TOKENS = 256
MAX_SUMMARY_TOKENS = 4096
NODE_CAP_CHARS = 4000
"""A message longer than this appears in the summary request cut to its head and tail."""
MIN_NODE_CAP_CHARS = 200
PROMPT_OVERHEAD_TOKENS = 600

SUMMARY_SYSTEM = (
    "You compress the conversation of a coding agent so that it can continue its work with less "
    "context. The agent will read your summary instead of the messages. Write, under short "
    "headings with bullet points: the user's requests and goals (quote exact wording when it "
    "matters); decisions and constraints; files read or changed, with paths and what changed; "
    "commands run and their important results or errors; the current state of the work and what "
    "remains to do next; open questions. Be specific (names, paths, numbers, error messages), be "
    "brief, do not invent anything, and write in the language the user writes in."
)
SUMMARY_ASK = (
    "Here is the conversation to summarise, oldest first.\n\n<conversation>\n{transcript}\n"
    "</conversation>\n\nWrite the summary now."
)
REPLACEMENT_HEAD = (
    "Summary of the earlier conversation ({count} messages were summarised to save context):\n\n"
)

FailureReason = Literal["busy", "cancelled", "changed", "summary", "commit", "persistence"]


@dataclass(frozen=True)
class Compacted:
    shadowed: int
    """How many surface messages the summary replaced."""
    tokens: int
    """Their estimated size in tokens."""
    summary_seq: int
    """The seq of `compact/summary` (what `/compact` points at)."""


@dataclass(frozen=True)
class CompactionFailed:
    reason: FailureReason
    message: str


CompactOutcome = Compacted | CompactionFailed | None
"""None: nothing to compact (the attempt wrote nothing)."""


@dataclass(frozen=True)
class Budget:
    """The model a compaction serves and how much it holds."""

    selection: ModelSelection
    adapter: LlmAdapter
    window: int
    chars_per_token: float

    def needs_compaction(self, prompt_tokens: int) -> bool:
        return prompt_tokens > TRIGGER_RATIO * self.window

    @property
    def summary_tokens(self) -> int:
        return max(MIN_SUMMARY_TOKENS, min(MAX_SUMMARY_TOKENS, int(self.window * SUMMARY_RATIO)))

    @property
    def transcript_chars(self) -> int:
        """What the summary request may carry, leaving room for its answer."""
        tokens = TRIGGER_RATIO * self.window - self.summary_tokens - PROMPT_OVERHEAD_TOKENS
        return max(2_000, int(tokens * self.chars_per_token))


def shadow_count(surface: Surface, keep_chars: int | None) -> int:
    """How many leading nodes to replace: all of them (`keep_chars` None), else all but the
    recent ones that fit in `keep_chars`; the kept part never starts with a tool result."""
    nodes = surface.nodes
    if not nodes:
        return 0
    if keep_chars is None:
        cut = len(nodes)
    else:
        cut, kept = len(nodes), 0
        while cut > 0 and kept + nodes[cut - 1].chars <= keep_chars:
            cut -= 1
            kept += nodes[cut].chars
        while cut < len(nodes) and nodes[cut].message.role == "tool":
            cut += 1
        if cut == len(nodes):  # keep at least the newest exchange (a call and its results)
            cut = max((i for i, n in enumerate(nodes) if n.message.role != "tool"), default=0)
    if cut == 1 and _is_summary(nodes[0].message):
        return 0  # only the previous summary: nothing new to compress
    return cut


def _is_summary(message: Message) -> bool:
    return message.source.kind == "plugin" and getattr(message.source, "plugin", None) == "compact"


# ---- the summary request -----------------------------------------------------------------------


def _cut(text: str, cap: int) -> str:
    if len(text) <= cap:
        return text
    half = cap // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters cut …]\n{text[-half:]}"


def _render(node: Node, cap: int) -> str:
    message = node.message
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock):
            parts.append(f"[called {block.name} {block.arguments}]")
        elif isinstance(block, ToolResultBlock):
            parts.append(("[error] " if block.is_error else "") + block.content)
        elif isinstance(block, ImageBlock):
            parts.append(f"[image {block.attachment.name or block.attachment.attachment_id}]")
        elif isinstance(block, ReasoningBlock):
            continue
    who = {"user": "User", "assistant": "Assistant", "tool": "Tool result"}[message.role]
    if message.role == "user" and message.source.kind != "user":
        who = "Earlier summary" if _is_summary(message) else "Context"
    return f"{who}: {_cut(chr(10).join(parts), cap)}"


def transcript(nodes: list[Node], max_chars: int) -> str:
    """The shadowed messages as one text that fits `max_chars`: long messages are cut first
    (to their head and tail), then, if still too long, messages from the middle are left out."""
    cap = NODE_CAP_CHARS
    rendered = [_render(n, cap) for n in nodes]
    while sum(map(len, rendered)) + 2 * len(rendered) > max_chars and cap > MIN_NODE_CAP_CHARS:
        cap = max(MIN_NODE_CAP_CHARS, cap // 2)
        rendered = [_render(n, cap) for n in nodes]
    total = sum(map(len, rendered)) + 2 * len(rendered)
    if total > max_chars:
        head, tail = rendered[:2], rendered[2:]
        room = max_chars - sum(map(len, head)) - 80
        kept: list[str] = []
        for text in reversed(tail):
            if room - len(text) - 2 < 0:
                break
            kept.append(text)
            room -= len(text) + 2
        omitted = len(tail) - len(kept)
        rendered = [*head, f"[… {omitted} messages left out …]", *reversed(kept)]
    return "\n\n".join(rendered)


async def summarise(
    budget: Budget, nodes: list[Node], on_retry: RetryHook | None
) -> tuple[str, Usage | None, list[Any]]:
    """(summary text, usage, raw output blocks) from one model request."""
    ask = SUMMARY_ASK.format(transcript=transcript(nodes, budget.transcript_chars))
    request = LlmRequest(
        model=budget.selection.model,
        messages=[events.new_message("user", [TextBlock(text=ask)], MessageSource(kind="plugin"))],
        system=SUMMARY_SYSTEM,
        tools=[],
        reasoning_effort=budget.selection.reasoning_effort,
        max_tokens=budget.summary_tokens,
        on_retry=on_retry,
    )
    blocks: dict[int, Any] = {}
    usage: Usage | None = None
    async with aclosing(budget.adapter.stream(request)) as chunks:  # type: ignore[type-var]
        async for raw in chunks:
            chunk: Any = raw if isinstance(raw, BaseModel) else STREAM_CHUNK.validate_python(raw)
            if isinstance(chunk, BlockEndChunk):
                blocks[chunk.index] = chunk.block
            elif isinstance(chunk, UsageChunk):
                usage = chunk.usage
    output = [blocks[i] for i in sorted(blocks)]
    text = "\n".join(b.text for b in output if isinstance(b, TextBlock)).strip()
    return text, usage, output


# ---- one attempt -------------------------------------------------------------------------------


async def compact(
    journal: Journal,
    surface: Surface,
    budget: Budget,
    *,
    turn: int | None,
    command_id: str | None = None,
    keep_chars: int | None = None,
    on_retry: RetryHook | None = None,
) -> CompactOutcome:
    """One compaction attempt (the caller holds the session: no turn or other attempt runs)."""
    count = shadow_count(surface, keep_chars)
    if count == 0:
        return None
    shadowed = list(surface.nodes[:count])
    seqs = [n.seq for n in shadowed]
    tokens = round(sum(n.chars for n in shadowed) / budget.chars_per_token)
    compaction_id = ids.compaction_id()
    journal.append(events.compact_start(compaction_id, turn, command_id))

    def fail(reason: FailureReason, message: str) -> CompactionFailed:
        journal.append(events.compact_end(compaction_id, turn, command_id, f"{reason}: {message}"))
        return CompactionFailed(reason, message)

    try:
        text, usage, output = await summarise(budget, shadowed, on_retry)
    except asyncio.CancelledError:
        fail("cancelled", "the compaction was cancelled")
        raise
    except Exception as exc:
        return fail("summary", str(exc) or type(exc).__name__)
    if not text:
        return fail("summary", "the model returned an empty summary")
    if [n.seq for n in surface.nodes[:count]] != seqs:
        return fail("changed", "the conversation changed while it was being summarised")
    origin: dict[str, Any] = {"kind": "plugin", "plugin": "compact", "compactionId": compaction_id}
    if command_id is not None:
        origin["sourceCommandId"] = command_id
    source = MessageSource.model_validate(origin)
    summary = [TextBlock(text=text)]
    body = [TextBlock(text=REPLACEMENT_HEAD.format(count=count) + text)]
    message = events.new_message("user", body, source)
    selection = budget.selection
    stamped = journal.append_all(
        [
            events.compact_summary(
                compaction_id,
                command_id,
                list(summary),
                seqs,
                tokens,
                selection.provider,
                selection.model,
                budget.summary_tokens,
                usage,
                output,
            ),
            events.replacement(message, 0, count - 1, seqs),
            events.compact_end(compaction_id, turn, command_id),
        ]
    )
    surface.replace(0, count - 1, stamped[1].seq, message)
    return Compacted(count, tokens, stamped[0].seq)


def describe(outcome: CompactOutcome) -> str:
    """`/compact`'s answer text."""
    if outcome is None:
        return "No compactable history yet."
    if isinstance(outcome, Compacted):
        return f"Compacted {outcome.shadowed} history items (~{outcome.tokens} tokens)."
    return f"Compaction failed ({outcome.reason}): {outcome.message}"


async def fit(
    journal: Journal,
    surface: Surface,
    budget: Budget,
    fixed_chars: int,
    turn: int,
    on_retry: RetryHook | None,
) -> int | None:
    """Before a turn's request: compact when its prompt (the surface plus `fixed_chars` of system
    prompt and tool descriptions) would pass the trigger, keeping recent surface verbatim.
    Returns the new estimate after an attempt, None when none was needed."""
    if not budget.needs_compaction(surface.estimate(fixed_chars, budget.chars_per_token)):
        return None
    keep = int(KEEP_RATIO * budget.window * budget.chars_per_token)
    await compact(journal, surface, budget, turn=turn, keep_chars=keep, on_retry=on_retry)
    return surface.estimate(fixed_chars, budget.chars_per_token)
