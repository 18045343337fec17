"""`session.*`: each method takes the payload the contract already validated and asks the engine."""

from __future__ import annotations

import base64

from contract import sessions as s
from contract.methods import (
    SESSION_ATTACHMENT,
    SESSION_CANCEL,
    SESSION_CREATE,
    SESSION_DELETE,
    SESSION_FORK,
    SESSION_HISTORY,
    SESSION_IMPORT,
    SESSION_LIST,
    SESSION_MARK_SEEN,
    SESSION_MODELS,
    SESSION_PROMPT,
    SESSION_RENAME,
    SESSION_REWIND,
    SESSION_SEARCH,
    SESSION_SELECT_MODEL,
    SESSION_UPDATE_QUEUE,
)
from host.api.archive import read_uploaded
from host.api.registry import implements
from host.engine.engine import Engine


@implements(SESSION_LIST)
async def list_sessions(engine: Engine, p: s.ListRequest) -> s.ListValue:
    return await engine.sessions.list_value()


@implements(SESSION_CREATE)
async def create(engine: Engine, p: s.CreateRequest) -> s.CreateValue:
    sid = await engine.sessions.create_session(
        p.cwd, p.session_id, p.agent_preset, p.workspace_id, p.origin, p.worktree
    )
    return s.CreateValue(session_id=sid, agent_preset=await engine.presets.session_preset(sid))


@implements(SESSION_IMPORT)
async def import_archive(engine: Engine, p: s.ImportRequest) -> s.ImportValue:
    """An uploaded archive into a workspace (docs/decisions.md, "Import in the app")."""
    sessions = await read_uploaded(p.archive_bytes())
    ids = await engine.imports.into_workspace(sessions, p.workspace_id, copy=p.as_copy)
    return s.ImportValue(session_id=ids[0], session_ids=ids, workspace_id=p.workspace_id)


@implements(SESSION_DELETE)
async def delete(engine: Engine, p: s.SessionRef) -> s.SessionDeleted:
    await engine.sessions.delete_session(p.session_id)
    return s.SessionDeleted()


@implements(SESSION_HISTORY)
async def history(engine: Engine, p: s.HistoryRequest) -> s.HistoryValue:
    return await engine.sessions.history_value(p.session_id, p.before_seq, p.max_messages)


@implements(SESSION_PROMPT)
async def prompt(engine: Engine, p: s.PromptRequest, rpc_id: str) -> s.Accepted:
    await engine.agents.prompt(p.session_id, p.mode, p.content, rpc_id, p.client_time_zone, p.attach)
    return s.Accepted()


@implements(SESSION_CANCEL)
async def cancel(engine: Engine, p: s.CancelRequest) -> s.Accepted:
    await engine.agents.cancel(p.session_id, clear_queue=p.clear_queue)
    return s.Accepted()


@implements(SESSION_MARK_SEEN)
async def mark_seen(engine: Engine, p: s.SessionRef) -> s.Accepted:
    await engine.sessions.mark_seen(p.session_id)
    return s.Accepted()


@implements(SESSION_RENAME)
async def rename(engine: Engine, p: s.RenameRequest) -> s.RenameValue:
    title, seq = await engine.sessions.rename(p.session_id, p.title)
    return s.RenameValue(title=title, seq=seq)


@implements(SESSION_FORK)
async def fork(engine: Engine, p: s.ForkRequest) -> s.SessionRef:
    return s.SessionRef(session_id=await engine.sessions.fork(p.session_id, p.at_seq, p.restore_files))


@implements(SESSION_REWIND)
async def rewind(engine: Engine, p: s.RewindRequest) -> s.RewindValue:
    return await engine.files.rewind(p.session_id, p.at_seq, p.restore_files)


@implements(SESSION_SEARCH)
async def search(engine: Engine, p: s.SearchRequest) -> s.SearchValue:
    after = int(p.cursor) if p.cursor is not None else None
    found = await engine.sessions.search(p.query, p.session_id, after, p.limit)
    items = [s.SearchHit(session_id=sid, snippet=snippet, seq=seq) for sid, snippet, seq in found.hits]
    cursor = str(found.next_after) if found.has_more and found.next_after is not None else None
    return s.SearchValue(items=items, has_more=found.has_more, cursor=cursor, total=found.total)


@implements(SESSION_MODELS)
async def models(engine: Engine, p: s.SessionRef) -> s.ModelsValue:
    return await engine.config.models(p.session_id)


@implements(SESSION_SELECT_MODEL)
async def select_model(engine: Engine, p: s.SelectModelRequest) -> s.SelectModelValue:
    selected = await engine.config.select_model(p.session_id, p.provider, p.model, p.reasoning_effort)
    return s.SelectModelValue(selected=selected)


@implements(SESSION_UPDATE_QUEUE)
async def update_queue(engine: Engine, p: s.UpdateQueueRequest) -> s.Accepted:
    await engine.agents.update_queue(p.session_id, p.item_id, p.action)
    return s.Accepted()


@implements(SESSION_ATTACHMENT)
async def attachment(engine: Engine, p: s.AttachmentRequest) -> s.AttachmentValue:
    ref, data = await engine.sessions.attachment(p.session_id, p.attachment_id)
    return s.AttachmentValue(attachment=ref, data=base64.b64encode(data).decode("ascii"))
