"""Headless commands: `serve`, `prompt`, `export`, `import`, `revert` (docs/architecture.md, "Desktop,
command line and data").

Each runs the same host as the window (`host.api.open_host`); only one process may own a data
dir at a time, so commands that write take the single-instance lock and refuse politely.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import Any

from contract.methods import SESSION_CREATE, SESSION_PROMPT
from contract.rpc import RpcErr, ServerRequest
from desktop.commands import named_paths
from desktop.folders import open_folder
from desktop.handoff import HandoffError, import_into_running
from desktop.i18n import t
from desktop.instance import PrimaryInstance, acquire
from desktop.paths import resolve_data_dir, webui_dir
from host.api import HostRuntime, open_host
from host.api.archive import ArchiveError, read_archive, zip_chunks
from host.engine.errors import EngineError, RevertConflict, RevertUnavailable, SessionAlreadyHere
from host.engine.llm.overrides import RuntimeOverrides
from host.fetch.inprocess import InProcessApiClient

CLOSE_BOUND = 0.8
"""Seconds `serve` gives the engine to end turns and flush after a stop signal: with uvicorn's
1 s grace for in-flight requests, SIGTERM exits within 2 s (docs/decisions.md)."""


class CommandError(Exception):
    """One line for the user, exit code 2."""


def overrides_of(args: argparse.Namespace) -> RuntimeOverrides:
    return RuntimeOverrides(provider=args.provider, base_url=args.base_url, model=args.model)


def run(args: argparse.Namespace) -> int:
    """Dispatch one headless command; user-facing failures raise CommandError."""
    if args.command == "acp":
        from desktop.acp import run_acp
        from host.fetch.errors import TransportError

        try:
            return run_acp(args)
        except (EngineError, TransportError) as exc:
            raise CommandError(str(exc)) from exc
    data_dir = resolve_data_dir(args.data_dir)
    if args.command == "serve" and args.unix_socket:
        from desktop.serve_unix import ServeError, run_unix

        try:
            return run_unix(args, data_dir)
        except ServeError as exc:
            raise CommandError(str(exc)) from exc
    if args.command == "serve" and (args.attached or args.detach or args.handover):
        raise CommandError(t("cli.unixSocketOnly"))
    commands = {"serve": _serve, "prompt": _prompt, "export": _export, "import": _import, "revert": _revert}
    command = commands[args.command]
    if args.command == "prompt":
        _prompt_cwd(args)
    try:
        return asyncio.run(command(args, data_dir))
    except EngineError as exc:
        raise CommandError(str(exc)) from exc


def _lock(data_dir: Path) -> PrimaryInstance:
    instance = acquire(data_dir)
    if instance is None:
        raise CommandError(t("cli.otherInstance", data_dir=data_dir))
    return instance


async def _open_locked(
    data_dir: Path, instance: PrimaryInstance, args: argparse.Namespace | None
) -> HostRuntime:
    """Open the host under the data dir's lock; a refusal (a damaged database, an unknown
    --provider) frees the lock at once."""
    try:
        if args is None:
            return await open_host(data_dir)
        return await open_host(data_dir, overrides_of(args), masked=named_paths(args))
    except BaseException:
        instance.close()
        raise


async def _serve(args: argparse.Namespace, data_dir: Path) -> int:
    from host.fetch.warm import warm_contract
    from host.server import build_site
    from host.server.run import (
        LoopbackServer,
        bind_socket,
        is_loopback_bind,
        load_or_mint_token,
        url_host,
        write_link_file,
    )

    if not is_loopback_bind(args.host):
        if not args.allow_remote:
            raise CommandError(t("cli.refuseRemote", host=args.host))
        print(t("cli.remoteWarning", host=args.host), file=sys.stderr, flush=True)
    instance = _lock(data_dir)
    try:
        token = load_or_mint_token(Path(args.token_file) if args.token_file else None)
        sock = bind_socket(args.host, args.port)
    except (OSError, ValueError) as exc:
        instance.close()
        raise CommandError(str(exc)) from exc
    try:
        runtime = await _open_locked(data_dir, instance, args)
    except BaseException:
        sock.close()
        raise
    site = build_site(
        runtime.app, webui_dir(), token=token, peers=runtime.peers, trusted_hosts=tuple(args.trusted_host)
    )
    server = LoopbackServer(site, sock, log_level=args.log_level)
    url = f"http://{url_host(args.host)}:{server.port}/?token={token}"
    loop = asyncio.get_running_loop()

    def stop() -> None:
        runtime.engine.host.end_streams()  # open streams end now, so uvicorn need not wait for them
        server.stop()

    for sig in (signal.SIGINT, signal.SIGTERM):  # before the line: a stop right after it is graceful
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop)
    print(f"HarnessDesk listening on {url}", flush=True)
    warming = asyncio.create_task(warm_contract())  # while the browser starts

    def open_here(path: str) -> None:
        """`harnessdesk PATH` while we serve: register it (every open tab sees it arrive)."""
        asyncio.run_coroutine_threadsafe(open_folder(runtime.app, path), loop).result(30)

    from desktop.acp.relay import serve_relay

    instance.listen(lambda: None, open_here, on_api=lambda conn: serve_relay(conn, runtime.app, loop))
    link_file = None
    if args.open:
        link_file = write_link_file(data_dir, url)
        import webbrowser  # only for --open: it is not free to import

        webbrowser.open(link_file.as_uri())
        loop.call_later(LINK_FILE_SECONDS, _remove, link_file)
    try:
        await server.serve()
    finally:
        warming.cancel()
        if link_file is not None:
            _remove(link_file)
        await runtime.close(bound=CLOSE_BOUND)
        instance.close()
    return 0


LINK_FILE_SECONDS = 120.0
"""How long the private page that `--open` hands the browser stays on disk."""


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _prompt_cwd(args: argparse.Namespace) -> None:
    """`prompt --cwd PATH`: an existing folder for a new session (Ungrouped, as any cwd alone)."""
    if args.cwd is None:
        return
    if args.session:
        raise CommandError(t("cli.cwdWithSession"))
    cwd = Path(args.cwd).expanduser().resolve()
    if not cwd.is_dir():
        raise CommandError(t("cli.cwdMissing", path=args.cwd))
    args.cwd = str(cwd)


async def _prompt(args: argparse.Namespace, data_dir: Path) -> int:
    instance = _lock(data_dir)
    runtime = await _open_locked(data_dir, instance, args)
    try:
        return await PromptRun(runtime, args).run()
    finally:
        await runtime.close()
        instance.close()


class PromptRun:
    """One turn through InProcessApiClient, the terminal path of `harnessdesk prompt`."""

    def __init__(self, runtime: HostRuntime, args: argparse.Namespace) -> None:
        self.client = InProcessApiClient(runtime.app)
        self.args = args
        self.interactive = sys.stdin.isatty()

    async def run(self) -> int:
        sid = self.args.session or await self._create()
        async with self.client.stream("events.mux") as frames:
            answer = await self.client.call(
                SESSION_PROMPT,
                {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": self.args.text}]},
            )
            if isinstance(answer.result, RpcErr):
                raise CommandError(answer.result.error.message)
            async for rpc_id, frame in frames:
                if getattr(frame, "session_id", sid) != sid or frame.type == "stream/opened":
                    continue
                if self.args.json:
                    message = ServerRequest(rpc_id=rpc_id, method=frame.type, payload=frame.dump())
                    print(json.dumps(message.dump()), flush=True)
                outcome = await self._on_frame(rpc_id, frame)
                if outcome is not None:
                    return outcome
        return 1

    async def _create(self) -> str:
        created = await self.client.call(SESSION_CREATE, {"cwd": self.args.cwd or str(Path.cwd())})
        if isinstance(created.result, RpcErr):
            raise CommandError(created.result.error.message)
        return str(created.result.value.session_id)

    async def _on_frame(self, rpc_id: str, frame: Any) -> int | None:
        if frame.type == "approval/requested":
            await self._approve(rpc_id, frame)
        elif frame.type == "question/requested":
            cancelled = {"code": "cancelled", "message": "no terminal to ask on", "details": {}}
            await self.client.respond(rpc_id, {"ok": False, "error": cancelled})
        elif frame.type == "session/event":
            return self._on_event(frame.event)
        return None

    def _on_event(self, event: Any) -> int | None:
        if self.args.json:
            return _turn_exit(event)
        if event.type == "assistant/chunk" and event.data["chunk"]["type"] == "text-delta":
            sys.stdout.write(event.data["chunk"]["text"])
            sys.stdout.flush()
        elif event.type == "tool/call":
            print(f"\n[tool {event.data['name']}]", file=sys.stderr)
        code = _turn_exit(event)
        if code is not None:
            print()
            if code:
                print(t("cli.turnEnded", reason=event.data["reason"]), file=sys.stderr)
        return code

    async def _approve(self, rpc_id: str, frame: Any) -> None:
        outcome = "rejected"
        if self.interactive:
            question = "\n" + t("cli.allow", tool=frame.tool_name, arguments=json.dumps(frame.arguments))
            reply = await asyncio.to_thread(input, question)
            outcome = "allowed-once" if reply.strip().lower() in {"y", "yes", "是"} else "rejected"
        value = {"sessionId": frame.session_id, "approvalId": frame.approval_id, "outcome": outcome}
        await self.client.respond(rpc_id, {"ok": True, "value": value})


def _turn_exit(event: Any) -> int | None:
    if event.type != "turn/end":
        return None
    return 0 if event.data["reason"]["kind"] == "completed" else 1


async def _export(args: argparse.Namespace, data_dir: Path) -> int:
    runtime = await open_host(data_dir)
    try:
        if not await runtime.engine.sessions.has_session(args.session_id):
            raise CommandError(t("cli.noSession", session=args.session_id, data_dir=data_dir))
        out = Path(args.output)
        try:
            f = await asyncio.to_thread(out.open, "wb")
            with f:
                async for chunk in zip_chunks(runtime.engine, args.session_id, args.descendants):
                    await asyncio.to_thread(f.write, chunk)
        except OSError as exc:
            raise CommandError(t("cli.cannotWrite", path=out, reason=exc.strerror)) from exc
        print(out)
    finally:
        await runtime.close()
    return 0


def _existing_dir(raw: str) -> str:
    path = Path(raw).expanduser().resolve()
    if not path.is_dir():
        raise CommandError(t("cli.cwdNotDir", path=raw))
    return str(path)


async def _import(args: argparse.Namespace, data_dir: Path) -> int:
    """Import into DIR's workspace (registered now if it was not): with a window (or `serve`)
    running on the data dir, through its host over the instance channel, and the window shows
    the session (docs/decisions.md, "Import in the app"); otherwise under the lock, as `export`."""
    path = Path(args.archive)
    cwd = _existing_dir(args.cwd)
    try:
        sessions = read_archive(path)  # checked whole before anything is written
    except OSError as exc:
        raise CommandError(t("cli.cannotRead", path=path, reason=exc.strerror or exc)) from exc
    except ArchiveError as exc:
        raise CommandError(t("cli.cannotRead", path=path, reason=exc)) from exc
    instance = acquire(data_dir)
    if instance is None:
        try:
            ids = await import_into_running(data_dir, path, cwd)
        except HandoffError as exc:
            raise CommandError(str(exc)) from exc
        for sid in ids:
            print(sid)
        return 0
    runtime = await _open_locked(data_dir, instance, None)
    try:
        try:
            _, ids = await runtime.engine.imports.into_folder(sessions, cwd)
        except SessionAlreadyHere as exc:
            raise CommandError(t("cli.cannotImport", path=path, reason=exc)) from exc
        for sid in ids:
            print(sid)
    finally:
        await runtime.close()
        instance.close()
    return 0


async def _revert(args: argparse.Namespace, data_dir: Path) -> int:
    """`files.revertTurn` without the window: one line per file put back; a refusal (a file
    changed since, nothing to revert) is one line on stderr and exit code 1, nothing written."""
    instance = _lock(data_dir)
    runtime = await _open_locked(data_dir, instance, None)
    try:
        if not await runtime.engine.sessions.has_session(args.session_id):
            raise CommandError(t("cli.noSession", session=args.session_id, data_dir=data_dir))
        try:
            value = await runtime.engine.files.revert_turn(args.session_id, args.turn)
        except (RevertConflict, RevertUnavailable) as exc:
            print(f"harnessdesk: {exc}", file=sys.stderr)
            return 1
        for f in value.files:
            print(f"{f.action}\t{f.path}")
    finally:
        await runtime.close()
        instance.close()
    return 0
