"""Message, tool, approval and file-restore events."""

from __future__ import annotations

from typing import Any, Literal

from contract.approvals import ApprovalOutcome, ApprovalWhy
from contract.content import (
    AttachmentRef,
    ContentBlock,
    ImageBlock,
    Message,
    MessageSource,
    StreamChunk,
    ToolResultBlock,
    Usage,
)
from contract.events import (
    ApprovalAsked,
    ApprovalDecided,
    AssistantChunk,
    AssistantMessage,
    TodoItem,
    TodoWrite,
    ToolCall,
    ToolError,
    ToolResult,
)
from contract.filechange import FileChange, FilesRestored, RestoredFile
from host.engine.sessions.events.base import NewEvent
from host.engine.store import ids


def user_message(message: Message) -> NewEvent[Message]:
    return NewEvent("user/message", message)


def steering_message(message: Message) -> NewEvent[Message]:
    return NewEvent("steering/message", message)


def assistant_chunk(turn: int, step: int, chunk: StreamChunk) -> NewEvent[AssistantChunk]:
    return NewEvent("assistant/chunk", AssistantChunk(turn=turn, step=step, chunk=chunk))


def assistant_message(
    turn: int,
    step: int,
    message: Message,
    chunk_seqs: list[int],
    *,
    usage: Usage | None = None,
    interrupted: bool | None = None,
) -> NewEvent[AssistantMessage]:
    """`sourceEventSeqs` are the seqs of the `assistant/chunk`s the message was built from."""
    data = AssistantMessage(turn=turn, step=step, message=message, usage=usage, interrupted=interrupted)
    return NewEvent("assistant/message", data, list(chunk_seqs))


Role = Literal["user", "assistant", "tool"]


def new_message(role: Role, content: list[Any], source: MessageSource) -> Message:
    """A message with a fresh id."""
    return Message(id=ids.message_id(), role=role, content=content, source=source)


def tool_call(turn: int, step: int, call_id: str, name: str, arguments: str) -> NewEvent[ToolCall]:
    call = ToolCall(turn=turn, step=step, call_id=call_id, name=name, arguments=arguments)
    return NewEvent("tool/call", call)


def tool_result(
    turn: int,
    step: int,
    call_id: str,
    text: str,
    error: ToolError | None = None,
    change: FileChange | None = None,
    changes: list[FileChange] | None = None,
    snapshot_error: str | None = None,
    image: AttachmentRef | None = None,
) -> NewEvent[ToolResult]:
    """The tool's answer as a `tool` message; an error result also names the tool and a code; a
    file tool's result carries the change it made (the model never sees it); read_image's image
    follows the result block (the adapters send it as an image part)."""
    block = ToolResultBlock(tool_call_id=call_id, content=text, is_error=True if error else None)
    blocks: list[ContentBlock] = [block]
    if image is not None:
        blocks.append(ImageBlock(attachment=image))
    message = new_message("tool", blocks, MessageSource(kind="tool", call_id=call_id))
    result = ToolResult(
        turn=turn,
        step=step,
        message=message,
        error=error,
        change=change,
        changes=changes,
        snapshot_error=snapshot_error,
    )
    return NewEvent("tool/result", result)


def todo_write(todos: list[TodoItem]) -> NewEvent[TodoWrite]:
    return NewEvent("todo/write", TodoWrite(todos=todos))


def approval_asked(
    approval_id: str,
    tool_name: str,
    call_id: str,
    reason: str,
    preview: FileChange | None = None,
    why: ApprovalWhy | None = None,
) -> NewEvent[ApprovalAsked]:
    asked = ApprovalAsked(
        id=approval_id, tool_name=tool_name, call_id=call_id, reason=reason, preview=preview, why=why
    )
    return NewEvent("approval/asked", asked)


def approval_decided(
    approval_id: str, outcome: ApprovalOutcome, note: str | None = None
) -> NewEvent[ApprovalDecided]:
    return NewEvent("approval/decided", ApprovalDecided(id=approval_id, outcome=outcome, note=note))


def files_restored(
    cause: Literal["revert", "fork", "revert-file", "revert-hunk", "rewind"],
    turn: int,
    files: list[RestoredFile],
    other: str | None = None,
    error: str | None = None,
) -> NewEvent[FilesRestored]:
    data = FilesRestored(cause=cause, turn=turn, files=files, fork_session_id=other, error=error)
    return NewEvent("files/restored", data)
