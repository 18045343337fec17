"""`harnessdesk prompt TEXT [--session ID | --cwd DIR] [--json]`: one turn from the terminal,
through the same contract calls as the window (`InProcessApiClient`), under the data dir's lock
(docs/architecture.md, "Desktop, command line and data").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.i18n import t
from desktop.options import CliError, one_line
from desktop.paths import resolve_data_dir

if TYPE_CHECKING:
    from host.api import HostRuntime


def add_parser(sub: Any) -> argparse.ArgumentParser:
    prompt = sub.add_parser("prompt", help=t("cli.prompt"))
    prompt.add_argument("text", help=t("cli.promptText"))
    prompt.add_argument("--session", help=t("cli.session"))
    prompt.add_argument("--cwd", help=t("cli.promptCwd"))
    prompt.add_argument("--json", action="store_true", help=t("cli.json"))
    return prompt  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    from host.engine.errors import EngineError

    with one_line(OSError, EngineError):
        data_dir = resolve_data_dir(args.data_dir)
        _prompt_cwd(args)
        return asyncio.run(_prompt(args, data_dir))


def _prompt_cwd(args: argparse.Namespace) -> None:
    """`prompt --cwd PATH`: an existing folder for a new session (Ungrouped, as any cwd alone)."""
    if args.cwd is None:
        return
    if args.session:
        raise CliError(t("cli.cwdWithSession"))
    cwd = Path(args.cwd).expanduser().resolve()
    if not cwd.is_dir():
        raise CliError(t("cli.cwdMissing", path=args.cwd))
    args.cwd = str(cwd)


async def _prompt(args: argparse.Namespace, data_dir: Path) -> int:
    from desktop.hostopen import lock, open_locked

    instance = lock(data_dir)
    runtime = await open_locked(data_dir, instance, args)
    try:
        return await PromptRun(runtime, args).run()
    finally:
        await runtime.close()
        instance.close()


class PromptRun:
    """One turn through InProcessApiClient, the terminal path of `harnessdesk prompt`."""

    def __init__(self, runtime: HostRuntime, args: argparse.Namespace) -> None:
        from host.fetch.inprocess import InProcessApiClient

        self.client = InProcessApiClient(runtime.app)
        self.args = args
        self.interactive = sys.stdin.isatty()

    async def run(self) -> int:
        from contract.methods import SESSION_PROMPT
        from contract.rpc import RpcErr, ServerRequest

        sid = self.args.session or await self._create()
        async with self.client.stream("events.mux") as frames:
            answer = await self.client.call(
                SESSION_PROMPT,
                {"sessionId": sid, "mode": "queue", "content": [{"type": "text", "text": self.args.text}]},
            )
            if isinstance(answer.result, RpcErr):
                raise CliError(answer.result.error.message)
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
        from contract.methods import SESSION_CREATE
        from contract.rpc import RpcErr

        created = await self.client.call(SESSION_CREATE, {"cwd": self.args.cwd or str(Path.cwd())})
        if isinstance(created.result, RpcErr):
            raise CliError(created.result.error.message)
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
