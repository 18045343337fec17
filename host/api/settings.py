"""`settings.*` and `credentials.*`: the configuration page. Secrets go in, never out.

The files are written on a worker thread (the event loop never waits on disk). Every change is
announced on the host stream (`host/settings-changed`, `host/credentials-changed`,
`host/models-changed`) so every open window converges without polling.
"""

from __future__ import annotations

import asyncio
from typing import Any

from contract import settings as st
from contract.errors import rpc_error
from contract.frames import HostCredentialsChanged, HostModelsChanged, HostSettingsChanged
from contract.rpc import RpcRequest, RpcResponse, fail
from host.api._guard import answer
from host.engine.config import SettingsConflict, SettingsRejected
from host.engine.engine import Engine


class SettingsApi:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _value(self) -> st.SettingsValue:
        config = self.engine.config
        return st.SettingsValue(
            values=config.llm(),
            user=config.user_fields(),
            revision=config.revision,
            providers=self.engine.registry.providers(),
        )

    async def describe(self, req: RpcRequest[st.SettingsDescribeRequest]) -> RpcResponse[Any]:
        async def work() -> st.SettingsValue:
            return self._value()

        return await answer(req, work)

    async def update(self, req: RpcRequest[st.SettingsUpdateRequest]) -> RpcResponse[Any]:
        p = req.payload
        values = p.values.model_dump(mode="json", by_alias=True, exclude_unset=True)
        try:
            await asyncio.to_thread(self.engine.config.update, values, tuple(p.unset), p.expected_revision)
        except SettingsConflict as exc:
            error = rpc_error(
                "settings-conflict",
                "the settings changed since you read them",
                expected_revision=exc.expected,
                actual_revision=exc.actual,
            )
            return fail(req.rpc_id, error)
        except SettingsRejected as exc:
            return fail(req.rpc_id, rpc_error("settings-rejected", str(exc), fields=sorted(values)))
        self.engine.bus.publish("host", HostSettingsChanged(ns="llm"))
        self.engine.bus.publish("host", HostModelsChanged())

        async def work() -> st.SettingsValue:
            return self._value()

        return await answer(req, work)


class CredentialsApi:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def describe(self, req: RpcRequest[st.CredentialsDescribeRequest]) -> RpcResponse[Any]:
        async def work() -> st.CredentialsValue:
            return st.CredentialsValue(items=self.engine.config.describe_credentials())

        return await answer(req, work)

    async def set(self, req: RpcRequest[st.CredentialSetRequest]) -> RpcResponse[Any]:
        p = req.payload
        try:
            view = await asyncio.to_thread(self.engine.config.set_credential, p.ref, p.value)
        except SettingsRejected as exc:
            return fail(req.rpc_id, rpc_error("credential-rejected", str(exc), ref=p.ref))
        return await self._changed(req, view)

    async def unset(self, req: RpcRequest[st.CredentialUnsetRequest]) -> RpcResponse[Any]:
        p = req.payload
        try:
            view = await asyncio.to_thread(self.engine.config.unset_credential, p.ref)
        except SettingsRejected as exc:
            return fail(req.rpc_id, rpc_error("credential-rejected", str(exc), ref=p.ref))
        return await self._changed(req, view)

    async def _changed(self, req: RpcRequest[Any], view: st.CredentialView) -> RpcResponse[Any]:
        self.engine.bus.publish("host", HostCredentialsChanged(ref=view.ref))
        self.engine.bus.publish("host", HostModelsChanged())

        async def work() -> st.CredentialChanged:
            return st.CredentialChanged(ref=view.ref, configured=view.configured)

        return await answer(req, work)
