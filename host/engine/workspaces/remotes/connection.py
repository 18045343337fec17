"""One remote host's connection and its supervisor (docs/decisions.md, "Remote hosts").

An attempt: the ssh master (keys, agent, askpass, the host key checked strictly) → a probe of
the remote (`uname`, its Pythons, the installed bundle, a running server, bubblewrap) → the
bundle installed when missing → the server started (or, detached, the running one reused: its
token read back over ssh) → the Unix-socket forward on the master → one authenticated
`host.describe` through it. Then the host is `connected` until the master ends (the link died,
someone killed it) or the person disconnects; a dropped link is `reconnecting` and retried with
backoff for as long as the person wants the host, and a detached server kept running meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from host.engine.errors import EngineError, HostKeyChanged, HostKeyUnknown, RemoteConnectFailed
from host.engine.workspaces.remotes import bootstrap, hostkeys
from host.engine.workspaces.remotes.bootstrap import Bundle, RemoteFacts, RemoteUnsuitable
from host.engine.workspaces.remotes.ping import PingFailed, describe
from host.engine.workspaces.remotes.ssh import Ssh, kill_group, last_line, resolved_options, run
from host.engine.workspaces.remotes.wheels import WheelError

log = logging.getLogger(__name__)

State = Literal["disconnected", "connecting", "connected", "reconnecting", "failed"]
MASTER_BOUND = 30.0
"""Seconds for the master to log in, beyond the time a prompt waits for the person."""
PROBE_BOUND = 30.0
UPLOAD_BOUND = 900.0
INSTALL_BOUND = 900.0
LAUNCH_BOUND = 90.0
BACKOFF = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
IDLE_EXIT = 1800.0
"""Seconds a detached server with no client and no running turn waits before it stops itself."""


@dataclass(frozen=True)
class HostPlan:
    """What the supervisor needs to know of a host record."""

    host_id: str
    shown_as: str
    mode: str
    settings_from: str


@dataclass(frozen=True)
class Link:
    """A connected host, as the relay reaches it: the forwarded socket and the remote's token
    (never sent anywhere but to that socket)."""

    host_id: str
    socket: Path
    token: str
    generation: int


class Connection:
    def __init__(
        self,
        plan: HostPlan,
        ssh: Callable[[], Ssh],
        local_socket: Path,
        bundle: Callable[[], Awaitable[Bundle]],
        handover: Callable[[], dict[str, Any]],
        on_change: Callable[[Connection], None],
        idle_exit: float = IDLE_EXIT,
    ) -> None:
        """`ssh()` gives the ssh for this host now (with askpass when a window can answer);
        `on_change` hears every state change (the service publishes `host/remote-status`)."""
        self.plan = plan
        self._ssh = ssh
        self.local_socket = local_socket
        self._bundle = bundle
        self._handover = handover
        self._on_change = on_change
        self._idle_exit = idle_exit
        self.state: State = "disconnected"
        self.detail: str | None = None
        self.link: Link | None = None
        self.sandbox: bool | None = None
        self.generation = 0
        self._master: asyncio.subprocess.Process | None = None
        self._server: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self._first: asyncio.Future[None] | None = None
        self._wanted = False
        self._readers: set[asyncio.Task[None]] = set()
        """Tasks that keep reading our ssh processes' output (so ssh never blocks on a pipe)."""

    # ---- the person's verbs ---------------------------------------------------------------------

    async def connect(self) -> State:
        """Connect now (or join the attempt under way); raises the attempt's typed failure."""
        if self.state == "connected":
            return self.state
        if self._first is not None and not self._first.done():
            await asyncio.shield(self._first)
            return self.state
        if self._task is not None and not self._task.done():  # reconnecting: try at once
            await self._stop_task()
        self._wanted = True
        self._first = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._supervise(self._first), name=f"remote-{self.plan.host_id}")
        await asyncio.shield(self._first)
        return self.state

    async def disconnect(self) -> None:
        self._wanted = False
        await self._stop_task()
        await self._teardown()
        self._set("disconnected", None)

    async def close(self) -> None:
        self._wanted = False
        await self._stop_task()
        await self._teardown()

    async def _stop_task(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._first is not None and not self._first.done():
            self._first.cancel()

    # ---- the supervisor ------------------------------------------------------------------------

    async def _supervise(self, first: asyncio.Future[None]) -> None:
        failures = 0
        while self._wanted:
            self._set(
                "connecting" if not first.done() else "reconnecting", self.detail if first.done() else None
            )
            try:
                await self._attempt()
            except asyncio.CancelledError:
                await self._teardown()
                raise
            except (HostKeyUnknown, HostKeyChanged) as exc:
                await self._teardown()
                self._set("failed", str(exc))
                if not first.done():
                    first.set_exception(exc)
                return
            except Exception as exc:
                await self._teardown()
                detail = str(exc) or type(exc).__name__
                if not first.done():
                    self._set("failed", detail)
                    if not isinstance(exc, EngineError):
                        exc = RemoteConnectFailed(self.plan.host_id, "ssh", detail)
                    first.set_exception(exc)
                    return
                log.info("remote %s: reconnecting failed: %s", self.plan.host_id, detail)
                self.detail = detail
                await asyncio.sleep(BACKOFF[min(failures, len(BACKOFF) - 1)])
                failures += 1
                continue
            failures = 0
            self._set("connected", None)
            if not first.done():
                first.set_result(None)
            why = await self._watch()
            await self._teardown()
            if not self._wanted:
                return
            self.detail = why
            self._set("reconnecting", why)
            await asyncio.sleep(BACKOFF[0])

    async def _watch(self) -> str:
        """Wait until the master (or, attached, the server's session) ends; why, in words."""
        waits = [asyncio.ensure_future(p.wait()) for p in (self._master, self._server) if p is not None]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        return "the SSH connection ended"

    async def _teardown(self) -> None:
        """End our ssh processes (a detached server keeps running on the remote)."""
        had_link = self.link is not None
        self.link = None
        for proc in (self._server, self._master):
            if proc is not None and proc.returncode is None:
                kill_group(proc)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(proc.wait(), 5)
        self._server = self._master = None
        with contextlib.suppress(OSError):
            self.local_socket.unlink()
        if had_link:
            self._on_change(self)

    def _set(self, state: State, detail: str | None) -> None:
        changed = (state, detail) != (self.state, self.detail)
        self.state, self.detail = state, detail
        if changed:
            self._on_change(self)

    # ---- one attempt --------------------------------------------------------------------------

    async def _attempt(self) -> None:
        ssh = self._ssh()
        env = ssh.environment()
        await self._start_master(ssh, env)
        facts = await self._probe(ssh, env)
        bundle = await self._the_bundle()
        try:
            python = bootstrap.choose_python(facts, bundle)
        except RemoteUnsuitable as exc:
            raise RemoteConnectFailed(self.plan.host_id, "bootstrap", str(exc)) from None
        running = facts.server
        reuse = (
            running is not None
            and self.plan.mode == "detached"
            and running.get("mode") == "detached"
            and running.get("version") == bundle.key
            and running.get("settings") == ("handed" if self.plan.settings_from == "here" else "own")
        )
        if running is not None and not reuse:
            await run(ssh.command(bootstrap.stop_command()), env, bound=30)
        if not facts.ready:
            await self._install(ssh, env, bundle, python)
        token = await (self._read_token(ssh, env) if reuse else self._launch(ssh, env, facts, bundle))
        if reuse and running is not None:
            self.sandbox = bool(running.get("sandbox"))
        await self._forward(ssh, env, facts)
        try:
            await describe(self.local_socket, token)
        except PingFailed as exc:
            raise RemoteConnectFailed(self.plan.host_id, "server", str(exc)) from None
        self.generation += 1
        self.link = Link(self.plan.host_id, self.local_socket, token, self.generation)

    async def _start_master(self, ssh: Ssh, env: Mapping[str, str]) -> None:
        with contextlib.suppress(OSError):
            ssh.control_path.unlink()  # a master killed outright leaves its socket behind
        proc = await asyncio.create_subprocess_exec(
            *ssh.master(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
            start_new_session=True,
        )
        self._master = proc
        started = time.monotonic()
        while True:
            if proc.returncode is not None or (proc.stderr is not None and proc.stderr.at_eof()):
                await proc.wait()
                err = (await proc.stderr.read()).decode("utf-8", "replace") if proc.stderr else ""
                await self._refused(ssh, env, err)
                raise RemoteConnectFailed(self.plan.host_id, "ssh", last_line(err))
            if ssh.control_path.exists():
                check = await run(ssh.check(), env, bound=10)
                if check.code == 0:
                    if proc.stderr is not None:  # keep reading it so ssh never blocks on a full pipe
                        self._read(proc.stderr)
                    return
            asked = "SSH_ASKPASS" in env
            if time.monotonic() - started > MASTER_BOUND + (300 if asked else 0):
                kill_group(proc)
                raise RemoteConnectFailed(self.plan.host_id, "ssh", "the SSH login did not finish in time")
            await asyncio.sleep(0.1)

    async def _refused(self, ssh: Ssh, env: Mapping[str, str], err: str) -> None:
        """Raise HostKeyUnknown / HostKeyChanged when ssh refused the host's key."""
        found = hostkeys.refusal(err)
        if found is None:
            return
        kind, key_type, fingerprint = found
        if kind == "changed":
            raise HostKeyChanged(
                self.plan.host_id,
                fingerprint or "",
                key_type or "",
                f"{self.plan.shown_as} presents another host key than your known_hosts records for it"
                " (someone may be intercepting the connection, or the host was reinstalled): HarnessDesk"
                " never accepts a changed key; check with the host's administrator and remove the old"
                " line with ssh-keygen -R",
            )
        endpoint = await endpoint_of(ssh, env)
        keys = await hostkeys.scan(endpoint, env, key_type)
        if not keys:
            raise RemoteConnectFailed(
                self.plan.host_id,
                "ssh",
                f"{self.plan.shown_as}'s host key is not known, and it could not be read",
            )
        raise HostKeyUnknown(self.plan.host_id, keys[0].fingerprint, keys[0].key_type, self.plan.shown_as)

    async def _the_bundle(self) -> Bundle:
        try:
            return await self._bundle()
        except WheelError as exc:
            raise RemoteConnectFailed(self.plan.host_id, "bootstrap", str(exc)) from None

    async def _probe(self, ssh: Ssh, env: Mapping[str, str]) -> RemoteFacts:
        bundle_key = (await self._the_bundle()).key
        done = await run(ssh.command(bootstrap.probe_command(bundle_key)), env, bound=PROBE_BOUND)
        if done.code != 0:
            raise RemoteConnectFailed(
                self.plan.host_id, "ssh", f"the remote did not answer: {last_line(done.err)}"
            )
        facts = bootstrap.parse_probe(done.out.decode("utf-8", "replace"))
        if not facts.home:
            raise RemoteConnectFailed(
                self.plan.host_id, "bootstrap", "the remote's shell did not say where its home is"
            )
        if len(facts.socket) > 100:
            raise RemoteConnectFailed(
                self.plan.host_id,
                "bootstrap",
                f"the remote home {facts.home} is too long a path for a Unix socket",
            )
        self.sandbox = facts.bwrap
        return facts

    async def _install(
        self, ssh: Ssh, env: Mapping[str, str], bundle: Bundle, python: bootstrap.RemotePython | None
    ) -> None:
        sent = await run(
            ssh.command(bootstrap.upload_command(bundle.key)), env, stdin=bundle.tar, bound=UPLOAD_BOUND
        )
        if sent.code != 0:
            raise RemoteConnectFailed(
                self.plan.host_id, "bootstrap", f"the server could not be copied there: {last_line(sent.err)}"
            )
        done = await run(ssh.command(bootstrap.install_command(bundle, python)), env, bound=INSTALL_BOUND)
        if done.code != 0 or b"installed" not in done.out:
            said = last_line(done.out.decode("utf-8", "replace") + "\n" + done.err)
            raise RemoteConnectFailed(
                self.plan.host_id, "bootstrap", f"installing the server there failed: {said}"
            )

    async def _read_token(self, ssh: Ssh, env: Mapping[str, str]) -> str:
        done = await run(ssh.command(bootstrap.token_command()), env, bound=PROBE_BOUND)
        token = done.out.decode("ascii", "replace").strip()
        if done.code != 0 or len(token) < 16:
            raise RemoteConnectFailed(
                self.plan.host_id, "server", "the running server's token could not be read"
            )
        return token

    async def _launch(self, ssh: Ssh, env: Mapping[str, str], facts: RemoteFacts, bundle: Bundle) -> str:
        """Start the server; its ready line (with the token) comes back on stdout."""
        handover = self._handover() if self.plan.settings_from == "here" else {}
        command = bootstrap.launch_command(facts, bundle, self.plan.mode, self._idle_exit)
        proc = await asyncio.create_subprocess_exec(
            *ssh.command(command),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
            start_new_session=True,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        attached = self.plan.mode == "attached"
        if attached:
            self._server = proc
        try:
            proc.stdin.write((json.dumps(handover) + "\n").encode())
            await proc.stdin.drain()
            if not attached:
                proc.stdin.close()  # detached: the server has read its one line and goes on alone
            line = await asyncio.wait_for(proc.stdout.readline(), LAUNCH_BOUND)
        except (OSError, TimeoutError):
            line = b""
        ready = _ready(line)
        if ready is None:
            kill_group(proc)
            err = (await _read_some(proc.stderr)).decode("utf-8", "replace")
            raise RemoteConnectFailed(
                self.plan.host_id, "server", f"the server did not start there: {last_line(err)}"
            )
        self.sandbox = bool(ready.get("sandbox"))
        if attached:
            self._read(proc.stderr)
            self._read(proc.stdout)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 10)
        return str(ready["token"])

    def _read(self, stream: asyncio.StreamReader) -> None:
        task = asyncio.create_task(_drain(stream))
        self._readers.add(task)
        task.add_done_callback(self._readers.discard)

    async def _forward(self, ssh: Ssh, env: Mapping[str, str], facts: RemoteFacts) -> None:
        with contextlib.suppress(OSError):
            self.local_socket.unlink()
        done = await run(ssh.forward(self.local_socket, facts.socket), env, bound=30)
        if done.code != 0:
            raise RemoteConnectFailed(self.plan.host_id, "ssh", f"the forward failed: {last_line(done.err)}")


async def endpoint_of(ssh: Ssh, env: Mapping[str, str]) -> hostkeys.Endpoint:
    """What `ssh -G` makes of the target: where to scan and how known_hosts names it."""
    done = await run(ssh.resolved(), env, bound=15)
    return hostkeys.Endpoint.from_options(
        resolved_options(done.out.decode("utf-8", "replace")), ssh.files.known_hosts
    )


def _ready(line: bytes) -> dict[str, Any] | None:
    try:
        ready = json.loads(line)
    except ValueError:
        return None
    if (
        not isinstance(ready, dict)
        or ready.get("harnessdesk") != "ready"
        or not isinstance(ready.get("token"), str)
    ):
        return None
    return ready


async def _drain(stream: asyncio.StreamReader) -> None:
    with contextlib.suppress(Exception):
        while await stream.read(65536):
            pass


async def _read_some(stream: asyncio.StreamReader) -> bytes:
    try:
        return await asyncio.wait_for(stream.read(65536), 5)
    except (TimeoutError, OSError):
        return b""
