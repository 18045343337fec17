"""The API on a Unix socket, for a remote host reached through an SSH forward
(docs/threat-model.md, "Remote hosts"; docs/decisions.md, "Remote hosts").

No TCP port is opened: the socket is 0600 in a 0700 folder of the user's, so only that user
(and root) can connect, and the folder is masked in every sandbox the host starts. The fence is
the loopback one, unchanged in what it asks of a request (one loopback Host, no foreign Origin,
the per-launch token as `Authorization: Bearer`); what differs is how the peer is known. A TCP
peer is an address; here the kernel says who connected (`SO_PEERCRED`): a connection from
another user is closed before it is read, and one from a process inside one of this host's
sandboxes (a descendant in another user namespace: bubblewrap gives each sandbox its own) is
refused like a sandboxed TCP peer. Privileged methods are served to the user's own processes, unless the
request says its caller was not privileged where it came from (the relaying host's
`x-harnessdesk-unprivileged`: it can only lower a privilege, never raise one).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
import struct
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

from host.server.fence import SANDBOXED_PEER, LoopbackFence
from host.server.peers import SandboxPeers, _Tree, _user_ns
from host.server.write_batching import CoalescingH11Protocol

UNIX_PEER = "unix"
"""`scope["client"][0]` of a request that came through the Unix socket (`[1]` is the peer's pid)."""
UNPRIVILEGED = b"x-harnessdesk-unprivileged"
CREDS = struct.Struct("3i")


def private_folder(folder: Path) -> None:
    """`folder` created 0700, or checked: a real folder of ours, closed to everyone else."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True)
    st = folder.lstat()
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{folder} is not a folder")
    if st.st_uid != os.geteuid():
        raise OSError(f"{folder} belongs to another user")
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)


def bind_unix(path: Path) -> socket.socket:
    """A listening socket at `path` (0600, its folder 0700). A socket file nobody answers on is
    replaced; one a live server answers on is refused (OSError)."""
    private_folder(path.parent)
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise OSError(f"{path} exists and is not a socket")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()
        else:
            raise OSError(f"a server already answers on {path}")
        finally:
            probe.close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def peer_credentials(sock: socket.socket) -> tuple[int, int, int] | None:
    """(pid, uid, gid) of the process at the other end of a Unix socket (Linux)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        pid, uid, gid = CREDS.unpack(sock.getsockopt(socket.SOL_SOCKET, option, CREDS.size))
    except OSError:
        return None
    return pid, uid, gid


class UnixPeerProtocol(CoalescingH11Protocol):
    """uvicorn's protocol on a Unix socket, knowing who connected: another user's connection is
    closed at once; the request's `client` is `("unix", pid)`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        raw = transport.get_extra_info("socket")
        creds = peer_credentials(raw) if raw is not None else None
        super().connection_made(transport)
        if creds is None or creds[1] != os.geteuid():
            transport.close()
            return
        self.client = (UNIX_PEER, creds[0])


def inside_sandbox(pid: int, root: int) -> bool:
    """Whether `pid` is (or may be) a process inside one of `root`'s sandboxes: a descendant of
    `root` in another user namespace, or one whose namespace cannot be read. Other processes of
    the user (sshd's session carrying the forward among them) are not: they may be unreadable
    (sshd makes itself so) without being sandboxed."""
    mine = _user_ns(root)
    tree = _Tree()
    stack = tree.children(root)
    while stack:
        child = stack.pop()
        if child == pid:
            return _user_ns(child) != mine
        stack += tree.children(child)
    return False


class UnixSocketFence(LoopbackFence):
    """The loopback fence for a Unix socket: the same header and token checks; the peer known
    by its credentials instead of its address."""

    async def peer_refusal(self, scope: Scope) -> tuple[int, str] | None:
        client = scope.get("client")
        if not client or client[0] != UNIX_PEER:
            return 403, "Refused: unknown peer"
        if await asyncio.to_thread(inside_sandbox, int(client[1]), os.getpid()):
            return 403, SANDBOXED_PEER
        return None

    def privileged_allowed(self, scope: Scope, kind: str) -> bool:
        client = scope.get("client")
        from_here = bool(client) and client is not None and client[0] == UNIX_PEER
        lowered = any(key == UNPRIVILEGED for key, _ in scope.get("headers", ()))
        return kind == "loopback" and not self.trusted_hosts and from_here and not lowered


def build_unix_site(api_app: ASGIApp, *, token: str, peers: SandboxPeers) -> ASGIApp:
    """Only `/api/*`, behind the fence (no pages: the window is the relaying host's)."""
    fence = UnixSocketFence(api_app, token=token, peers=peers)

    async def site(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith("/api/"):
            body = b"not found"
            await send(
                {
                    "type": "http.response.start",
                    "status": 404,
                    "headers": [(b"content-type", b"text/plain"), (b"content-length", b"9")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await fence(scope, receive, send)

    return site
