"""OpenAI chat-completions wire format: request messages out, streamed chunks in.

Shared by the `openai-compatible` adapter (over HTTP) and the `local` adapter (llama.cpp's
in-process server streams the same chunk shapes).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from contract.content import (
    BlockEndChunk,
    BlockStartChunk,
    ContentBlock,
    FinishChunk,
    ImageBlock,
    Message,
    ReasoningBlock,
    ReasoningDeltaChunk,
    TextBlock,
    TextDeltaChunk,
    ToolCallBlock,
    ToolCallDeltaChunk,
    ToolResultBlock,
    Usage,
    UsageChunk,
)
from host.engine.llm.base import LlmRequest, ToolSpec
from host.engine.store import ids

DeltaChunk = TypeVar("DeltaChunk", TextDeltaChunk, ReasoningDeltaChunk)

log = logging.getLogger(__name__)

OpenAiMessage = dict[str, Any]

FINISH_REASONS = {
    "stop": "stop",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "length": "max-tokens",
    "content_filter": "stop",
}


async def to_openai_messages(request: LlmRequest, *, tools_as_text: bool = False) -> list[OpenAiMessage]:
    """Contract messages (plus the system prompt) in OpenAI chat format.

    Tool calls become assistant `tool_calls` with `content: ""` (never null: llama-cpp-python
    rejects null), tool results become `role: "tool"` messages. With `tools_as_text` (models
    without tool support) both are rendered as plain text instead. Images are sent as data URLs
    when `request.load_attachment` is given, else replaced by a short text note. Reasoning blocks
    are not sent back (providers such as DeepSeek reject them in the input).
    """
    out: list[OpenAiMessage] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    images: list[dict[str, Any]] = []  # a tool's image waits until the run of tool results ends
    for message in request.messages:
        tool = message.role == "tool" or _only_tool_results(message)
        if not tool and images:
            out.append(_images_message(images))
            images = []
        if message.role == "assistant":
            out.extend(_assistant(message, tools_as_text))
        elif tool:
            out.extend(_tool_results(message, tools_as_text))
            for block in message.content:
                if isinstance(block, ImageBlock):
                    images.append(await _image_part(block, request))
        else:
            out.append({"role": "user", "content": await _user_content(message, request)})
    if images:
        out.append(_images_message(images))
    return out


def _images_message(parts: list[dict[str, Any]]) -> OpenAiMessage:
    """The images tool calls returned, as the user message right after the tool results (a tool
    message carries text only; docs/decisions.md, "Images the agent reads")."""
    return {
        "role": "user",
        "content": [{"type": "text", "text": "The image(s) the tool call(s) above returned:"}, *parts],
    }


def _only_tool_results(message: Message) -> bool:
    return bool(message.content) and all(isinstance(b, ToolResultBlock) for b in message.content)


def _assistant(message: Message, tools_as_text: bool) -> list[OpenAiMessage]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ToolCallBlock):
            if tools_as_text:
                texts.append(f"[called tool {block.name} with arguments {block.arguments}]")
            else:
                function = {"name": block.name, "arguments": block.arguments or "{}"}
                calls.append({"id": block.id, "type": "function", "function": function})
    entry: OpenAiMessage = {"role": "assistant", "content": "".join(texts)}
    if calls:
        entry["tool_calls"] = calls
    return [entry]


def _tool_results(message: Message, tools_as_text: bool) -> list[OpenAiMessage]:
    out: list[OpenAiMessage] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            content = block.content if not block.is_error else f"Error: {block.content}"
            if tools_as_text:
                out.append({"role": "user", "content": f"[tool result]\n{content}"})
            else:
                out.append({"role": "tool", "tool_call_id": block.tool_call_id, "content": content})
        elif isinstance(block, TextBlock):
            out.append({"role": "user", "content": block.text})
    return out


async def _user_content(message: Message, request: LlmRequest) -> str | list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append(await _image_part(block, request))
        elif isinstance(block, ToolResultBlock):
            parts.append({"type": "text", "text": f"[tool result]\n{block.content}"})
    if all(p["type"] == "text" for p in parts):
        return "\n\n".join(p["text"] for p in parts)
    return parts


async def _image_part(block: ImageBlock, request: LlmRequest) -> dict[str, Any]:
    ref = block.attachment
    data = await request.load_attachment(ref) if request.load_attachment else None
    if data is None:
        label = ref.name or ref.attachment_id
        return {"type": "text", "text": f"[image {label} ({ref.media_type}) not available to the model]"}
    url = f"data:{ref.media_type};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


def to_openai_tool(tool: ToolSpec) -> dict[str, Any]:
    """One tool as a chat-completions request lists it."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


def to_openai_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [to_openai_tool(t) for t in tools]


@dataclass
class _Block:
    index: int
    kind: str  # "text" | "reasoning" | "tool-call"
    parts: list[str] = field(default_factory=list)
    call_id: str = ""
    name: str = ""
    key: int | None = None
    """The provider's tool-call index (tool-call blocks only)."""

    def final(self) -> ContentBlock:
        text = "".join(self.parts)
        if self.kind == "text":
            return TextBlock(text=text)
        if self.kind == "reasoning":
            return ReasoningBlock(text=text)
        return ToolCallBlock(id=self.call_id, name=self.name, arguments=text)


class MalformedChunk(ValueError):
    """A streamed chunk of a shape this adapter cannot read; the text completes "the provider sent …"."""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MalformedChunk(f"an answer chunk whose {what} is not text")
    return value


def delta_maker(cls: type[DeltaChunk]) -> Callable[[int, str], DeltaChunk]:
    """A maker of `cls(index=…, text=…)` without validation — `text` is a str and the index
    ours — that builds the very object `cls.model_construct(index=…, text=…)` does, without its
    walk over the fields on every call: this runs once per streamed delta, and the walk was a
    tenth of the host's time per delta (docs/decisions/per-delta-stream-work.md; the likeness
    is tests/engine/test_delta_maker.py's)."""
    if cls.__pydantic_post_init__ or cls.__pydantic_root_model__ or cls.model_config.get("extra") == "allow":
        raise TypeError(f"{cls.__name__} needs pydantic's own model_construct")
    kind = cls.model_fields["type"].default
    new = cls.__new__
    put = object.__setattr__

    def make(index: int, text: str) -> DeltaChunk:
        chunk = new(cls)
        put(chunk, "__dict__", {"type": kind, "index": index, "text": text})
        put(chunk, "__pydantic_fields_set__", {"index", "text"})
        put(chunk, "__pydantic_extra__", None)
        put(chunk, "__pydantic_private__", None)
        return chunk

    return make


_text_delta = delta_maker(TextDeltaChunk)
_reasoning_delta = delta_maker(ReasoningDeltaChunk)


class ChunkAssembler:
    """Turns OpenAI `chat.completion.chunk` dicts into contract stream chunks.

    Text and reasoning blocks close when another kind of block starts; tool-call blocks (one
    per OpenAI tool index) stay open until the stream ends, so a server that interleaves or
    repeats a call's id and name on every delta (llama.cpp) still yields one clean block.
    """

    def __init__(self) -> None:
        self.blocks: list[_Block] = []
        self._current: _Block | None = None
        self._tools: dict[int, _Block] = {}
        self._finish_reason: str | None = None
        self._usage: Usage | None = None
        self.emitted = 0

    @property
    def finished(self) -> bool:
        return self._finish_reason is not None

    def feed(self, chunk: Any) -> list[Any]:
        """The contract chunks for one OpenAI chunk; raises MalformedChunk on a shape it cannot read."""
        if not isinstance(chunk, dict):
            raise MalformedChunk("an answer chunk that is not a JSON object")
        out: list[Any] = []
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage = Usage(
                input_tokens=_count(usage.get("prompt_tokens")),
                output_tokens=_count(usage.get("completion_tokens")),
            )
        choices = chunk.get("choices") or []
        if not isinstance(choices, list):
            raise MalformedChunk("an answer chunk whose `choices` is not a list")
        for choice in choices:
            if not isinstance(choice, dict):
                raise MalformedChunk("an answer chunk whose `choices` entry is not an object")
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            if not isinstance(delta, dict):
                raise MalformedChunk("an answer chunk whose `delta` is not an object")
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                out += self._append("reasoning", reasoning)
            content = _text(delta.get("content"), "`content`")
            if content:
                out += self._append("text", content)
            calls = delta.get("tool_calls") or []
            if not isinstance(calls, list):
                raise MalformedChunk("an answer chunk whose `tool_calls` is not a list")
            for call in calls:
                out += self._tool_delta(call)
            if choice.get("finish_reason"):
                self._finish_reason = str(choice["finish_reason"])
        self.emitted += len(out)
        return out

    def close(self) -> list[Any]:
        """Closes open blocks and yields usage (when known) and the one `finish` chunk."""
        out = self._close_current()
        for block in sorted(self._tools.values(), key=lambda b: b.index):
            if not block.call_id:
                block.call_id = ids.tool_call_id()
            out.append(BlockEndChunk(index=block.index, block=block.final()))
        self._tools.clear()
        if self._usage is not None:
            out.append(UsageChunk(usage=self._usage))
        reason = FINISH_REASONS.get(self._finish_reason or "stop", "stop")
        if reason == "stop" and any(b.kind == "tool-call" for b in self.blocks):
            reason = "tool-calls"
        out.append(FinishChunk(reason=reason))  # type: ignore[arg-type]
        self.emitted += len(out)
        return out

    def _new_block(self, kind: str) -> tuple[_Block, list[Any]]:
        block = _Block(index=len(self.blocks), kind=kind)
        self.blocks.append(block)
        return block, [BlockStartChunk(index=block.index, block_type=kind)]  # type: ignore[arg-type]

    def _close_current(self) -> list[Any]:
        block, self._current = self._current, None
        if block is None:
            return []
        return [BlockEndChunk(index=block.index, block=block.final())]

    def _append(self, kind: str, text: str) -> list[Any]:
        out: list[Any] = []
        if self._current is None or self._current.kind != kind:
            out += self._close_current()
            for block in sorted(self._tools.values(), key=lambda b: b.index):
                out.append(BlockEndChunk(index=block.index, block=block.final()))
            self._tools.clear()
            self._current, started = self._new_block(kind)
            out += started
        block = self._current
        block.parts.append(text)
        out.append((_text_delta if kind == "text" else _reasoning_delta)(block.index, text))
        return out

    def _tool_delta(self, call: Any) -> list[Any]:
        out: list[Any] = []
        if not isinstance(call, dict):
            raise MalformedChunk("a tool call that is not an object")
        index = call.get("index", 0)
        key = index if isinstance(index, int) else 0
        function = call.get("function") or {}
        if not isinstance(function, dict):
            raise MalformedChunk("a tool call whose `function` is not an object")
        call_id = _text(call.get("id"), "tool call id")
        name = _text(function.get("name"), "tool name")
        arguments = _text(function.get("arguments"), "tool arguments")
        block = self._tools.get(key)
        new_name: str | None = None
        if block is None:
            same = [b for b in self.blocks if b.kind == "tool-call" and call_id and b.call_id == call_id]
            if any(b.key == key for b in same):
                log.warning("dropping a late delta for closed tool call %s", call_id)
                return out
            if same:
                # Another call of this answer already has the id (a provider reusing one id):
                # a fresh id keeps each call paired with its own result (docs/decisions.md, "UX pass").
                log.debug("tool call id %s reused at index %s; giving it a fresh id", call_id, key)
                call_id = ""
            out += self._close_current()
            block, started = self._new_block("tool-call")
            out += started
            self._tools[key] = block
            block.key = key
            block.call_id = call_id or ids.tool_call_id()
            block.name = name
            new_name = name or None
        else:
            if name and not block.name:
                block.name = new_name = name
            elif name and name != block.name and not name.startswith(block.name):
                log.debug("tool call %s renamed mid-stream from %s to %s", block.call_id, block.name, name)
        if not arguments and new_name is None:
            return out
        block.parts.append(arguments)
        out.append(
            ToolCallDeltaChunk(index=block.index, id=block.call_id, name=new_name, arguments_delta=arguments)
        )
        return out
