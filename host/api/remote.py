"""`remote.*`: remote hosts over SSH (docs/decisions.md, "Remote hosts"). The relay of a
connected host's own methods is the carrier's (`host/relay/`), not a method here."""

from __future__ import annotations

from contract import remotes as r
from contract.methods import (
    REMOTE_ADD,
    REMOTE_CONNECT,
    REMOTE_DISCONNECT,
    REMOTE_LIST,
    REMOTE_REMOVE,
    REMOTE_TEST,
    REMOTE_TRUST_HOST_KEY,
    REMOTE_UPDATE,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(REMOTE_LIST)
async def list_hosts(engine: Engine, p: r.RemoteListRequest) -> r.RemoteListValue:
    return r.RemoteListValue(items=engine.remotes.list_hosts(), ssh_config=engine.remotes.config_entries())


@implements(REMOTE_ADD)
async def add(engine: Engine, p: r.RemoteAddRequest) -> r.RemoteAddValue:
    return r.RemoteAddValue(host_id=await engine.remotes.add(p.target, p.name, p.mode, p.settings_from))


@implements(REMOTE_UPDATE)
async def update(engine: Engine, p: r.RemoteUpdateRequest) -> r.RemoteHostView:
    return await engine.remotes.update(p.host_id, p.name, p.mode, p.settings_from)


@implements(REMOTE_REMOVE)
async def remove(engine: Engine, p: r.RemoteRef) -> r.RemoteDone:
    await engine.remotes.remove(p.host_id)
    return r.RemoteDone()


@implements(REMOTE_TEST)
async def test(engine: Engine, p: r.RemoteRef) -> r.RemoteTestValue:
    return await engine.remotes.test(p.host_id)


@implements(REMOTE_CONNECT)
async def connect(engine: Engine, p: r.RemoteRef) -> r.RemoteConnectValue:
    return r.RemoteConnectValue(state=await engine.remotes.connect(p.host_id))  # type: ignore[arg-type]


@implements(REMOTE_DISCONNECT)
async def disconnect(engine: Engine, p: r.RemoteRef) -> r.RemoteDone:
    await engine.remotes.disconnect(p.host_id)
    return r.RemoteDone()


@implements(REMOTE_TRUST_HOST_KEY)
async def trust_host_key(engine: Engine, p: r.TrustHostKeyRequest) -> r.RemoteDone:
    await engine.remotes.trust_host_key(p.host_id, p.fingerprint)
    return r.RemoteDone()
