"""One language server process: JSON-RPC 2.0 over its stdio with `Content-Length` framing
(docs/decisions.md, "Language servers"). Requests get futures; `textDocument/publishDiagnostics`
is kept per document, and a waiter can ask for the next one with a bound; requests the server
sends (configuration, work-done progress) get an empty answer so it never waits on us."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

MAX_MESSAGE = 64 * 1024 * 1024
REQUEST_BOUND = 20.0


class LspError(Exception):
    """The server failed, answered an error, or did not answer in time."""


class LspClient:
    def __init__(self, argv: Sequence[str], root: Path, env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.root = root
        self._env = env
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._next = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        """uri → the newest published diagnostics."""
        self._published: dict[str, asyncio.Event] = {}
        self.versions: dict[str, int] = {}
        """uri → the version of the text the server has (opened documents)."""
        self.texts: dict[str, str] = {}
        self.capabilities: dict[str, Any] = {}
        self.stderr_tail = b""
        self._answers: set[asyncio.Future[None]] = set()

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    async def start(self, bound: float = 30.0) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=str(self.root),
            env=self._env,
            start_new_session=True,
        )
        self._reader = asyncio.create_task(self._read_loop(), name=f"lsp-read {self.argv[0]}")
        self._stderr = asyncio.create_task(self._drain_stderr(), name=f"lsp-stderr {self.argv[0]}")
        uri = self.root.as_uri()
        params = {
            "processId": None,
            "rootUri": uri,
            "rootPath": str(self.root),
            "workspaceFolders": [{"uri": uri, "name": self.root.name or "root"}],
            "capabilities": {
                "textDocument": {
                    "synchronization": {"didSave": True},
                    "publishDiagnostics": {"relatedInformation": False, "versionSupport": True},
                    "hover": {"contentFormat": ["markdown", "plaintext"]},
                    "definition": {},
                    "references": {},
                    "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                },
                "workspace": {"symbol": {}, "workspaceFolders": True, "configuration": True},
            },
        }
        result = await self.request("initialize", params, bound=bound)
        self.capabilities = (result or {}).get("capabilities") or {}
        await self.notify("initialized", {})

    async def request(self, method: str, params: Any, *, bound: float = REQUEST_BOUND) -> Any:
        self._next += 1
        key = self._next
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[key] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": key, "method": method, "params": params})
            return await asyncio.wait_for(future, bound)
        except TimeoutError:
            raise LspError(f"{self.argv[0]} did not answer {method} within {bound:.0f} s") from None
        finally:
            self._waiting.pop(key, None)

    async def notify(self, method: str, params: Any) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def sync(self, path: Path, text: str, language_id: str) -> bool:
        """Give the server `path`'s text (open it, or change it); False when it already had it."""
        uri = path.as_uri()
        if uri in self.versions and self.texts.get(uri) == text:
            return False
        self._published.setdefault(uri, asyncio.Event()).clear()
        if uri not in self.versions:
            self.versions[uri] = 1
            document = {"uri": uri, "languageId": language_id, "version": 1, "text": text}
            await self.notify("textDocument/didOpen", {"textDocument": document})
        else:
            self.versions[uri] += 1
            identifier = {"uri": uri, "version": self.versions[uri]}
            await self.notify(
                "textDocument/didChange", {"textDocument": identifier, "contentChanges": [{"text": text}]}
            )
            await self.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
        self.texts[uri] = text
        return True

    async def published(self, path: Path, bound: float) -> list[dict[str, Any]] | None:
        """The diagnostics published for `path` since its last `sync` (waits at most `bound`
        seconds; None: none came)."""
        uri = path.as_uri()
        event = self._published.setdefault(uri, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), bound)
        except TimeoutError:
            return None
        return self.diagnostics.get(uri, [])

    async def close(self, bound: float = 3.0) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                await self.request("shutdown", None, bound=bound)
                await self.notify("exit", None)
            try:
                await asyncio.wait_for(proc.wait(), bound)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        for task in (self._reader, self._stderr):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(LspError(f"{self.argv[0]} ended"))

    # ---- the wire -------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.returncode is not None:
            raise LspError(f"{self.argv[0]} is not running")
        body = json.dumps(message, ensure_ascii=False).encode()
        try:
            proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await asyncio.wait_for(proc.stdin.drain(), REQUEST_BOUND)
        except (ConnectionError, TimeoutError) as exc:
            raise LspError(f"{self.argv[0]} stopped reading ({exc})") from None

    async def _read_loop(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        out = proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = await out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None or length > MAX_MESSAGE:
                    return
                self._dispatch(json.loads(await out.readexactly(length)))
        except (asyncio.IncompleteReadError, ValueError, ConnectionError) as exc:
            log.debug("language server %s: the stream ended (%s)", self.argv[0], exc)
        finally:
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(LspError(f"{self.argv[0]} ended"))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "id" in message and "method" not in message:
            future = self._waiting.get(message["id"])
            if future is not None and not future.done():
                if "error" in message:
                    future.set_exception(LspError(str(message["error"].get("message", "error"))))
                else:
                    future.set_result(message.get("result"))
            return
        method = message.get("method")
        if "id" in message:  # the server asks: configuration, progress, … — an empty answer
            answer: Any = None
            if method == "workspace/configuration":
                answer = [None for _ in (message.get("params") or {}).get("items", [])]
            task = asyncio.ensure_future(self._answer(message["id"], answer))
            self._answers.add(task)
            task.add_done_callback(self._answers.discard)
            return
        if method == "textDocument/publishDiagnostics":
            params = message.get("params") or {}
            uri = params.get("uri")
            if isinstance(uri, str):
                self.diagnostics[uri] = list(params.get("diagnostics") or [])
                self._published.setdefault(uri, asyncio.Event()).set()

    async def _answer(self, key: Any, result: Any) -> None:
        with contextlib.suppress(LspError):
            await self._send({"jsonrpc": "2.0", "id": key, "result": result})

    async def _drain_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        while chunk := await proc.stderr.read(4096):
            self.stderr_tail = (self.stderr_tail + chunk)[-4096:]
