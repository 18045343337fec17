"""Folders in the desktop app: the window's native folder dialog and "open this folder".

`WindowFolderPicker` serves `host.pickDirectory` (the `native` capability, docs/decisions.md
"Workspaces"): pywebview's `create_file_dialog(FOLDER)` (or `OPEN` for one GGUF model file),
modal on the window and run by the GUI thread; the host's loop waits for it on a worker thread,
for as long as the user takes. When the caller goes away (the page aborts, the window closes)
the dialog is closed for them.

`open_folder` is what `harnessdesk PATH` does, in a fresh window or handed to a running one:
register PATH as a workspace (or adopt its registration) and pick the session to show there —
its blank session when it has one, else a new one. It speaks the contract through the
in-process client, like any other front end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp

from desktop.i18n import t

if TYPE_CHECKING:
    from contract.methods import Method, Req, Val
    from host.fetch.client import AbstractApiClient

# The contract and the host are imported where they are used: the window imports this module
# while it starts, and leaves pydantic and the engine to the host's thread (docs/decisions.md,
# "Performance and packaging", cold start).

log = logging.getLogger("desktop.folders")

DIALOG_LOCK = threading.Lock()
"""One native dialog at a time: pywebview hands every dialog's answer back through one slot
per window, so a folder dialog and an export's save dialog must never overlap."""


class WindowFolderPicker:
    """The native folder chooser of the window; `bind` it once the window exists."""

    def __init__(self) -> None:
        self._window: Any = None
        self._close_dialogs: Callable[[], None] = lambda: None
        self._busy: asyncio.Lock | None = None

    def bind(self, window: Any, close_dialogs: Callable[[], None]) -> None:
        """`close_dialogs` closes any open file dialog of the window (from any thread)."""
        self._window = window
        self._close_dialogs = close_dialogs

    async def pick(self, file: str | None = None) -> str | None:
        if self._window is None:
            from host.engine.errors import HostActionFailed

            raise HostActionFailed("the window is not open yet")
        if self._busy is None:
            self._busy = asyncio.Lock()
        async with self._busy:  # a second request waits for the first dialog to close
            answer = asyncio.ensure_future(asyncio.to_thread(self._ask, file))
            try:
                return await asyncio.shield(answer)
            except asyncio.CancelledError:
                self._close_dialogs()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(answer, 10)
                raise

    def _ask(self, file: str | None = None) -> str | None:
        import webview

        with DIALOG_LOCK:
            if file == "gguf":  # a model file from disk (Settings → Add a GGUF file)
                result = self._window.create_file_dialog(
                    webview.FileDialog.OPEN,
                    directory=str(Path.home()),
                    file_types=(t("window.ggufFiles"), t("window.allFiles")),
                )
            else:
                result = self._window.create_file_dialog(
                    webview.FileDialog.FOLDER, directory=str(Path.home())
                )
        if not result:
            return None
        chosen = result[0] if isinstance(result, list | tuple) else result
        return str(chosen) or None


class OpenFolderError(Exception):
    """PATH could not be opened as a workspace; the message is one line for the user."""


async def open_folder(app: ASGIApp, path: str) -> str:
    """Register `path` as a workspace and return the session to show there (reused or new)."""
    from contract.methods import SESSION_CREATE, SESSION_LIST, WORKSPACE_CREATE, WORKSPACE_LIST
    from host.fetch.inprocess import InProcessApiClient

    async with InProcessApiClient(app) as client:
        workspace = (await _value(client, WORKSPACE_CREATE, {"path": path})).workspace
        summaries = {s.session_id: s for s in (await _value(client, SESSION_LIST, {})).items}
        hidden = set((await _value(client, WORKSPACE_LIST, {})).archived_session_ids)
        for sid in workspace.session_ids:
            summary = summaries.get(sid)
            if summary is not None and summary.blank and not summary.running and sid not in hidden:
                return str(sid)
        made = await _value(client, SESSION_CREATE, {"workspaceId": workspace.workspace_id})
        return str(made.session_id)


async def _value(client: AbstractApiClient, method: Method[Req, Val], payload: dict[str, Any]) -> Val:
    """The method's value, or OpenFolderError with the host's one-line message."""
    from contract.rpc import RpcErr

    response = await client.call(method, payload)
    if isinstance(response.result, RpcErr):
        raise OpenFolderError(response.result.error.message)
    return response.result.value
