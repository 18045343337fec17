"""One running app per data dir: a lock file plus a local activation channel.

The first launch takes an exclusive lock on `<data dir>/instance.lock` (held until the process
ends, so a crash or kill -9 frees it) and listens on an activation channel; it writes the
channel's address and a random auth key into `<data dir>/instance.json` (mode 0600). A later
launch on the same data dir fails to take the lock, reads that file, asks the first to focus its
window (and, for `harnessdesk PATH`, to open PATH there) and exits 0 without starting a host.

Channel: `multiprocessing.connection` with an HMAC auth key, so only a process able to read the
0600 file can talk to it. POSIX: a Unix socket `<data dir>/instance.sock` created 0600 (when the
path is too long for `sun_path`, an abstract socket with a random name, so nobody can take the
name first). The handshake of each connection runs on its own thread with a receive timeout, so
a client that connects and stays silent blocks nothing. Windows: a named pipe
`\\\\.\\pipe\\harnessdesk-<hash of the data dir>`, and `msvcrt.locking` instead of `flock`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener, answer_challenge, deliver_challenge
from pathlib import Path
from typing import IO

from desktop.i18n import t

LOCK_NAME = "instance.lock"
INFO_NAME = "instance.json"
SOCK_NAME = "instance.sock"
_SUN_PATH_MAX = 100
HANDSHAKE_TIMEOUT = 2.0


def _try_lock(f: IO[bytes]) -> bool:
    """Non-blocking exclusive lock on an open file; False when another process holds it."""
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _channel(data_dir: Path) -> tuple[str, str]:
    """(family, address) of the activation channel for this data dir."""
    digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
    if sys.platform == "win32":
        return "AF_PIPE", rf"\\.\pipe\harnessdesk-{digest}"
    path = str(data_dir / SOCK_NAME)
    if len(path) > _SUN_PATH_MAX and sys.platform.startswith("linux"):
        # abstract names have no permissions: a predictable one could be bound first by anyone
        return "AF_UNIX", f"\0harnessdesk-{os.getuid()}-{secrets.token_hex(16)}"
    return "AF_UNIX", path


class PrimaryInstance:
    """Holds the lock and answers activation requests by calling `on_activate`."""

    def __init__(self, data_dir: Path, lock_file: IO[bytes]) -> None:
        self.data_dir = data_dir
        self._lock_file = lock_file
        self._listener: Listener | None = None
        self._on_activate: Callable[[], None] = lambda: None
        self._on_open: Callable[[str], None] = lambda path: None
        self._on_show: Callable[[str], None] = lambda session_id: None
        self._on_api: Callable[[Connection], None] | None = None
        self._closed = False
        self._authkey = b""
        self._family = ""
        self._handshake_slots = threading.BoundedSemaphore(8)

    def listen(
        self,
        on_activate: Callable[[], None],
        on_open: Callable[[str], None] | None = None,
        *,
        on_api: Callable[[Connection], None] | None = None,
        on_show: Callable[[str], None] | None = None,
    ) -> None:
        """Open the channel, publish its address and key, and serve it in a daemon thread.

        `on_open(path)` answers a later `harnessdesk PATH` (an absolute, existing folder);
        `on_api(conn)` carries an API relay (`harnessdesk acp`) on that connection until it
        closes (desktop/instance_relay.py); `on_show(session_id)` shows a session `harnessdesk import`
        just imported through that relay."""
        self._on_activate = on_activate
        if on_open is not None:
            self._on_open = on_open
        if on_show is not None:
            self._on_show = on_show
        self._on_api = on_api
        family, address = _channel(self.data_dir)
        authkey = secrets.token_bytes(32)
        if family == "AF_UNIX" and not address.startswith("\0"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(address)  # a leftover from a crash: we hold the lock, so it is stale
        old_umask = os.umask(0o177) if sys.platform != "win32" else None
        try:
            # no authkey here: each accepted connection does the handshake on its own thread
            self._listener = Listener(address, family, authkey=None if family == "AF_UNIX" else authkey)
        finally:
            if old_umask is not None:
                os.umask(old_umask)
        self._authkey = authkey
        self._family = family
        info = {"pid": os.getpid(), "family": family, "address": address, "authkey": authkey.hex()}
        tmp = self.data_dir / (INFO_NAME + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(info, f)
        os.replace(tmp, self.data_dir / INFO_NAME)
        threading.Thread(target=self._serve, name="harnessdesk-activation", daemon=True).start()

    def _serve(self) -> None:
        listener = self._listener
        assert listener is not None
        while not self._closed:
            try:
                conn = listener.accept()
            except Exception:  # a client with a wrong key, or the listener closed
                if self._closed:
                    return
                continue
            if self._family == "AF_UNIX":  # the listener has no authkey: handshake per connection
                threading.Thread(target=self._handshake, args=(conn,), daemon=True).start()
            else:  # authenticated by the listener; a relay may hold its connection for long
                threading.Thread(target=self._answer_closing, args=(conn,), daemon=True).start()

    def _answer_closing(self, conn: Connection) -> None:
        with conn:
            self._answer(conn)

    def _handshake(self, conn: Connection) -> None:
        """Authenticate one connection under a receive timeout, then answer it."""
        with conn:
            if not self._handshake_slots.acquire(blocking=False):
                return  # too many silent clients at once: drop this one
            try:
                _set_timeout(conn, HANDSHAKE_TIMEOUT)
                deliver_challenge(conn, self._authkey)
                answer_challenge(conn, self._authkey)
            except Exception:
                return  # wrong key, silence past the timeout, or a broken connection
            finally:
                self._handshake_slots.release()
            self._answer(conn)

    def _answer(self, conn: Connection) -> None:
        try:
            request = conn.recv() if conn.poll(2) else None
            if request == {"cmd": "api"}:
                if self._on_api is None:
                    conn.send({"ok": False})
                else:
                    if self._family == "AF_UNIX":  # a relay may be silent for long: no timeout
                        _set_timeout(conn, 0)
                    self._on_api(conn)  # the relay answers, then owns the connection until it ends
                return
            path = _open_path(request)
            shown = _show_session(request)
            if request == {"cmd": "activate"} or path is not None or shown is not None:
                if path is not None:
                    self._on_open(path)
                if shown is not None:
                    self._on_show(shown)
                self._on_activate()
                conn.send({"ok": True, "pid": os.getpid()})
        except Exception:
            with contextlib.suppress(Exception):
                conn.send({"ok": False})

    def close(self) -> None:
        """Stop answering and release the lock (also happens implicitly at process exit)."""
        self._closed = True
        if self._listener is not None:
            with contextlib.suppress(Exception):
                self._listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.data_dir / INFO_NAME)
        self._lock_file.close()


def _set_timeout(conn: Connection, seconds: float) -> None:
    """A receive/send timeout on the connection's socket (the Connection itself has none)."""
    timeval = struct.pack("ll", int(seconds), int((seconds % 1) * 1_000_000))
    sock = socket.socket(fileno=os.dup(conn.fileno()))
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)
    finally:
        sock.close()


class ActivationError(Exception):
    """The running instance could not be reached."""


def acquire(data_dir: Path) -> PrimaryInstance | None:
    """The primary-instance handle, or None when another process already runs on this dir."""
    fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    lock_file = os.fdopen(fd, "r+b")
    if not _try_lock(lock_file):
        lock_file.close()
        return None
    lock_file.seek(0)
    lock_file.truncate()
    lock_file.write(f"{os.getpid()}\n".encode())
    lock_file.flush()
    return PrimaryInstance(data_dir, lock_file)


def _open_path(request: object) -> str | None:
    """The folder of an `{cmd: "open", path}` request (`harnessdesk PATH`), else None."""
    if not isinstance(request, dict) or set(request) != {"cmd", "path"} or request["cmd"] != "open":
        return None
    path = request["path"]
    return path if isinstance(path, str) else None


def _show_session(request: object) -> str | None:
    """The session of a `{cmd: "show", session}` request (after `harnessdesk import`), else None."""
    if not isinstance(request, dict) or set(request) != {"cmd", "session"} or request["cmd"] != "show":
        return None
    session = request["session"]
    return session if isinstance(session, str) and 0 < len(session) <= 200 else None


def activate_running(
    data_dir: Path, timeout: float = 10.0, open_path: str | None = None, show_session: str | None = None
) -> int:
    """Ask the running instance to focus its window (and open `open_path` there, or show
    `show_session`); returns its pid.

    Retries while the first instance is still starting (its channel not yet published).
    """
    request: dict[str, str] = {"cmd": "activate"}
    if open_path is not None:
        request = {"cmd": "open", "path": open_path}
    elif show_session is not None:
        request = {"cmd": "show", "session": show_session}
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            info = json.loads((data_dir / INFO_NAME).read_text())
            with Client(info["address"], info["family"], authkey=bytes.fromhex(info["authkey"])) as c:
                c.send(request)
                reply = c.recv() if c.poll(5) else {}
            if reply.get("ok"):
                return int(reply["pid"])
            last = ActivationError("the running instance did not confirm")
        except (OSError, ValueError, KeyError, EOFError, AuthenticationError) as exc:
            last = exc
        time.sleep(0.1)
    raise ActivationError(t("cli.otherInstanceSilent", data_dir=data_dir, reason=last))
