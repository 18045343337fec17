"""The ApiProxy implementation: the registered methods bound to one engine, plus the carrier hooks."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused
from contract.sessions import ExportQuery
from host.api import (
    commands,
    credentials,
    files,
    finder,
    git,
    goal,
    hooks,
    host,
    job,
    llm,
    lsp,
    mcp,
    permission,
    presets,
    remote,
    session,
    settings,
    skills,
    subagent,
    terminal,
    workspace,
    worktree,
)
from host.api.archive import zip_chunks
from host.api.events import EventsApi
from host.api.registry import domains
from host.engine.engine import Engine
from host.fetch.proxy import ExportArchive

DOMAIN_MODULES: tuple[ModuleType, ...] = (
    host,
    session,
    settings,
    workspace,
    credentials,
    llm,
    lsp,
    permission,
    presets,
    skills,
    commands,
    job,
    files,
    finder,
    subagent,
    goal,
    terminal,
    mcp,
    worktree,
    remote,
    git,  # the review pane; commit, log, push, pull request
    hooks,
)
"""One module per domain of the method map; importing it registers its methods. A new domain
is a new module in host/api plus its name here."""


class HostApiProxy:
    """What `to_fetch_handler` serves; every method of `contract.methods.METHODS` resolves here
    (`api.session.select_model` is the registered implementation of `session.selectModel`)."""

    def __init__(self, engine: Engine, *, queue_limit: int | None = None) -> None:
        self.engine = engine
        self._domains = domains(engine)
        self._events = EventsApi(engine, queue_limit)

    def __getattr__(self, name: str) -> SimpleNamespace:
        bound: dict[str, SimpleNamespace] = self.__dict__.get("_domains", {})
        if name not in bound:
            raise AttributeError(name)
        return bound[name]

    @property
    def events(self) -> EventsApi:
        return self._events

    async def respond(self, response: ClientResponse, /) -> ReceiptAccepted | ReceiptRefused:
        return self.engine.host.respond(response)

    async def export_session(self, query: ExportQuery, /) -> ExportArchive | None:
        if not await self.engine.sessions.has_session(query.session_id):
            return None
        engine, sid, deep = self.engine, query.session_id, query.include_descendants
        return ExportArchive(
            filename=await engine.sessions.export_file_name(sid),
            chunks=lambda: zip_chunks(engine, sid, deep),
        )
