"""`session.*`: each method validates nothing the contract already did and asks the engine."""

from __future__ import annotations

import base64
from typing import Any

from contract import sessions as s
from contract.rpc import RpcRequest, RpcResponse
from host.api._guard import answer
from host.engine.engine import Engine


class SessionApi:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def list(self, req: RpcRequest[s.ListRequest]) -> RpcResponse[Any]:
        async def work() -> s.ListValue:
            return s.ListValue(items=await self.engine.list_sessions())

        return await answer(req, work)

    async def create(self, req: RpcRequest[s.CreateRequest]) -> RpcResponse[Any]:
        p = req.payload

        async def work() -> s.SessionRef:
            sid = await self.engine.create_session(p.cwd, p.session_id, p.agent_preset)
            return s.SessionRef(session_id=sid)

        return await answer(req, work)

    async def history(self, req: RpcRequest[s.HistoryRequest]) -> RpcResponse[Any]:
        p = req.payload

        async def work() -> s.HistoryValue:
            events, has_more, projections = await self.engine.history(
                p.session_id, p.before_seq, p.max_messages
            )
            return s.HistoryValue(events=events, has_more=has_more, projections=projections)

        return await answer(req, work)

    async def prompt(self, req: RpcRequest[s.PromptRequest]) -> RpcResponse[Any]:
        p = req.payload

        async def work() -> s.Accepted:
            await self.engine.prompt(p.session_id, p.mode, p.content, req.rpc_id, p.client_time_zone)
            return s.Accepted()

        return await answer(req, work)

    async def cancel(self, req: RpcRequest[s.SessionRef]) -> RpcResponse[Any]:
        async def work() -> s.Accepted:
            await self.engine.cancel(req.payload.session_id)
            return s.Accepted()

        return await answer(req, work)

    async def rename(self, req: RpcRequest[s.RenameRequest]) -> RpcResponse[Any]:
        p = req.payload

        async def work() -> s.RenameValue:
            title, seq = await self.engine.rename(p.session_id, p.title)
            return s.RenameValue(title=title, seq=seq)

        return await answer(req, work)

    async def fork(self, req: RpcRequest[s.ForkRequest]) -> RpcResponse[Any]:
        p = req.payload

        async def work() -> s.SessionRef:
            return s.SessionRef(session_id=await self.engine.fork(p.session_id, p.at_seq))

        return await answer(req, work)

    async def search(self, req: RpcRequest[s.SearchRequest]) -> RpcResponse[Any]:
        async def work() -> s.SearchValue:
            hits, has_more = await self.engine.search(req.payload.query)
            items = [s.SearchHit(session_id=sid, snippet=snippet) for sid, snippet in hits]
            return s.SearchValue(items=items, has_more=has_more)

        return await answer(req, work)

    async def models(self, req: RpcRequest[s.SessionRef]) -> RpcResponse[Any]:
        async def work() -> s.ModelsValue:
            return await self.engine.models(req.payload.session_id)

        return await answer(req, work)

    async def select_model(self, req: RpcRequest[s.SelectModelRequest]) -> RpcResponse[Any]:
        p = req.payload

        async def work() -> s.SelectModelValue:
            selected = await self.engine.select_model(p.session_id, p.provider, p.model, p.reasoning_effort)
            return s.SelectModelValue(selected=selected)

        return await answer(req, work)

    async def update_queue(self, req: RpcRequest[s.UpdateQueueRequest]) -> RpcResponse[Any]:
        p = req.payload

        async def work() -> s.Accepted:
            await self.engine.update_queue(p.session_id, p.item_id, p.action)
            return s.Accepted()

        return await answer(req, work)

    async def attachment(self, req: RpcRequest[s.AttachmentRequest]) -> RpcResponse[Any]:
        p = req.payload

        async def work() -> s.AttachmentValue:
            ref, data = await self.engine.attachment(p.session_id, p.attachment_id)
            return s.AttachmentValue(attachment=ref, data=base64.b64encode(data).decode("ascii"))

        return await answer(req, work)
