"""Item 8: the single-instance activation channel had no handshake timeout (one silent client
blocked every later activation) and, for long data-dir paths, a predictable abstract socket name
that another local user could bind first."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from desktop.instance import INFO_NAME, acquire, activate_running

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")


def _connect(info: dict[str, str]) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(info["address"])
    return sock


def test_a_silent_client_does_not_block_activation(tmp_path: Path) -> None:
    instance = acquire(tmp_path)
    assert instance is not None
    activated: list[bool] = []
    try:
        instance.listen(lambda: activated.append(True))
        info = json.loads((tmp_path / INFO_NAME).read_text())
        silent = [_connect(info) for _ in range(3)]  # connect and never say a word
        try:
            assert activate_running(tmp_path, timeout=8) > 0
            assert activated == [True]
        finally:
            for s in silent:
                s.close()
    finally:
        instance.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="abstract sockets are Linux-only")
def test_a_long_data_dir_gets_an_unpredictable_name_that_cannot_be_taken_first(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    addresses = []
    for _ in range(2):
        instance = acquire(deep)
        assert instance is not None
        try:
            instance.listen(lambda: None)
            info = json.loads((deep / INFO_NAME).read_text())
            assert info["address"].startswith("\0")
            addresses.append(info["address"])
            assert activate_running(deep, timeout=8) > 0
        finally:
            instance.close()
    assert addresses[0] != addresses[1]
    # squatting the old, predictable name no longer stops a start
    import hashlib
    import os

    digest = hashlib.sha256(str(deep).encode()).hexdigest()[:16]
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    squatter.bind(f"\0harnessdesk-{os.getuid()}-{digest}")
    squatter.listen(1)
    try:
        instance = acquire(deep)
        assert instance is not None
        try:
            instance.listen(lambda: None)
            assert activate_running(deep, timeout=8) > 0
        finally:
            instance.close()
    finally:
        squatter.close()


def test_an_api_relay_may_stay_silent_longer_than_the_handshake_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The handshake's receive bound is for the handshake: a relay (`harnessdesk acp` waiting for
    the editor's next request) that says nothing for longer still has its connection."""
    import threading
    import time
    from multiprocessing.connection import Client, Connection

    import desktop.instance

    monkeypatch.setattr(desktop.instance, "HANDSHAKE_TIMEOUT", 0.2)
    instance = acquire(tmp_path)
    assert instance is not None
    heard: list[object] = []
    done = threading.Event()

    def relay(conn: Connection) -> None:
        conn.send({"ok": True})
        try:
            heard.append(conn.recv_bytes())
        except Exception as exc:
            heard.append(exc)
        done.set()

    try:
        instance.listen(lambda: None, on_api=relay)
        info = json.loads((tmp_path / INFO_NAME).read_text())
        with Client(info["address"], info["family"], authkey=bytes.fromhex(info["authkey"])) as client:
            client.send({"cmd": "api"})
            assert client.poll(5) and client.recv() == {"ok": True}
            time.sleep(0.6)  # silent for three times the handshake's bound
            client.send_bytes(b"later")
            assert done.wait(5)
        assert heard == [b"later"]
    finally:
        instance.close()
