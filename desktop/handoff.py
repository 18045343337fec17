"""`harnessdesk import FILE.zip --cwd DIR` while the window (or `serve`) owns the data dir: the
archive goes to that host over the instance channel's API relay as a `session.import` call, and
the window is asked to show the session (docs/decisions.md, "Import in the app"). The same
method, checks and one-line errors as the Import button, so nothing differs by the path taken.
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.i18n import t
from desktop.instance import ActivationError, activate_running

if TYPE_CHECKING:
    from contract.methods import Method, Req, Val
    from host.fetch.client import AbstractApiClient


class HandoffError(Exception):
    """One line for the user: the running instance refused, or could not be reached."""


async def import_into_running(data_dir: Path, archive: Path, cwd: str) -> list[str]:
    """Import `archive` into DIR's workspace through the running host; the ids, main one first."""
    from contract.methods import SESSION_IMPORT, WORKSPACE_CREATE
    from contract.sessions import MAX_IMPORT_BYTES
    from desktop.instance_relay import RelayApiClient
    from host.fetch.errors import TransportError

    try:
        data = await asyncio.to_thread(archive.read_bytes)
    except OSError as exc:
        raise HandoffError(t("cli.cannotRead", path=archive, reason=exc.strerror or exc)) from exc
    if len(data) > MAX_IMPORT_BYTES:
        too_big = t("cli.tooBigForRunning", size=_mb(len(data)), max=_mb(MAX_IMPORT_BYTES))
        raise HandoffError(t("cli.cannotImport", path=archive, reason=too_big))
    try:
        client = await RelayApiClient.connect(data_dir)
    except (OSError, ValueError, KeyError, EOFError, TransportError) as exc:
        raise HandoffError(t("cli.otherInstanceSilent", data_dir=data_dir, reason=exc)) from exc
    try:
        workspace = (await _value(client, archive, WORKSPACE_CREATE, {"path": cwd})).workspace
        payload = {
            "data": base64.b64encode(data).decode("ascii"),
            "workspaceId": workspace.workspace_id,
            "fileName": archive.name[:300],
        }
        ids = [str(sid) for sid in (await _value(client, archive, SESSION_IMPORT, payload)).session_ids]
    except TransportError as exc:
        raise HandoffError(t("cli.cannotImport", path=archive, reason=t("cli.wentAway", reason=exc))) from exc
    finally:
        await client.aclose()
    try:  # shown in the window; `serve` only confirms (its tabs see the session arrive)
        await asyncio.to_thread(activate_running, data_dir, 10.0, None, ids[0])
    except ActivationError:
        pass  # imported all the same: the window shows it in the sidebar
    return ids


async def _value(
    client: AbstractApiClient, archive: Path, method: Method[Req, Val], payload: dict[str, Any]
) -> Val:
    from contract.rpc import RpcErr

    response = await client.call(method, payload)
    if isinstance(response.result, RpcErr):
        raise HandoffError(t("cli.cannotImport", path=archive, reason=response.result.error.message))
    return response.result.value


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"
