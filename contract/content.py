"""Messages, content blocks and streamed model chunks, passed through unchanged
(docs/architecture.md, "Session events")."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter

from contract._base import DEFERRED, OpenModel, WireModel

MediaType = Literal["image/png", "image/jpeg", "image/webp", "image/gif"]


class AttachmentRef(WireModel):
    """An image stored once (content-addressed); the log refers to it by id, never base64."""

    attachment_id: str
    media_type: MediaType
    bytes: int = Field(ge=0)
    width: int = Field(ge=0)
    height: int = Field(ge=0)
    name: str | None = None


class Attached(WireModel):
    """What a text part carries when a person attached it with `@` (session.prompt's `attach`):
    clients show it as a chip, the model reads the text (docs/architecture.md, "The @ finder")."""

    kind: Literal["file", "folder", "resource"]
    path: str
    """A file's or folder's path; a resource's label `server:name`."""
    size: int = Field(ge=0)
    """A file's size in bytes; a folder's number of entries; a resource's bytes read."""
    truncated: bool = False
    """Cut: a file's first bytes only, or a listing's first entries."""
    binary: bool = False
    """A file that is not text: only its name and size were sent."""
    server: str | None = None
    """A resource's MCP server."""
    uri: str | None = None
    """A resource's uri (what `attach` names to read it again)."""
    mime_type: str | None = None


class ReviewNote(WireModel):
    """What a text part carries when it is a review comment (session.prompt's `review-comment`):
    clients show a chip linking back to the lines, the model reads the text
    (docs/decisions/review-pane.md)."""

    path: str
    start_line: int
    end_line: int
    side: Literal["new", "old"]
    body: str


class TextBlock(WireModel):
    type: Literal["text"] = "text"
    text: str
    attached: Attached | None = None
    review: ReviewNote | None = None


class ReasoningBlock(WireModel):
    type: Literal["reasoning"] = "reasoning"
    text: str


class ImageBlock(WireModel):
    type: Literal["image"] = "image"
    attachment: AttachmentRef


class ToolCallBlock(WireModel):
    type: Literal["tool-call"] = "tool-call"
    id: str
    name: str
    arguments: str
    """The raw JSON string the model produced (it may be malformed)."""


class ToolResultBlock(WireModel):
    type: Literal["tool-result"] = "tool-result"
    tool_call_id: str
    content: str
    is_error: bool | None = None


ContentBlock = Annotated[
    Union[TextBlock, ReasoningBlock, ImageBlock, ToolCallBlock, ToolResultBlock],
    Field(discriminator="type"),
]
CONTENT_BLOCK: TypeAdapter[Any] = TypeAdapter(ContentBlock, config=DEFERRED)


class MessageSource(OpenModel):
    """Where a message came from: `user {rpcId, clientTimeZone?}`, `tool {callId}`,
    `model {provider?, model?}`, `plugin {meta?}`; other kinds and keys pass through."""

    kind: str
    rpc_id: str | None = None
    client_time_zone: str | None = None
    call_id: str | None = None
    provider: str | None = None
    model: str | None = None
    meta: dict[str, Any] | None = None


class Message(WireModel):
    id: str
    role: Literal["user", "assistant", "tool"]
    content: list[ContentBlock]
    source: MessageSource


class Usage(OpenModel):
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)


# ---- stream chunks: what an LLM adapter yields and `assistant/chunk` carries --------------

BlockType = Literal["text", "reasoning", "tool-call"]


class BlockStartChunk(WireModel):
    type: Literal["block-start"] = "block-start"
    index: int = Field(ge=0)
    block_type: BlockType


class TextDeltaChunk(WireModel):
    type: Literal["text-delta"] = "text-delta"
    index: int = Field(ge=0)
    text: str


class ReasoningDeltaChunk(WireModel):
    type: Literal["reasoning-delta"] = "reasoning-delta"
    index: int = Field(ge=0)
    text: str


class ToolCallDeltaChunk(WireModel):
    type: Literal["tool-call-delta"] = "tool-call-delta"
    index: int = Field(ge=0)
    id: str
    name: str | None = None
    arguments_delta: str = ""


class BlockEndChunk(WireModel):
    type: Literal["block-end"] = "block-end"
    index: int = Field(ge=0)
    block: ContentBlock


class UsageChunk(WireModel):
    type: Literal["usage"] = "usage"
    usage: Usage


class FinishChunk(WireModel):
    type: Literal["finish"] = "finish"
    reason: Literal["stop", "tool-calls", "max-tokens", "error"]


StreamChunk = Annotated[
    Union[
        BlockStartChunk,
        TextDeltaChunk,
        ReasoningDeltaChunk,
        ToolCallDeltaChunk,
        BlockEndChunk,
        UsageChunk,
        FinishChunk,
    ],
    Field(discriminator="type"),
]
STREAM_CHUNK: TypeAdapter[Any] = TypeAdapter(StreamChunk, config=DEFERRED)
