"""`host.listDirectory`, `host.createDirectory`, `host.pickDirectory`, `host.openPath` and the
new `host.describe` fields, over both carriers.

These hosts have no window, so they serve the `browse` capability; the `native` one (the
window's folder dialog) is driven for real in tests/desktop/test_window_folders.py.
`host.openPath` goes through the real `xdg-open`, which hands the path to the default
application that a per-test XDG configuration names: a small recorder program.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from contract.methods import (
    AGENT_PRESET_COPY,
    AGENT_PRESET_LIST,
    AGENT_PRESET_OPEN_DOCUMENT,
    HOST_CREATE_DIRECTORY,
    HOST_DESCRIBE,
    HOST_LIST_DIRECTORY,
    HOST_OPEN_PATH,
    HOST_PICK_DIRECTORY,
    SETTINGS_DESCRIBE,
    SETTINGS_OPEN_DOCUMENT,
    SETTINGS_UPDATE,
)
from tests.api.conftest import Host
from tests.api.support import err, ok


def real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def make_tree(root: Path) -> None:
    for name in ("beta", "Alpha", ".hidden", "gamma"):
        (root / name).mkdir()
    (root / "file.txt").write_text("not a folder")
    (root / "to-gamma").symlink_to(root / "gamma")
    (root / "broken").symlink_to(root / "nowhere")
    (root / "loop").symlink_to(root / "loop")
    (root / "up").symlink_to(root)  # leads back to the listed folder: cyclic


async def test_list_directory_shows_child_folders(host: Host) -> None:
    client = host.client()
    root = real(host.workdir)
    make_tree(root)
    listing = await ok(client, HOST_LIST_DIRECTORY, {"path": str(root)})
    assert listing.path == str(root) and listing.home == str(real(Path.home()))
    assert [e.name for e in listing.entries] == [".hidden", "Alpha", "beta", "gamma", "to-gamma"]
    by_name = {e.name: e for e in listing.entries}
    assert by_name[".hidden"].hidden is True and by_name["Alpha"].hidden is False
    assert by_name["to-gamma"].path == str(root / "to-gamma")
    assert listing.truncated is False
    crumbs = listing.crumbs
    assert crumbs[0].name == "/" and crumbs[0].path == "/"
    assert crumbs[-1].path == str(root) and crumbs[-1].name == root.name
    assert [c.path for c in crumbs] == ["/", *[str(p) for p in reversed(root.parents[:-1])], str(root)]
    assert all(c.hidden is False for c in crumbs)
    home = await ok(client, HOST_LIST_DIRECTORY, {})
    assert home.path == str(real(Path.home()))


async def test_list_directory_offers_model_files_when_asked(host: Host) -> None:
    """A GGUF file picked from disk in a browser tab (Settings → Add a GGUF file): the listing
    names the folder's `.gguf` files, links to one too, only when asked."""
    client = host.client()
    root = real(host.workdir) / "models"
    (root / "sub").mkdir(parents=True)
    (root / "b.GGUF").write_bytes(b"GGUF")
    (root / "a.gguf").write_bytes(b"GGUF")
    (root / "notes.txt").write_text("no")
    (root / "folder.gguf").mkdir()  # a folder named like one is a folder
    (root / "link.gguf").symlink_to(root / "a.gguf")
    (root / "dangling.gguf").symlink_to(root / "gone.gguf")
    plain = await ok(client, HOST_LIST_DIRECTORY, {"path": str(root)})
    assert plain.files == [] and [e.name for e in plain.entries] == ["folder.gguf", "sub"]
    listing = await ok(client, HOST_LIST_DIRECTORY, {"path": str(root), "files": "gguf"})
    assert [e.name for e in listing.files] == ["a.gguf", "b.GGUF", "link.gguf"]
    assert listing.files[0].path == str(root / "a.gguf")
    assert [e.name for e in listing.entries] == ["folder.gguf", "sub"]
    await err(client, HOST_LIST_DIRECTORY, {"path": str(root), "files": "exe"}, "bad-request")
    await err(client, HOST_PICK_DIRECTORY, {"file": "gguf"}, "directory-picker-unavailable")
    await err(client, HOST_PICK_DIRECTORY, {"file": "zip"}, "bad-request")


async def test_list_directory_is_bounded(host: Host) -> None:
    root = host.workdir / "many"
    root.mkdir()
    for i in range(1005):
        (root / f"d{i:04d}").mkdir()
    listing = await ok(host.client(), HOST_LIST_DIRECTORY, {"path": str(root)})
    assert listing.truncated is True and len(listing.entries) == 1000
    assert listing.entries[-1].name == "d0999"  # the tail of the name order is what is cut


async def test_list_directory_errors(host: Host) -> None:
    client = host.client()
    for path in ("relative/dir", "", "~"):
        error = await err(client, HOST_LIST_DIRECTORY, {"path": path}, "directory-unreadable")
        assert error.details == {"path": path}
    missing = host.workdir / "missing"
    error = await err(client, HOST_LIST_DIRECTORY, {"path": str(missing)}, "directory-unreadable")
    assert error.details == {"path": str(missing)}
    a_file = host.workdir / "plain.txt"
    a_file.write_text("x")
    await err(client, HOST_LIST_DIRECTORY, {"path": str(a_file)}, "directory-unreadable")
    if os.geteuid() != 0:  # root reads anything: the permission case only means something for users
        locked = host.workdir / "locked"
        locked.mkdir()
        locked.chmod(0)
        await err(client, HOST_LIST_DIRECTORY, {"path": str(locked)}, "directory-unreadable")
        locked.chmod(stat.S_IRWXU)


async def test_create_directory(host: Host) -> None:
    client = host.client()
    parent = real(host.workdir)
    made = await ok(client, HOST_CREATE_DIRECTORY, {"path": str(parent), "name": " New project "})
    assert made.path == str(parent / "New project") and (parent / "New project").is_dir()
    error = await err(
        client, HOST_CREATE_DIRECTORY, {"path": str(parent), "name": "New project"}, "directory-exists"
    )
    assert error.details == {"path": str(parent / "New project")}
    missing = parent / "no" / "such"
    error = await err(
        client, HOST_CREATE_DIRECTORY, {"path": str(missing), "name": "x"}, "directory-create-failed"
    )
    assert error.details == {"path": str(missing / "x")}
    error = await err(client, HOST_CREATE_DIRECTORY, {"path": "rel", "name": "x"}, "directory-create-failed")
    assert error.details == {"path": "rel"}
    for name in ("", "   ", ".", "..", "a/b", "a\\b"):
        await err(client, HOST_CREATE_DIRECTORY, {"path": str(parent), "name": name}, "bad-request")
    assert names(parent) == ["New project"]  # nothing else was made


async def test_a_browse_host_has_no_native_picker(host: Host) -> None:
    error = await err(host.client(), HOST_PICK_DIRECTORY, {}, "directory-picker-unavailable")
    assert error.details == {"capability": "browse"}
    await err(host.client(), HOST_PICK_DIRECTORY, {"extra": 1}, "bad-request")


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A desktop session whose default application for folders and text files is a recorder:
    it appends each argument it is started with to `opened.txt`."""
    root = tmp_path / "xdg"
    (root / "data" / "applications").mkdir(parents=True)
    (root / "config").mkdir()
    recorder = root / "recorder.sh"
    recorder.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" >> {root / 'opened.txt'}\n")
    recorder.chmod(0o755)
    (root / "data" / "applications" / "recorder.desktop").write_text(
        f"[Desktop Entry]\nType=Application\nName=Recorder\nExec={recorder} %f\n"
        "MimeType=inode/directory;text/plain;application/json;\n"
    )
    (root / "config" / "mimeapps.list").write_text(
        "[Default Applications]\ninode/directory=recorder.desktop\ntext/plain=recorder.desktop\n"
        "application/json=recorder.desktop\n"
    )
    for key in ("XDG_CURRENT_DESKTOP", "DESKTOP_SESSION", "KDE_FULL_SESSION", "GNOME_DESKTOP_SESSION_ID"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
    monkeypatch.setenv("XDG_DATA_DIRS", str(root / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    return root


async def opened(desktop: Path, count: int) -> list[str]:
    log = desktop / "opened.txt"
    for _ in range(200):
        if log.exists() and len(lines := log.read_text().splitlines()) >= count:
            return lines
        await asyncio.sleep(0.05)
    raise AssertionError(f"the default application was not started: {log.exists() and log.read_text()!r}")


async def test_open_path_hands_the_path_to_the_default_application(host: Host, desktop: Path) -> None:
    client = host.client()
    assert (await ok(client, HOST_DESCRIBE)).can_open_path is True
    folder = host.workdir / "a folder; with $(odd) 'chars'"
    folder.mkdir()
    notes = folder / "notes.txt"
    notes.write_text("hello")
    assert (await ok(client, HOST_OPEN_PATH, {"path": str(folder)})).opened is True
    assert (await ok(client, HOST_OPEN_PATH, {"path": str(notes)})).opened is True
    assert await opened(desktop, 2) == [str(folder), str(notes)]  # verbatim: no shell in between
    for path in (str(host.workdir / "missing.txt"), "relative.txt"):
        error = await err(client, HOST_OPEN_PATH, {"path": path}, "internal")
        assert path in error.message and error.details == {}
    await err(client, HOST_OPEN_PATH, {"path": ""}, "bad-request")


async def test_without_a_display_nothing_can_be_opened(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert (await ok(host.client(), HOST_DESCRIBE)).can_open_path is False


async def test_settings_json_and_a_preset_folder_open_like_any_path(host: Host, desktop: Path) -> None:
    """settings.openDocument and agentPreset.openDocument use the same opener as host.openPath:
    offered (hasDocument) only while a desktop is reachable, refused with one message otherwise."""
    client = host.client()
    assert (await ok(client, SETTINGS_DESCRIBE)).has_document is True
    assert (await ok(client, AGENT_PRESET_LIST)).has_document is True
    await ok(client, SETTINGS_OPEN_DOCUMENT)
    settings_json = host.data_dir / "settings.json"
    assert settings_json.exists()  # written first, so the editor has something to open
    await ok(client, AGENT_PRESET_COPY, {"from": "read-only", "agentPreset": "mine"})
    answer = await ok(client, AGENT_PRESET_OPEN_DOCUMENT, {"agentPreset": "mine"})
    assert answer.opened is True and answer.path is None
    folder = host.data_dir / "agent-presets" / "mine"
    assert await opened(desktop, 2) == [str(settings_json), str(folder)]
    os.environ.pop("DISPLAY")  # the display goes away (monkeypatch restores it)
    assert (await ok(client, SETTINGS_DESCRIBE)).has_document is False
    error = await err(client, SETTINGS_OPEN_DOCUMENT, {}, "internal")
    assert "settings.json" in error.message
    by_hand = await ok(client, AGENT_PRESET_OPEN_DOCUMENT, {"agentPreset": "mine"})
    assert by_hand.opened is False and by_hand.path == str(folder)
    assert len((desktop / "opened.txt").read_text().splitlines()) == 2  # nothing else was started


async def test_open_in_editor_runs_the_editor_setting_else_the_default(host: Host, desktop: Path) -> None:
    """The Files pane's Open in editor (`editor: true`): the command `ui-appearance.editor` names,
    split as a shell splits it and run without one, the path added last; with no editor set, the
    default application as before; a setting that cannot be split is said, nothing runs."""
    client = host.client()
    notes = host.workdir / "it's $(notes).txt"
    notes.write_text("hello")
    await ok(client, HOST_OPEN_PATH, {"path": str(notes), "editor": True})  # nothing set: default
    assert await opened(desktop, 1) == [str(notes)]
    editor = desktop / "editor.sh"
    editor.write_text(f"#!/bin/sh\nprintf 'editor:%s\\n' \"$@\" >> {desktop / 'opened.txt'}\n")
    editor.chmod(0o755)
    await ok(
        client, SETTINGS_UPDATE, {"ns": "ui-appearance", "patch": {"editor": f"'{editor}' --line 'a b'"}}
    )
    await ok(client, HOST_OPEN_PATH, {"path": str(notes), "editor": True})
    assert (await opened(desktop, 4))[1:] == ["editor:--line", "editor:a b", f"editor:{notes}"]
    await ok(client, HOST_OPEN_PATH, {"path": str(notes)})  # not the editor: the default program
    assert (await opened(desktop, 5))[4] == str(notes)
    await ok(client, SETTINGS_UPDATE, {"ns": "ui-appearance", "patch": {"editor": "'unclosed"}})
    error = await err(client, HOST_OPEN_PATH, {"path": str(notes), "editor": True}, "internal")
    assert "editor setting" in error.message
