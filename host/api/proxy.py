"""The ApiProxy implementation: one object per domain of the method map, plus the carrier hooks."""

from __future__ import annotations

from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused
from contract.sessions import ExportQuery
from host.api.archive import zip_chunks
from host.api.events import EventsApi
from host.api.host import HostApi
from host.api.session import SessionApi
from host.api.settings import CredentialsApi, SettingsApi
from host.engine.engine import Engine
from host.fetch.proxy import ExportArchive


class HostApiProxy:
    """What `to_fetch_handler` serves; every method of `contract.methods.METHODS` resolves here."""

    def __init__(self, engine: Engine, *, queue_limit: int | None = None) -> None:
        self.engine = engine
        self.session = SessionApi(engine)
        self.host = HostApi(engine)
        self.settings = SettingsApi(engine)
        self.credentials = CredentialsApi(engine)
        self._events = EventsApi(engine, queue_limit)

    @property
    def events(self) -> EventsApi:
        return self._events

    async def respond(self, response: ClientResponse, /) -> ReceiptAccepted | ReceiptRefused:
        return self.engine.respond(response)

    async def export_session(self, query: ExportQuery, /) -> ExportArchive | None:
        header = await self.engine.store.header(query.session_id)
        if header is None:
            return None
        engine, sid, deep = self.engine, query.session_id, query.include_descendants
        return ExportArchive(
            filename=f"harnessdesk-{sid}.zip",
            chunks=lambda: zip_chunks(engine, sid, deep),
        )
