"""Which clients of the loopback server are processes inside this host's own sandboxes
(docs/threat-model.md, "The sandbox and the loopback server").

A sandbox with network shares the host's network namespace, loopback included: a command in it
can connect to the server's port. The token is masked inside, but should it leak, the fence
still refuses a request whose TCP peer is a process inside one of the sandboxes this host
started. How a peer is recognised, Linux only:

1. The client's socket, by its exact address pair, through the kernel's socket diagnostics
   (`NETLINK_SOCK_DIAG`, one message; `/proc/net/tcp{,6}` when that is unavailable): its inode,
   and its cookie — a number the kernel never gives another socket, the connection's identity.
2. Who holds that inode: the host's descendants are walked (`/proc/PID/task/TID/children`); those
   in another user namespace than the host's are inside a bubblewrap sandbox (every sandbox has
   its own, and cannot leave it); their descriptors (`/proc/PID/task/TID/fd`) are read, each
   process's before its children, so a descriptor handed down by `fork` then closed is still
   seen.

It costs nothing until a sandbox with network was prepared (`expect`): then one netlink query
per request, and a walk per new connection (the verdict is kept per socket cookie). A local
peer whose socket is gone or has no inode any more (closed right after sending) is refused, and
so is one a sandboxed process's descriptors could not be read for. Limits (a process that hides
its descriptor — passed over a Unix socket and left in flight, or handed to a process outside —
is not recognised) are written down in docs/threat-model.md.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import struct
import threading
from collections import OrderedDict
from dataclasses import dataclass

Address = tuple[str, int]

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
ALL_STATES = 0xFFFFFFFF
NO_COOKIE = 0xFFFFFFFF
DIAG_BOUND = 1.0
"""Seconds a netlink answer may take (the kernel answers at once)."""
REMEMBER = 512
"""Connections whose verdict is kept (the newest)."""


@dataclass(frozen=True)
class ClientSocket:
    inode: int
    """0: no process holds the socket any more (closed by its side)."""
    cookie: bytes
    """The kernel's identity of the socket; empty when read from /proc/net/tcp (inode instead)."""


def _diag_addresses(client: str, server: str) -> tuple[int, bytes, bytes]:
    """(family, client, server) as sock_diag wants them: IPv4 both, else IPv6 both (an IPv4 end
    as IPv4-mapped; the kernel then finds the IPv4 socket too)."""
    ips = [ipaddress.ip_address(a.split("%", 1)[0]) for a in (client, server)]
    if all(ip.version == 4 for ip in ips):
        return socket.AF_INET, ips[0].packed.ljust(16, b"\0"), ips[1].packed.ljust(16, b"\0")
    v6 = [ipaddress.IPv6Address(f"::ffff:{ip}") if ip.version == 4 else ip for ip in ips]
    return socket.AF_INET6, v6[0].packed, v6[1].packed


def diag_lookup(client: Address, server: Address) -> ClientSocket | None:
    """The client's own socket (local end `client`, remote end `server`) through sock_diag;
    None when no such socket exists on this machine. Raises OSError when the kernel offers no
    socket diagnostics."""
    family, src, dst = _diag_addresses(client[0], server[0])
    sockid = struct.pack("!HH16s16s", client[1], server[1], src, dst) + struct.pack(
        "=III", 0, NO_COOKIE, NO_COOKIE
    )
    request = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, ALL_STATES) + sockid
    header = struct.pack("=IHHII", 16 + len(request), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, 1, 0)
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as nl:
        nl.settimeout(DIAG_BOUND)
        nl.sendto(header + request, (0, 0))
        answer = nl.recv(65536)
    length, kind = struct.unpack_from("=IH", answer)
    if kind == NLMSG_ERROR:
        (error,) = struct.unpack_from("=i", answer, 16)
        if -error == 2:  # ENOENT: no such socket here
            return None
        raise OSError(-error, os.strerror(-error))
    if kind != SOCK_DIAG_BY_FAMILY or length < 16 + 72:
        raise OSError("unexpected socket diagnostics answer")
    body = answer[16:length]
    sport, dport = struct.unpack_from("!HH", body, 4)
    if (sport, dport) != (client[1], server[1]):
        raise OSError("socket diagnostics answered for another socket")
    cookie = body[4 + 40 : 4 + 48]
    (inode,) = struct.unpack_from("=I", body, 4 + 48 + 16)
    return ClientSocket(inode, cookie)


def _hex_endpoint(address: str, port: int) -> set[str]:
    """How /proc/net/tcp{,6} writes `address:port` (each 32-bit word in host byte order)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    forms = [ip.packed]
    if ip.version == 4:
        forms.append(ipaddress.IPv6Address(f"::ffff:{ip}").packed)
    elif ip.ipv4_mapped is not None:
        forms.append(ip.ipv4_mapped.packed)
    out = set()
    for raw in forms:
        words = [raw[i : i + 4] for i in range(0, len(raw), 4)]
        text = "".join(struct.pack("=I", struct.unpack("!I", w)[0]).hex().upper() for w in words)
        out.add(f"{text}:{port:04X}")
    return out


def table_lookup(client: Address, server: Address) -> ClientSocket | None:
    """The same as `diag_lookup`, from /proc/net/tcp{,6} (slower: the whole table is read)."""
    local, remote = _hex_endpoint(*client), _hex_endpoint(*server)
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[1] in local and fields[2] in remote:
                return ClientSocket(int(fields[9]), b"")
    return None


def client_socket(client: Address, server: Address) -> ClientSocket | None:
    try:
        return diag_lookup(client, server)
    except OSError:
        return table_lookup(client, server)


def is_local_address(address: str) -> bool:
    """Whether `address` is this machine's: loopback, or one a socket here can bind."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return True  # not an address at all: treat as ours, so the caller refuses
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    if ip.is_loopback or (mapped is not None and mapped.is_loopback):
        return True
    family = socket.AF_INET if ip.version == 4 else socket.AF_INET6
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((str(ip), 0))
        except OSError:
            return False
    return True


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except OSError:
        return None


def _tasks(pid: int) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


class _Tree:
    """The children of a process: from `/proc/PID/task/TID/children`, or, on a kernel without
    that file, from every process's parent in `/proc/*/stat` (read once per walk)."""

    def __init__(self) -> None:
        self.direct = os.path.exists(f"/proc/self/task/{os.getpid()}/children")
        self._parents: dict[int, list[int]] | None = None

    def children(self, pid: int) -> list[int]:
        if self.direct:
            out: list[int] = []
            for tid in _tasks(pid):
                text = _read(f"/proc/{pid}/task/{tid}/children")
                out += [int(c) for c in (text or "").split()]
            return out
        if self._parents is None:
            self._parents = {}
            for entry in os.listdir("/proc"):
                stat = _read(f"/proc/{entry}/stat") if entry.isdigit() else None
                if stat:
                    ppid = int(stat.rsplit(")", 1)[1].split()[1])
                    self._parents.setdefault(ppid, []).append(int(entry))
        return self._parents.get(pid, [])


def _user_ns(pid: int | str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/user")
    except OSError:
        return None


def _holds(pid: int, target: str) -> bool | None:
    """Whether `pid` has a descriptor on `target` (`socket:[inode]`); None when its descriptors
    exist but cannot be read."""
    unreadable = False
    for tid in _tasks(pid):
        try:
            fds = os.listdir(f"/proc/{pid}/task/{tid}/fd")
        except FileNotFoundError:
            continue  # the thread or process ended
        except OSError:
            unreadable = True
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/task/{tid}/fd/{fd}") == target:
                    return True
    return None if unreadable else False


def held_inside(root: int, inode: int) -> bool:
    """Whether a process inside one of `root`'s sandboxes holds socket `inode` — or might: a
    sandboxed process whose descriptors cannot be read counts as holding it."""
    target = f"socket:[{inode}]"
    mine = _user_ns(root)
    tree = _Tree()
    stack = [root]
    while stack:
        pid = stack.pop()
        if pid != root and _user_ns(pid) not in (mine, None):
            if _holds(pid, target) is not False:  # its descriptors first, then its children
                return True
        stack += tree.children(pid)
    return False


class SandboxPeers:
    """Asked by the fence for every API request; told by the engine before a sandbox with
    network starts (`expect`, the `on_network` of its `Confinement`)."""

    def __init__(self, root: int | None = None) -> None:
        self.root = root if root is not None else os.getpid()
        """The host's process: every sandbox it starts is below it."""
        self.expecting = False
        self._verdicts: OrderedDict[bytes, bool] = OrderedDict()
        self._lock = threading.Lock()

    def expect(self) -> None:
        """A sandbox with network is about to start: from now on every peer is looked up."""
        self.expecting = True

    def refuses(self, client: Address | None, server: Address | None) -> bool:
        """Whether the TCP peer `client` of our `server` end is (or may be) inside a sandbox.
        Blocking (/proc, netlink): the fence runs it on a worker thread."""
        if not self.expecting or not client or not server:
            return False
        found = client_socket(client, server)
        if found is None:  # not on this machine, or already gone from it
            return is_local_address(client[0])
        if found.inode == 0:  # its process closed it: whoever sent this request is gone
            return True
        key = found.cookie or found.inode.to_bytes(8, "little")
        with self._lock:
            cached = self._verdicts.get(key)
        if cached is not None:
            return cached
        verdict = held_inside(self.root, found.inode)
        with self._lock:
            self._verdicts[key] = verdict
            if len(self._verdicts) > REMEMBER:
                self._verdicts.popitem(last=False)
        return verdict
