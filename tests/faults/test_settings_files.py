"""settings.json and credentials.json hold whatever a person or an editor left there: the host
starts anyway, never writes over a file it could not read, says per file what is wrong, and
writes again once the file is fixed by hand or reset (docs/decisions.md, "Configuration files
that cannot be read"). Real files, a real engine behind the in-process client and a real
`harnessdesk serve`; a real full tmpfs for the failing write."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    CREDENTIALS_DESCRIBE,
    CREDENTIALS_SET,
    SETTINGS_DESCRIBE,
    SETTINGS_MUTATE,
    SETTINGS_RESET_DOCUMENT,
    SETTINGS_UPDATE,
    AnyMethod,
)
from host.engine.errors import CredentialRejected
from host.engine.settings.credentials import CredentialStore
from host.fetch import AbstractApiClient, HttpApiClient
from tests.api.conftest import Host, open_test_host
from tests.api.support import LISTENING, Frames, cli_env, err, ftype, harnessdesk, ok, start_serve
from tests.faults.test_disk_full import small_disk

__all__ = ["small_disk"]  # the fixture, imported for the full-disk case

NO_LLM = "http://127.0.0.1:9/v1"  # never called: no turn runs in these tests
WAIT = 30.0
KEY = "DEEPSEEK_API_KEY"
NOBODY = 65534

SETTINGS_CONTENT = {
    "latin-1": (
        b'{"version": 2, "namespaces": {"ui-appearance": {"theme": "caf\xe9"}}}\n',
        "not valid UTF-8",
    ),
    "trailing-comma": (
        b'{"version": 2, "namespaces": {\n  "permission": {"defaultPreset": "read-only"},\n}}\n',
        "a comma before the closing } (line 3, column 1)",
    ),
    "wrong-type": (
        b'{"version": 2, "namespaces": {"permission": "read-only"}}\n',
        '"permission" must be an object',
    ),
    "not-an-object": (b'["permission"]\n', "does not hold a JSON object"),
}
CREDENTIALS_CONTENT = {
    "latin-1": (
        b'{"version": 2, "credentials": {"DEEPSEEK_API_KEY": "sk-caf\xe9-1234567"}}\n',
        "not valid UTF-8",
    ),
    "trailing-comma": (
        b'{"version": 2, "credentials": {"DEEPSEEK_API_KEY": "sk-hand-written-1",}}\n',
        "a comma before the closing }",
    ),
    "wrong-type": (b'{"version": 2, "credentials": {"DEEPSEEK_API_KEY": 42}}\n', "must be a string"),
}


def folder(path: Path) -> None:
    path.mkdir()
    (path / "inside.txt").write_text("kept")


PLACES: dict[str, tuple[Callable[[Path], None], str]] = {
    "folder": (folder, "is a folder, not a file"),
    "fifo": (os.mkfifo, "not a regular file (it is a named pipe)"),
}
CASES = [
    *[("settings.json", kind) for kind in [*SETTINGS_CONTENT, *PLACES]],
    *[("credentials.json", kind) for kind in [*CREDENTIALS_CONTENT, *PLACES]],
]


def put(path: Path, kind: str) -> str:
    """Make `path` broken in the way `kind` says; returns the words its problem must hold."""
    contents = SETTINGS_CONTENT if path.name == "settings.json" else CREDENTIALS_CONTENT
    if kind in contents:
        data, words = contents[kind]
        path.write_bytes(data)
        return words
    make, words = PLACES[kind]
    make(path)
    return words


def fill_up(where: Path) -> Path:
    """One file that takes every byte left (unbuffered writes, so nothing fails at close)."""
    filler = where / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 16, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)
    return filler


def snapshot(path: Path) -> tuple[str, bytes | list[str]]:
    """What is at `path`, compared byte for byte (a folder by its listing and contents)."""
    mode = os.lstat(path).st_mode
    if stat.S_ISDIR(mode):
        return ("folder", sorted(f"{p.name}={p.read_text()}" for p in path.iterdir()))
    if stat.S_ISFIFO(mode):
        return ("fifo", b"")
    return ("file", path.read_bytes())


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def leftovers(folder: Path) -> list[str]:
    """Temp files of an interrupted or refused write (there must never be any)."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name.startswith("."))


def fixed(file: str) -> Callable[[Any], bool]:
    """The frame that says `file` was re-read and is fine again."""
    return lambda f: ftype("host/config-file-changed")(f) and f.file == file and f.problem is None


async def describe_file(client: AbstractApiClient, file: str) -> dict[str, object]:
    if file == "settings.json":
        settings = await ok(client, SETTINGS_DESCRIBE)
        return settings.file.model_dump(mode="json", by_alias=True)
    credentials = await ok(client, CREDENTIALS_DESCRIBE, {"refs": [KEY]})
    return credentials.file.model_dump(mode="json", by_alias=True)


REFUSAL = {"settings.json": "settings-rejected", "credentials.json": "credential-rejected"}
OTHER = {"settings.json": "credentials.json", "credentials.json": "settings.json"}


@pytest.mark.parametrize(("file", "kind"), CASES)
async def test_a_broken_file_is_reported_refused_and_reset(tmp_path: Path, file: str, kind: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    target = data / file
    words = put(target, kind)
    before = snapshot(target)

    host: Host = await open_test_host("inprocess", tmp_path, NO_LLM, data_dir=data)  # it starts
    try:
        client = host.client()
        hosts: Frames = await host.host_stream(client)
        shown = await describe_file(client, file)
        assert shown["file"] == file and shown["path"] == str(target)
        problem = str(shown["problem"])
        assert problem.startswith(file) and words in problem and "\n" not in problem
        assert (await describe_file(client, OTHER[file]))["problem"] is None

        refused = await err(client, *_write_call(file), REFUSAL[file])
        assert problem in refused.message and "reset" in refused.message
        assert snapshot(target) == before and leftovers(data) == []
        await ok(client, *_write_call(OTHER[file]))  # the other file is fine and takes writes
        assert snapshot(target) == before

        reset = await ok(client, SETTINGS_RESET_DOCUMENT, {"file": file})
        kept = data / str(reset.kept_as)
        assert reset.kept_as is not None
        assert reset.kept_as.startswith(f"{file}.broken-") and snapshot(kept) == before
        assert json.loads(target.read_text(encoding="utf-8"))["version"] == 2
        await hosts.seen(
            lambda f: ftype("host/config-file-changed")(f) and f.file == file and f.problem is None
        )
        assert (await describe_file(client, file))["problem"] is None
        await ok(client, *_write_call(file))
        again = await ok(client, SETTINGS_RESET_DOCUMENT, {"file": file})
        assert again.kept_as is None  # a usable file is never set aside
        assert snapshot(kept) == before and leftovers(data) == []
    finally:
        await host.close()
    assert snapshot(kept) == before


def _write_call(file: str) -> tuple[AnyMethod, dict[str, object]]:
    if file == "settings.json":
        return SETTINGS_MUTATE, {
            "ns": "ui-appearance",
            "ops": [{"op": "set", "path": ["theme"], "value": "dark"}],
        }
    return CREDENTIALS_SET, {"ref": KEY, "value": "sk-typed-in-settings-1"}


async def test_a_hand_fix_is_seen_and_nothing_the_person_wrote_is_lost(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    settings, creds = data / "settings.json", data / "credentials.json"
    put(settings, "trailing-comma")
    put(creds, "trailing-comma")
    host = await open_test_host("inprocess", tmp_path, NO_LLM, data_dir=data)
    try:
        client = host.client()
        hosts = await host.host_stream(client)
        await err(client, *_write_call("settings.json"), "settings-rejected")
        await err(client, *_write_call("credentials.json"), "credential-rejected")

        # The person fixes both files in an editor; the watcher re-reads them.
        settings.write_text('{"version": 2, "namespaces": {"permission": {"defaultPreset": "read-only"}}}\n')
        creds.write_text('{"version": 2, "credentials": {"DEEPSEEK_API_KEY": "sk-hand-written-1"}}\n')
        for file in ("settings.json", "credentials.json"):
            await hosts.seen(fixed(file), WAIT)
        await ok(client, *_write_call("settings.json"))
        await ok(client, CREDENTIALS_SET, {"ref": "OTHER_API_KEY", "value": "sk-other-value-2"})
        doc = json.loads(settings.read_text())
        assert doc["namespaces"]["permission"] == {"defaultPreset": "read-only"}  # kept
        assert doc["namespaces"]["ui-appearance"] == {"theme": "dark"}
        assert json.loads(creds.read_text())["credentials"] == {
            "DEEPSEEK_API_KEY": "sk-hand-written-1",
            "OTHER_API_KEY": "sk-other-value-2",
        }
        assert (await ok(client, CREDENTIALS_DESCRIBE, {"refs": [KEY]})).credentials[KEY].configured

        # Broken again by hand while running: refused again, the last good values still apply.
        settings.write_bytes(b'{"version": 2, "namespaces": {"permission": {"defaultPreset": "chat"},}}')
        await hosts.seen(
            lambda f: ftype("host/config-file-changed")(f) and f.file == "settings.json" and f.problem, WAIT
        )
        view = await ok(client, SETTINGS_DESCRIBE)
        permission = {n.ns: n.value for n in view.namespaces}["permission"]
        assert permission == {"defaultPreset": "read-only", "rules": []}  # rules: the section's default
        await err(client, *_write_call("settings.json"), "settings-rejected")
        assert settings.read_bytes().endswith(b"},}}") and leftovers(data) == []
    finally:
        await host.close()


async def test_serve_starts_with_both_files_broken_and_leaves_them_alone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    settings, creds = data / "settings.json", data / "credentials.json"
    put(settings, "latin-1")
    put(creds, "trailing-comma")
    before = (settings.read_bytes(), creds.read_bytes())
    served = start_serve(data)  # returns once it prints its listening line
    try:
        async with HttpApiClient(served.base_url, served.token) as client:
            assert "not valid UTF-8 (byte 0xe9 on line 1)" in str(
                (await describe_file(client, "settings.json"))["problem"]
            )
            assert "a comma before" in str((await describe_file(client, "credentials.json"))["problem"])
            await err(client, *_write_call("settings.json"), "settings-rejected")
            await err(client, *_write_call("credentials.json"), "credential-rejected")
            await err(
                client,
                SETTINGS_UPDATE,
                {"ns": "permission", "patch": {"defaultPreset": "read-only"}},
                "settings-rejected",
            )
    finally:
        code = served.stop()
    assert code == 0, served.later_output
    assert "Traceback" not in served.later_output
    assert (settings.read_bytes(), creds.read_bytes()) == before and leftovers(data) == []


async def test_a_write_that_fails_leaves_the_old_file_and_no_temp_file(small_disk: Path) -> None:
    creds = small_disk / "credentials.json"
    creds.write_text('{"version": 2, "credentials": {"DEEPSEEK_API_KEY": "sk-before-the-disk-filled"}}\n')
    before = creds.read_bytes()
    store = CredentialStore(small_disk, environ={})
    filler = fill_up(small_disk)
    try:
        with pytest.raises(CredentialRejected, match=r"could not save credentials\.json: No space left"):
            await store.set("OTHER_API_KEY", "sk-" + "x" * 4000)
        assert creds.read_bytes() == before
        assert names(small_disk) == ["credentials.json", "filler"]
    finally:
        filler.unlink()
    await store.set("OTHER_API_KEY", "sk-after-space-returned")
    assert json.loads(creds.read_text())["credentials"]["OTHER_API_KEY"] == "sk-after-space-returned"
    await asyncio.sleep(0)


def root_only_settings() -> Path:
    """A data dir nobody owns under a folder anyone may enter, holding a settings.json that only
    root may read (tmp_path's parents are root-only)."""
    top = Path(tempfile.mkdtemp(prefix="hd-unreadable-", dir="/var/tmp"))  # $TMPDIR may be 0700
    top.chmod(0o755)
    data = top / "data"
    data.mkdir()
    os.chown(data, NOBODY, NOBODY)
    settings = data / "settings.json"
    settings.write_text('{"version": 2, "namespaces": {"permission": {"defaultPreset": "read-only"}}}\n')
    settings.chmod(0o000)
    return data


def serve_as_nobody(data: Path) -> subprocess.Popen[str]:
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.Popen(
        [*drop, *harnessdesk(), "serve", "--data-dir", str(data)],
        cwd=data.parent,
        env=cli_env({"HOME": str(data.parent)}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_a_file_the_host_user_may_not_read_is_reported_and_kept() -> None:
    """Mode 000 means nothing to root, so `serve` runs as nobody (setpriv) on a data dir nobody
    owns, with a settings.json only root may read: it could replace the file, but must not."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run the host as another user")
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    reach = await asyncio.to_thread(
        subprocess.run, [*drop, *harnessdesk(), "--version"], capture_output=True, timeout=60
    )
    if reach.returncode != 0:  # a checkout in a 0700 home or temp folder: nobody cannot run it
        pytest.skip(f"the user nobody cannot run this checkout's harnessdesk ({harnessdesk()[0]})")
    data = root_only_settings()
    settings = data / "settings.json"
    try:
        before = settings.read_bytes()
        proc = serve_as_nobody(data)
        try:
            assert proc.stdout is not None
            first = await asyncio.to_thread(proc.stdout.readline)
            match = LISTENING.match(first.strip())
            assert match, first
            async with HttpApiClient(match.group(1), match.group(3)) as client:
                shown = await describe_file(client, "settings.json")
                assert shown["problem"] == "settings.json cannot be read: permission denied."
                refused = await err(client, *_write_call("settings.json"), "settings-rejected")
                assert "permission denied" in refused.message
                await ok(client, *_write_call("credentials.json"))  # the other file is the host's own
        finally:
            proc.terminate()
            await asyncio.to_thread(proc.communicate, None, 30)
        assert proc.returncode == 0
        assert settings.read_bytes() == before and stat.S_IMODE(settings.stat().st_mode) == 0
        assert settings.stat().st_uid == 0 and leftovers(data) == []
    finally:
        shutil.rmtree(data.parent, ignore_errors=True)
