"""`engine.remotes`: the remote hosts a person added, their connections, the host keys they
trust and the prompts ssh sends to the window (docs/decisions.md, "Remote hosts").

The relay that carries a connected host's methods and frames to the window is the carrier's
(`host/relay/`); it reads `link(host_id)` and hears `on_links` here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from contract._base import FROM_WIRE
from contract.errors import RpcErrorBase
from contract.remotes import (
    HostRemoteStatus,
    RemoteConfigEntry,
    RemoteHostView,
    RemoteSecretAnswer,
    RemoteSecretRequested,
    RemoteSecretResolved,
    RemoteTestValue,
)
from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused, RpcOk, new_rpc_id
from host.engine.errors import (
    HostActionFailed,
    HostKeyChanged,
    RemoteConnectFailed,
    RemoteHostNotFound,
)
from host.engine.workspaces.remotes import bootstrap, hostkeys
from host.engine.workspaces.remotes.askpass import AskpassServer
from host.engine.workspaces.remotes.bootstrap import Bundle
from host.engine.workspaces.remotes.connection import Connection, HostPlan, Link, endpoint_of
from host.engine.workspaces.remotes.records import RemoteRecord, RemoteRecords, new_host_id
from host.engine.workspaces.remotes.ssh import (
    Ssh,
    SshFiles,
    SshMissing,
    Target,
    control_folder,
    last_line,
    run,
)
from host.engine.workspaces.remotes.wheels import Wheel, WheelError

log = logging.getLogger(__name__)

Publish = Callable[[Literal["mux", "host"], BaseModel, str | None], str]
"""(channel, frame, stable rpcId or None) → the rpcId used: the engine's bus."""


@dataclass
class _Asked:
    host_id: str
    frame: RemoteSecretRequested
    answer: asyncio.Future[str | None]


class Remotes:
    """Remote hosts over SSH: the list, connections, host keys, askpass prompts; the relay reads its
    links."""

    def __init__(
        self,
        data_dir: Path,
        publish: Publish,
        handover: Callable[[], dict[str, Any]],
        listening: Callable[[], bool],
        source: Path,
    ) -> None:
        """`handover()`: this host's model settings and keys for a remote's launch (kept in its
        memory only); `listening()`: whether a window could answer a prompt now (else ssh runs
        in BatchMode); `source`: the project's folder, for its own wheel."""
        self._data_dir = data_dir
        self._publish = publish
        self._handover = handover
        self._listening = listening
        self._source = source
        self._records = RemoteRecords.read(data_dir)
        self._connections: dict[str, Connection] = {}
        self._folder: Path | None = None
        self._askpass: AskpassServer | None = None
        self._asked: dict[str, _Asked] = {}
        self._link_listeners: list[Callable[[], None]] = []
        self._wheel_cache: dict[tuple[str, str], Wheel] = {}
        self._bundle: asyncio.Task[Bundle] | None = None
        self._starting: list[asyncio.Task[Any]] = []
        self._told: dict[str, tuple[str, str | None]] = {}
        """The last state each host's `host/remote-status` said."""
        self.files = SshFiles()

    async def start(self) -> None:
        """The askpass socket, then every host that was connected when the app last ran."""
        try:
            self._folder = await asyncio.to_thread(control_folder, self._data_dir)
            self._askpass = AskpassServer(self._folder, self._ask)
            await self._askpass.start()
        except OSError as exc:
            log.warning("remote hosts are unavailable: %s", exc)
            return
        for record in self._records.items.values():
            if record.auto_connect:
                self._starting.append(asyncio.create_task(self._auto_connect(record.host_id)))

    async def _auto_connect(self, host_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.connect(host_id, remember=False)

    async def close(self) -> None:
        for task in self._starting:
            task.cancel()
        for connection in list(self._connections.values()):
            await connection.close()
        for asked in self._asked.values():
            if not asked.answer.done():
                asked.answer.set_result(None)
        if self._askpass is not None:
            await self._askpass.close()

    # ---- remote.* -----------------------------------------------------------------------------

    def list_hosts(self) -> list[RemoteHostView]:
        return [self._view(r) for r in self._records.items.values()]

    def config_entries(self) -> list[RemoteConfigEntry]:
        return ssh_config_entries(self.files.config)

    def host(self, host_id: str) -> RemoteHostView:
        return self._view(self._record(host_id))

    async def add(self, target: str, name: str | None, mode: str, settings_from: str) -> str:
        for record in self._records.items.values():
            if record.target == target:
                return record.host_id
        Target.parse(target)
        record = RemoteRecord(new_host_id(), target, name or target, mode, settings_from)
        self._records.items[record.host_id] = record
        await self._save()
        return record.host_id

    async def update(
        self, host_id: str, name: str | None, mode: str | None, settings_from: str | None
    ) -> RemoteHostView:
        record = self._record(host_id)
        record.name = name or record.name
        record.mode = mode or record.mode
        record.settings_from = settings_from or record.settings_from
        await self._save()
        connection = self._connections.pop(host_id, None)
        if connection is not None:  # the next connection follows the new plan
            wanted = connection.state in ("connecting", "connected", "reconnecting")
            await connection.close()
            self._publish_status(host_id, "disconnected", None)
            if wanted:
                self._starting.append(asyncio.create_task(self._auto_connect(host_id)))
        return self._view(record)

    async def remove(self, host_id: str) -> None:
        self._record(host_id)
        connection = self._connections.pop(host_id, None)
        if connection is not None:
            await connection.disconnect()
        del self._records.items[host_id]
        await self._save()
        self._publish_status(host_id, "disconnected", None)

    async def connect(self, host_id: str, *, remember: bool = True) -> str:
        record = self._record(host_id)
        if remember and not record.auto_connect:
            record.auto_connect = True
            await self._save()
        return await self._connection(record).connect()

    async def disconnect(self, host_id: str) -> None:
        record = self._record(host_id)
        if record.auto_connect:
            record.auto_connect = False
            await self._save()
        connection = self._connections.get(host_id)
        if connection is not None:
            await connection.disconnect()

    async def test(self, host_id: str) -> RemoteTestValue:
        """Reach the host once (over its connection when there is one) and say what is there."""
        record = self._record(host_id)
        try:
            ssh = self._ssh(record)
        except (SshMissing, OSError) as exc:
            return RemoteTestValue(reachable=False, detail=str(exc))
        env = ssh.environment()
        try:
            bundle = await self._the_bundle()
        except WheelError as exc:
            return RemoteTestValue(reachable=False, detail=str(exc))
        probe = bootstrap.probe_command(bundle.key)
        master = self._connections.get(host_id)
        shared = master is not None and master.state == "connected"
        command = ssh.command(probe) if shared else ssh.once(probe)
        started = time.monotonic()
        done = await run(command, env, bound=60 + (300 if "SSH_ASKPASS" in env else 0))
        latency = (time.monotonic() - started) * 1000
        if done.code != 0:
            found = hostkeys.refusal(done.err)
            if found is not None and found[0] == "unknown":
                return RemoteTestValue(
                    reachable=False,
                    detail="The host's key is not known yet: Connect shows it to check before trusting it.",
                )
            if found is not None:
                return RemoteTestValue(
                    reachable=False, detail="The host presents another key than known_hosts records for it."
                )
            return RemoteTestValue(reachable=False, detail=last_line(done.err))
        facts = bootstrap.parse_probe(done.out.decode("utf-8", "replace"))
        words = [f"Reached {record.target}: {facts.system} {facts.arch}."]
        try:
            python = bootstrap.choose_python(facts, bundle)
            if python is not None:
                words.append(f"Python {python.version[0]}.{python.version[1]} ({python.path}).")
            words.append(
                "The server is installed." if facts.ready else "The server will be installed on connecting."
            )
        except bootstrap.RemoteUnsuitable as exc:
            words.append(str(exc))
        words.append(
            "bubblewrap is there (sandbox)."
            if facts.bwrap
            else "No bubblewrap: commands there run unsandboxed, always asked."
        )
        return RemoteTestValue(reachable=True, detail=" ".join(words), latency_ms=round(latency, 1))

    async def trust_host_key(self, host_id: str, fingerprint: str) -> None:
        """Record the host's key in known_hosts, if it is still the one the person saw."""
        record = self._record(host_id)
        ssh = self._ssh(record)
        env = ssh.environment()
        endpoint = await endpoint_of(ssh, env)
        keys = await hostkeys.scan(endpoint, env)
        chosen = next((k for k in keys if k.fingerprint == fingerprint), None)
        if chosen is None:
            shown = keys[0] if keys else None
            raise HostKeyChanged(
                host_id,
                shown.fingerprint if shown else "",
                shown.key_type if shown else "",
                "the host does not present the key you were shown (any more); nothing was recorded",
            )
        known = await asyncio.to_thread(hostkeys.known_keys, endpoint.known_hosts, endpoint.known_as)
        if any((alg, blob) == (chosen.algorithm, chosen.blob) for alg, blob in known):
            return
        if any(alg == chosen.algorithm for alg, _ in known):
            raise HostKeyChanged(
                host_id,
                chosen.fingerprint,
                chosen.key_type,
                "known_hosts holds another key of that type for this host: HarnessDesk never replaces it",
            )
        try:
            await asyncio.to_thread(hostkeys.record, endpoint, chosen)
        except hostkeys.KnownHostsUnwritable as exc:
            raise RemoteConnectFailed(host_id, "ssh", str(exc)) from None

    # ---- the relay's view ------------------------------------------------------------------------

    def host_ids(self) -> list[str]:
        return list(self._records.items)

    def link(self, host_id: str) -> Link | None:
        connection = self._connections.get(host_id)
        return connection.link if connection is not None else None

    def state(self, host_id: str) -> str | None:
        """None: no such host."""
        if host_id not in self._records.items:
            return None
        connection = self._connections.get(host_id)
        return connection.state if connection is not None else "disconnected"

    def on_links(self, listener: Callable[[], None]) -> None:
        """Hear every change of any host's link (connected, gone)."""
        self._link_listeners.append(listener)

    # ---- askpass --------------------------------------------------------------------------------

    async def _ask(self, host_id: str, prompt: str, echo: bool) -> str | None:
        frame = RemoteSecretRequested(host_id=host_id, prompt=prompt, echo=echo)
        rpc_id = new_rpc_id()
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._asked[rpc_id] = _Asked(host_id, frame, future)
        self._publish("host", frame, rpc_id)
        try:
            return await asyncio.wait_for(asyncio.shield(future), 300)
        except TimeoutError:
            return None
        finally:
            self._asked.pop(rpc_id, None)
            self._publish("host", RemoteSecretResolved(host_id=host_id, request_rpc_id=rpc_id), None)

    def pending_prompts(self) -> list[tuple[str, BaseModel]]:
        """The prompts still waiting, for a host stream that opens now (same rpcIds)."""
        return [(rpc_id, asked.frame) for rpc_id, asked in self._asked.items()]

    def answer(self, response: ClientResponse) -> ReceiptAccepted | ReceiptRefused | None:
        """The window's answer to a prompt; None when the rpcId is not one of ours."""
        asked = self._asked.get(response.rpc_id)
        if asked is None:
            return None
        if asked.answer.done():
            return ReceiptRefused(reason="not-pending")
        result = response.result
        if isinstance(result, RpcOk):
            try:
                value = RemoteSecretAnswer.model_validate(result.value, **FROM_WIRE)
            except ValidationError:
                return ReceiptRefused(reason="bad-response")
            if value.host_id != asked.host_id:
                return ReceiptRefused(reason="bad-response")
            asked.answer.set_result(value.secret)
        elif isinstance(getattr(result, "error", None), RpcErrorBase):
            asked.answer.set_result(None)
        else:
            return ReceiptRefused(reason="bad-response")
        return ReceiptAccepted()

    # ---- inside ---------------------------------------------------------------------------------

    def _record(self, host_id: str) -> RemoteRecord:
        record = self._records.items.get(host_id)
        if record is None:
            raise RemoteHostNotFound(host_id)
        return record

    def _view(self, record: RemoteRecord) -> RemoteHostView:
        connection = self._connections.get(record.host_id)
        state = connection.state if connection is not None else "disconnected"
        return RemoteHostView(
            host_id=record.host_id,
            name=record.name,
            target=record.target,
            mode=record.mode,  # type: ignore[arg-type]
            state=state,
            detail=connection.detail if connection is not None else None,
            settings_from=record.settings_from,  # type: ignore[arg-type]
            sandbox=connection.sandbox if connection is not None else None,
        )

    async def _save(self) -> None:
        try:
            await asyncio.to_thread(self._records.save)
        except OSError as exc:
            raise HostActionFailed(f"the remote hosts could not be saved: {exc}") from None

    def _ssh(self, record: RemoteRecord) -> Ssh:
        if self._folder is None or self._askpass is None:
            raise OSError("remote hosts are unavailable on this computer (no private folder for SSH)")
        askpass = self._askpass.environment(record.host_id) if self._listening() else {}
        return Ssh(Target.parse(record.target), self._folder, self.files, askpass)

    def _connection(self, record: RemoteRecord) -> Connection:
        connection = self._connections.get(record.host_id)
        if connection is None:
            if self._folder is None:
                raise RemoteConnectFailed(
                    record.host_id, "ssh", "remote hosts are unavailable on this computer"
                )
            plan = HostPlan(record.host_id, record.name, record.mode, record.settings_from)
            connection = Connection(
                plan,
                lambda: self._ssh(record),
                self._folder / f"{record.host_id}.sock",
                self._the_bundle,
                self._handover,
                self._changed,
            )
            self._connections[record.host_id] = connection
        return connection

    def _changed(self, connection: Connection) -> None:
        """A connection's state or link changed: say the state (once per change), tell the relay."""
        told = (connection.state, connection.detail)
        if self._told.get(connection.plan.host_id) != told:
            self._publish_status(connection.plan.host_id, connection.state, connection.detail)
        for listener in list(self._link_listeners):
            try:
                listener()
            except Exception:
                log.exception("a remote link listener failed")

    def _publish_status(self, host_id: str, state: str, detail: str | None) -> None:
        self._told[host_id] = (state, detail)
        frame = HostRemoteStatus(host_id=host_id, state=state, detail=detail)  # type: ignore[arg-type]
        self._publish("host", frame, None)
        self._publish("mux", frame, None)

    async def _the_bundle(self) -> Bundle:
        """This host's server bundle, built once per run (on a worker thread)."""
        if self._bundle is None or (self._bundle.done() and self._bundle.exception() is not None):
            self._bundle = asyncio.create_task(
                asyncio.to_thread(bootstrap.build_bundle, self._source, self._wheel_cache)
            )
        return await asyncio.shield(self._bundle)  # WheelError: this host cannot make it


def ssh_config_entries(path: Path) -> list[RemoteConfigEntry]:
    """The `Host` aliases of an ssh config file (no patterns), with what their block sets."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    entries: list[RemoteConfigEntry] = []
    current: list[RemoteConfigEntry] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.replace("=", " ", 1).partition(" ")
        key, value = key.lower(), value.strip().strip('"')
        if key in ("host", "match"):
            current = []
            if key == "host":
                for alias in value.split():
                    if not any(c in alias for c in "*?!") and alias:
                        current.append(RemoteConfigEntry(alias=alias))
                entries += current
        elif key == "hostname":
            for e in current:
                e.host_name = value
        elif key == "user":
            for e in current:
                e.user = value
        elif key == "port" and value.isdigit():
            for e in current:
                e.port = int(value)
    return entries
