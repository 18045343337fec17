"""What the relay needs of the remote hosts, and one HTTP client per connected host."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import httpx
from pydantic import BaseModel

from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused
from host.fetch.http_client import HttpApiClient

LOOPBACK = "http://localhost"
"""The Host the remote's fence sees: a loopback name (docs/threat-model.md, "Remote hosts")."""
UNPRIVILEGED = "x-harnessdesk-unprivileged"
"""Sent when the local caller may not make privileged changes: the remote's fence then treats
the call the same way (it can only lower privilege, never raise it)."""


class Link(Protocol):
    @property
    def host_id(self) -> str: ...
    @property
    def socket(self) -> Path: ...
    @property
    def token(self) -> str: ...
    @property
    def generation(self) -> int: ...


class Links(Protocol):
    """The remote hosts as the engine keeps them (`engine.remotes`)."""

    def link(self, host_id: str) -> Link | None: ...

    def state(self, host_id: str) -> str | None: ...

    def on_links(self, listener: Callable[[], None]) -> None: ...

    def pending_prompts(self) -> list[tuple[str, BaseModel]]: ...

    def answer(self, response: ClientResponse) -> ReceiptAccepted | ReceiptRefused | None: ...


class Remote:
    """One connected host: an httpx client on its forwarded socket (for relayed calls) and a
    contract client on the same socket (for its streams). Its token goes to that socket only."""

    def __init__(self, link: Link) -> None:
        self.host_id = link.host_id
        self.generation = link.generation
        self.http = httpx.AsyncClient(
            base_url=LOOPBACK,
            transport=httpx.AsyncHTTPTransport(uds=str(link.socket)),
            headers={"authorization": f"Bearer {link.token}"},
            timeout=httpx.Timeout(None, connect=10.0),
            trust_env=False,
        )
        self.client = HttpApiClient(
            LOOPBACK, link.token, transport=httpx.AsyncHTTPTransport(uds=str(link.socket))
        )

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self.http.aclose()
        with contextlib.suppress(Exception):
            await self.client.aclose()


class Remotes:
    """The `Remote` of each connected host, rebuilt when its link changes."""

    def __init__(self, links: Links) -> None:
        self.links = links
        self._open: dict[str, Remote] = {}

    def get(self, host_id: str) -> Remote | None:
        link = self.links.link(host_id)
        current = self._open.get(host_id)
        if link is None:
            return None
        if current is None or current.generation != link.generation:
            if current is not None:
                _close_later(current)
            current = self._open[host_id] = Remote(link)
        return current

    def forget_stale(self) -> None:
        for host_id, remote in list(self._open.items()):
            link = self.links.link(host_id)
            if link is None or link.generation != remote.generation:
                del self._open[host_id]
                _close_later(remote)

    async def aclose(self) -> None:
        for remote in self._open.values():
            await remote.aclose()
        self._open.clear()


def _close_later(remote: Remote) -> None:
    import asyncio

    with contextlib.suppress(RuntimeError):
        asyncio.get_running_loop().create_task(remote.aclose())
