"""Host keys: what ssh refused, the fingerprint to show, and the known_hosts line the person
accepts (docs/decisions.md, "Remote hosts"; docs/threat-model.md, "Remote hosts").

The app never accepts a key on its own: ssh runs with `StrictHostKeyChecking=yes`, so an unknown
key fails the connection, and the person is shown the key's fingerprint (`ssh-keyscan` and
`ssh-keygen -lf -`, as they would check it by hand) before `remote.trustHostKey` writes it to
their known_hosts, the way ssh itself would (the host as `[host]:port` or its HostKeyAlias,
hashed when `HashKnownHosts` says so). A key that differs from the one known_hosts holds is
refused, always: the person settles that with their administrator and `ssh-keygen -R`.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from host.engine.workspaces.remotes.ssh import run

UNKNOWN = re.compile(r"No (?P<type>[A-Z0-9-]+) host key is known for")
CHANGED = re.compile(r"REMOTE HOST IDENTIFICATION HAS CHANGED")
CHANGED_KEY = re.compile(
    r"The fingerprint for the (?P<type>[A-Z0-9-]+) key sent by the remote host is"
    r"\s+(?P<fp>SHA256:[A-Za-z0-9+/=]+)"
)
KEYGEN_LINE = re.compile(r"^\d+ (?P<fp>SHA256:[A-Za-z0-9+/=]+) .* \((?P<type>[A-Z0-9-]+)\)$")
SCAN_TIMEOUT = 20.0


def refusal(stderr: str) -> tuple[str, str | None, str | None] | None:
    """("unknown" | "changed", key type, fingerprint) when ssh refused the host's key, else None."""
    if CHANGED.search(stderr):
        found = CHANGED_KEY.search(stderr)
        return ("changed", found.group("type") if found else None, found.group("fp") if found else None)
    found_unknown = UNKNOWN.search(stderr)
    if found_unknown:
        return ("unknown", found_unknown.group("type"), None)
    if "Host key verification failed" in stderr:
        return ("unknown", None, None)
    return None


@dataclass(frozen=True)
class Endpoint:
    """Where the key comes from and how ssh names the host in known_hosts (from `ssh -G`)."""

    host_name: str
    port: int
    known_as: str
    """`host` on port 22, `[host]:port` otherwise, or the HostKeyAlias."""
    known_hosts: Path
    hashed: bool

    @classmethod
    def from_options(cls, options: Mapping[str, list[str]], fallback_known_hosts: Path) -> Endpoint:
        host = (options.get("hostname") or [""])[0]
        port = int((options.get("port") or ["22"])[0])
        alias = (options.get("hostkeyalias") or ["none"])[0]
        if alias.lower() != "none":
            known_as = alias
        else:
            known_as = host if port == 22 else f"[{host}]:{port}"
        files = (options.get("userknownhostsfile") or [""])[0].split()
        known = Path(os.path.expanduser(files[0])) if files else fallback_known_hosts
        hashed = (options.get("hashknownhosts") or ["no"])[0].lower() == "yes"
        return cls(host, port, known_as, known, hashed)


@dataclass(frozen=True)
class ScannedKey:
    key_type: str
    """As ssh names it in messages (`ED25519`, `ECDSA`, `RSA`)."""
    fingerprint: str
    algorithm: str
    """As known_hosts writes it (`ssh-ed25519`, …)."""
    blob: str


SCAN_TYPES = {"ED25519": "ed25519", "ECDSA": "ecdsa", "RSA": "rsa", "DSA": "dsa"}


async def scan(endpoint: Endpoint, env: Mapping[str, str], key_type: str | None = None) -> list[ScannedKey]:
    """The host's keys as `ssh-keyscan` reads them (of `key_type` when given), fingerprinted."""
    argv = ["ssh-keyscan", "-T", "10", "-p", str(endpoint.port)]
    if key_type and key_type in SCAN_TYPES:
        argv += ["-t", SCAN_TYPES[key_type]]
    done = await run([*argv, endpoint.host_name], env, bound=SCAN_TIMEOUT)
    keys: list[ScannedKey] = []
    for line in done.out.decode("utf-8", "replace").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) < 3:
            continue
        printed = await run(["ssh-keygen", "-lf", "-"], env, stdin=(line + "\n").encode(), bound=SCAN_TIMEOUT)
        found = KEYGEN_LINE.match(printed.out.decode("utf-8", "replace").strip())
        if found:
            keys.append(ScannedKey(found.group("type"), found.group("fp"), fields[1], fields[2]))
    return keys


def hashed_name(name: str) -> str:
    """known_hosts' hashed form of a host name (`|1|salt|HMAC-SHA1(salt, name)`), as ssh writes it."""
    salt = secrets.token_bytes(20)
    digest = hmac.new(salt, name.encode(), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


def matches(entry_host: str, name: str) -> bool:
    """Whether a known_hosts line's host field names `name` (plain list or hashed)."""
    for part in entry_host.split(","):
        if part.startswith("|1|"):
            try:
                _, _, salt, digest = part.split("|", 3)
                mine = hmac.new(base64.b64decode(salt), name.encode(), hashlib.sha1).digest()
            except ValueError:
                continue
            if hmac.compare_digest(mine, base64.b64decode(digest)):
                return True
        elif part == name:
            return True
    return False


def known_keys(path: Path, name: str) -> list[tuple[str, str]]:
    """(algorithm, blob) of every key `path` records for `name` (markers such as @revoked skipped)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    out = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[0].startswith(("#", "@")):
            continue
        if matches(fields[0], name):
            out.append((fields[1], fields[2]))
    return out


class KnownHostsUnwritable(Exception):
    """known_hosts exists but cannot be read, or cannot be written (one sentence)."""


def record(endpoint: Endpoint, key: ScannedKey) -> None:
    """Append the key's line to the person's known_hosts: atomically (a temp file beside it, then a
    rename), keeping the file's mode, and never over a file that could not be read."""
    path = endpoint.known_hosts
    folder = path.parent
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True)
    try:
        before = path.read_bytes()
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        before, mode = b"", 0o600
    except OSError as exc:
        raise KnownHostsUnwritable(
            f"{path} cannot be read ({exc.strerror or exc}); nothing was recorded"
        ) from exc
    name = hashed_name(endpoint.known_as) if endpoint.hashed else endpoint.known_as
    line = f"{name} {key.algorithm} {key.blob}\n".encode()
    if before and not before.endswith(b"\n"):
        before += b"\n"
    fd, tmp = tempfile.mkstemp(prefix=".known_hosts.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(before + line)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise KnownHostsUnwritable(
            f"{path} cannot be written ({exc.strerror or exc}); nothing was recorded"
        ) from exc
