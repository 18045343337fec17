"""Model downloads: resumable (HTTP Range), checked, installed atomically.

Each download writes `<models>/.downloads/<id>.part` beside a small state file `<id>.json`
(source, expected checksum, state), so one that was running when the app ended resumes at the
next start, and a paused one stays paused. A dropped connection is resumed from the bytes on
disk; a server that answers a range with the whole file restarts it. Before the first byte the
free space is checked against what remains; when the last byte is in, the SHA-256 (when known),
the GGUF header and the file's length against the tensor data that header describes are
checked, then the library moves the file into place. On any failure the
partial file is removed: nothing half-installed is ever listed (docs/decisions.md, "Offline agent").
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from contract.frames import HostModelDownload
from contract.llm import DownloadState, ModelDownloadView
from host.engine.errors import ModelDownloadNotFound, ModelDownloadRefused
from host.engine.llm.localmodels.gguf_meta import Incomplete, NotGguf, check_whole, read_info
from host.engine.llm.localmodels.library import ModelLibrary, write_atomic
from host.engine.llm.localmodels.transfer import (
    DownloadFailed,
    describe_error,
    disk_sentence,
    file_size,
    flush,
    human_size,
    no_network,
    open_source,
)
from host.engine.store import ids

log = logging.getLogger(__name__)

PROGRESS_EVERY = 0.25
"""Seconds between progress frames of one download (state changes always go out)."""
RETRIES = 5
"""Attempts in a row that bring no new byte before a download fails."""
RETRY_DELAYS = (0.2, 0.5, 1.0, 2.0, 4.0)
SPACE_MARGIN = 16 * 1024 * 1024
"""Kept free beyond the file itself (the record, the database's next writes)."""


@dataclass
class Download:
    download_id: str
    name: str
    source: str
    model_id: str
    sha256: str | None = None
    catalog_id: str | None = None
    total_bytes: int | None = None
    state: DownloadState = "running"
    received_bytes: int = 0
    error: str | None = None
    cause: str | None = None
    installed_id: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False, compare=False)

    def view(self) -> ModelDownloadView:
        return ModelDownloadView(
            download_id=self.download_id,
            name=self.name,
            state=self.state,
            received_bytes=self.received_bytes,
            total_bytes=self.total_bytes,
            error=self.error,
            cause="no-network" if self.cause == "no-network" else None,
            catalog_id=self.catalog_id,
            model_id=self.installed_id,
        )

    def record(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "task"}


Publish = Callable[[HostModelDownload], None]


class DownloadManager:
    def __init__(
        self, library: ModelLibrary, publish: Publish, on_installed: Callable[[], None], **http: Any
    ) -> None:
        """`http` goes to the httpx client (tests shorten timeouts)."""
        self.library = library
        self._publish = publish
        self._on_installed = on_installed
        self._http = {"timeout": 30.0, **http}
        self._downloads: dict[str, Download] = {}
        self._last_progress: dict[str, float] = {}
        self._trailing: set[str] = set()
        self._closing = False

    # ---- the door ---------------------------------------------------------------------------

    def views(self) -> list[ModelDownloadView]:
        return [d.view() for d in self._downloads.values()]

    def get(self, download_id: str) -> Download:
        found = self._downloads.get(download_id)
        if found is None:
            raise ModelDownloadNotFound(download_id)
        return found

    async def start(
        self,
        source: str,
        *,
        name: str | None = None,
        sha256: str | None = None,
        catalog_id: str | None = None,
        size: int | None = None,
    ) -> Download:
        """Begin a download (or a copy of a `file://` source); refuses a source already being
        fetched and, when the size is known now, a disk without room for it."""
        parts = urlsplit(source)
        if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.hostname):
            raise ModelDownloadRefused(f"{source!r} is not an http(s):// or file:// address")
        if parts.scheme == "file":
            path = Path(unquote(parts.path))
            size = await asyncio.to_thread(file_size, path)
            if size is None:
                raise ModelDownloadRefused(f"there is no file {path}")
        for d in self._downloads.values():
            if d.source == source and d.state in ("running", "paused", "verifying"):
                raise ModelDownloadRefused(f"{d.name} is already being downloaded")
        file_name = Path(unquote(parts.path)).name or "model.gguf"
        title = name or file_name.removesuffix(".gguf")
        if size is not None and (short := self._space_problem(size)):
            raise ModelDownloadRefused(short)
        download = Download(
            download_id=ids.download_id(),
            name=title,
            source=source,
            model_id=self.library.free_id(catalog_id or file_name.removesuffix(".gguf")),
            sha256=sha256.lower() if sha256 else None,
            catalog_id=catalog_id,
            total_bytes=size,
        )
        self._downloads[download.download_id] = download
        await asyncio.to_thread(self._save, download)
        self._run(download)
        return download

    async def pause(self, download_id: str) -> Download:
        d = self.get(download_id)
        if d.state == "running":
            await self._stop_task(d)
            d.state = "paused"
            await asyncio.to_thread(self._save, d)
            self._announce(d)
        return d

    async def resume(self, download_id: str) -> Download:
        d = self.get(download_id)
        if d.state == "paused":
            d.state = "running"
            d.error = d.cause = None
            await asyncio.to_thread(self._save, d)
            self._run(d)
        return d

    async def cancel(self, download_id: str) -> Download:
        """Stop and forget a download (its partial file goes); a finished one is dismissed."""
        d = self.get(download_id)
        await self._stop_task(d)
        if d.state not in ("done", "failed"):
            d.state = "cancelled"
            self._announce(d)
        await asyncio.to_thread(self._discard, d)
        self._downloads.pop(download_id, None)
        return d

    async def open(self) -> None:
        """Pick up the downloads a previous run left: running ones resume, paused ones wait."""
        for state_file in sorted(self.library.partial_root.glob("*.json")):
            try:
                raw = json.loads(state_file.read_text(encoding="utf-8"))
                d = Download(**raw)
            except (OSError, ValueError, TypeError):
                with contextlib.suppress(OSError):
                    state_file.unlink()
                continue
            part = self._part(d)
            d.received_bytes = part.stat().st_size if part.exists() else 0
            if d.state not in ("running", "paused"):
                await asyncio.to_thread(self._discard, d)
                continue
            self._downloads[d.download_id] = d
            if d.state == "running":
                self._run(d)
        for orphan in self.library.partial_root.glob("*.part"):
            if orphan.stem not in self._downloads:
                with contextlib.suppress(OSError):
                    orphan.unlink()

    async def close(self) -> None:
        """The app ends: stop every transfer, keeping what is on disk for the next start."""
        self._closing = True
        for d in list(self._downloads.values()):
            await self._stop_task(d)

    # ---- the transfer -----------------------------------------------------------------------

    def _run(self, d: Download) -> None:
        d.task = asyncio.get_running_loop().create_task(self._transfer(d), name=f"download-{d.download_id}")
        self._announce(d)

    async def _stop_task(self, d: Download) -> None:
        task, d.task = d.task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _transfer(self, d: Download) -> None:
        try:
            await self._fetch(d)
            d.state = "verifying"
            self._announce(d)
            model = await asyncio.to_thread(self._verify_and_install, d)
        except asyncio.CancelledError:
            raise
        except DownloadFailed as exc:
            await self._fail(d, str(exc), exc.cause)
            return
        except OSError as exc:
            await self._fail(d, disk_sentence(exc))
            return
        except Exception as exc:  # a bug must not leave a half-done download behind
            log.exception("model download %s failed", d.download_id)
            await self._fail(d, f"the download failed: {exc}")
            return
        d.state, d.installed_id, d.task = "done", model, None
        await asyncio.to_thread(self._forget_state, d)
        self._announce(d)
        self._on_installed()

    async def _fail(self, d: Download, reason: str, cause: str | None = None) -> None:
        d.state, d.error, d.cause, d.task = "failed", reason, cause, None
        await asyncio.to_thread(self._discard, d)
        log.info("model download %s failed: %s", d.name, reason)
        self._announce(d)

    async def _fetch(self, d: Download) -> None:
        """Write the source into the partial file, resuming after drops, until it is complete."""
        import httpx

        part = self._part(d)
        d.received_bytes = part.stat().st_size if part.exists() else 0
        stalls = 0
        while True:
            before = d.received_bytes
            try:
                complete = await self._attempt(d, part)
            except (httpx.TransportError, ConnectionError, TimeoutError) as exc:
                # the connection dropped or stalled: resume from the bytes on disk
                if d.received_bytes > before:
                    stalls = 0
                stalls += 1
                if stalls >= RETRIES and (offline := no_network(exc, d.source)):
                    # said plainly, and the page offers what works without a network
                    raise DownloadFailed(offline, "no-network") from None
                if stalls >= RETRIES:
                    total = human_size(d.total_bytes) if d.total_bytes else "an unknown size"
                    raise DownloadFailed(
                        f"the connection kept dropping at {human_size(d.received_bytes)} of "
                        f"{total} ({describe_error(exc)})"
                    ) from None
                await asyncio.sleep(RETRY_DELAYS[min(stalls - 1, len(RETRY_DELAYS) - 1)])
                continue
            if complete:
                return

    async def _attempt(self, d: Download, part: Path) -> bool:
        """One connection; True when the file is complete."""
        offset = d.received_bytes
        async with open_source(d.source, offset, d.total_bytes, self._http) as (start, total, chunks):
            if total is not None:
                if d.total_bytes is not None and d.total_bytes != total and d.catalog_id is None:
                    raise DownloadFailed(
                        f"the server now says the file has {total} bytes, not {d.total_bytes}"
                    )
                d.total_bytes = total
            if start == 0 and offset:
                d.received_bytes = 0  # the server ignored the range: start over
            if d.total_bytes is not None and (short := self._space_problem(d.total_bytes - d.received_bytes)):
                raise DownloadFailed(short)
            await asyncio.to_thread(self._save, d)
            mode = "ab" if d.received_bytes else "wb"
            with await asyncio.to_thread(open, part, mode) as f:
                async for data in chunks:
                    if d.total_bytes is not None and d.received_bytes + len(data) > d.total_bytes:
                        raise DownloadFailed(
                            f"the server sent more than the {d.total_bytes} bytes it announced"
                        )
                    await asyncio.to_thread(f.write, data)
                    d.received_bytes += len(data)
                    self._progress(d)
                await asyncio.to_thread(flush, f)
        if d.total_bytes is None:
            d.total_bytes = d.received_bytes
            return True
        if d.received_bytes < d.total_bytes:
            raise ConnectionError(f"the connection ended at {d.received_bytes} of {d.total_bytes} bytes")
        return True

    def _verify_and_install(self, d: Download) -> str:
        part = self._part(d)
        size = part.stat().st_size
        if d.total_bytes is not None and size != d.total_bytes:
            raise DownloadFailed(f"the file has {size} bytes, the server announced {d.total_bytes}")
        digest = hashlib.sha256()
        with open(part, "rb") as f:
            while block := f.read(1024 * 1024):
                digest.update(block)
        actual = digest.hexdigest()
        if d.sha256 is not None and actual != d.sha256:
            raise DownloadFailed(f"the checksum does not match: expected {d.sha256}, got {actual}")
        try:
            info = read_info(part)
            check_whole(part)  # its own header says how long it is: a cut-off file goes
        except Incomplete as exc:
            raise DownloadFailed(f"the model file is incomplete: {exc}") from None
        except NotGguf as exc:
            raise DownloadFailed(f"this is not a GGUF model file ({exc})") from None
        source = d.source if not d.source.startswith("file:") else unquote(urlsplit(d.source).path)
        model = self.library.install(
            part,
            d.model_id,
            d.name,
            actual,
            info,
            license=info.license,
            catalog_id=d.catalog_id,
            source=source,
        )
        return model.id

    # ---- bookkeeping ------------------------------------------------------------------------

    def _part(self, d: Download) -> Path:
        return self.library.partial_root / f"{d.download_id}.part"

    def _save(self, d: Download) -> None:
        self.library.partial_root.mkdir(parents=True, exist_ok=True)
        write_atomic(self.library.partial_root / f"{d.download_id}.json", json.dumps(d.record()).encode())

    def _forget_state(self, d: Download) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.library.partial_root / f"{d.download_id}.json").unlink()

    def _discard(self, d: Download) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._part(d).unlink()
        self._forget_state(d)

    def _space_problem(self, needed: int) -> str | None:
        """The sentence to refuse with when `needed` more bytes do not fit, else None."""
        free = shutil.disk_usage(self.library.root).free
        if needed + SPACE_MARGIN <= free:
            return None
        return (
            f"not enough free space: the model needs {human_size(needed)} more, {human_size(free)} is free"
            f" in {self.library.root}"
        )

    def _progress(self, d: Download) -> None:
        """At most one frame per PROGRESS_EVERY; the bytes of a throttled window still go out at
        its end (a transfer that stalls right after a burst must not show the old count)."""
        wait = self._last_progress.get(d.download_id, 0.0) + PROGRESS_EVERY - time.monotonic()
        if wait <= 0:
            self._announce(d)
        elif d.download_id not in self._trailing:
            self._trailing.add(d.download_id)
            asyncio.get_running_loop().call_later(wait, self._trail, d)

    def _trail(self, d: Download) -> None:
        self._trailing.discard(d.download_id)
        if d.state == "running":
            self._announce(d)

    def _announce(self, d: Download) -> None:
        if self._closing:
            return
        self._last_progress[d.download_id] = time.monotonic()
        v = d.view()
        self._publish(
            HostModelDownload(
                download_id=v.download_id,
                state=v.state,
                received_bytes=v.received_bytes,
                total_bytes=v.total_bytes,
                error=v.error,
                cause=v.cause,
                name=v.name,
                model_id=v.model_id,
            )
        )
