"""Bringing the server to a remote without the internet (docs/decisions.md, "Remote hosts").

The remote needs sshd, a POSIX shell and a Python of the version this host runs (the server's
compiled parts are this host's wheels); bubblewrap for the sandbox. This host packs its own
wheels (wheels.py) into a bundle whose key is its version and a digest of its content, carries
it over the SSH connection into `~/.harnessdesk-server/<key>/` there, checks every file against
its SHA-256, installs it into a venv with `pip --no-index` (pip from its own wheel), and marks the
folder ready: the next connection with the same key reuses it, a new key installs beside it and
the old folders go once the new one is ready. A remote that cannot run it gets one sentence
saying why. A packaged build (`sys.frozen`) carries its own folder instead, to a remote of the
same system and architecture.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
import re
import shlex
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract import __version__
from host.engine.workspaces.remotes.wheels import Wheel, server_wheels

BASE = ".harnessdesk-server"
"""The server's folder in the remote user's home: one folder per bundle key, and `run/`."""
RUN = "run"
SOCKET = "serve.sock"
TOKEN = "token"
INFO = "serve.json"
MANIFEST = "manifest.json"
MANYLINUX = re.compile(r"manylinux_(\d+)_(\d+)_(\w+)|manylinux(2014|2010|1)_(\w+)")
LEGACY_GLIBC = {"2014": (2, 17), "2010": (2, 12), "1": (2, 5)}


class RemoteUnsuitable(Exception):
    """The remote cannot run the server this host brings (one sentence for the person)."""


@dataclass(frozen=True)
class Bundle:
    key: str
    """`<version>-<12 hex of the content's digest>`: the remote folder's name."""
    tar: bytes
    sha256: str
    kind: str
    """`wheels` (pip installs them in a venv there) or `app` (a packaged build's own folder)."""
    python: tuple[int, int] | None
    """The Python version the compiled wheels need (None: any 3.11+)."""
    glibc: tuple[int, int] | None
    arch: str
    system: str
    pip_wheel: str = ""


def _tar(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name, data in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _needs(wheels: list[Wheel]) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """The Python version and the glibc the compiled wheels need."""
    python: tuple[int, int] | None = None
    glibc: tuple[int, int] | None = None
    for wheel in wheels:
        for tag in wheel.tags:
            interpreter, abi, plat = tag.split("-")
            if plat == "any":
                continue
            found = re.fullmatch(r"cp(\d)(\d+)", interpreter)
            if found and abi != "abi3":
                python = (int(found.group(1)), int(found.group(2)))
            for m in MANYLINUX.finditer(plat):
                need = (int(m.group(1)), int(m.group(2))) if m.group(1) else LEGACY_GLIBC[m.group(4)]
                glibc = need if glibc is None or need < glibc else glibc  # any one tag will do
    return python, glibc


def build_wheels_bundle(source: Path, cache: dict[tuple[str, str], Wheel]) -> Bundle:
    """This host's server as a bundle of wheels (blocking: run it on a worker thread)."""
    wheels = server_wheels(source, cache)
    manifest = {"wheels": [{"name": w.name, "sha256": w.sha256} for w in wheels], "pip": wheels[0].name}
    digest = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:12]
    key = f"{__version__}-{digest}"
    manifest["key"] = key
    members = [(f"wheels/{w.name}", w.data) for w in wheels]
    members.append((MANIFEST, json.dumps(manifest, indent=1, sort_keys=True).encode()))
    tar = _tar(members)
    python, glibc = _needs(wheels)
    return Bundle(
        key,
        tar,
        hashlib.sha256(tar).hexdigest(),
        "wheels",
        python,
        glibc,
        platform.machine(),
        platform.system(),
        wheels[0].name,
    )


def build_app_bundle() -> Bundle:
    """A packaged build's own folder (blocking), for a remote of this system and architecture."""
    folder = Path(sys.executable).resolve().parent
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    digest = hashlib.sha256()
    members = []
    for path in files:
        rel = f"app/{path.relative_to(folder).as_posix()}"
        data = path.read_bytes()
        digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
        members.append((rel, data))
    manifest = {"files": [{"name": n, "sha256": hashlib.sha256(d).hexdigest()} for n, d in members]}
    key = f"{__version__}-{digest.hexdigest()[:12]}"
    manifest["key"] = key  # type: ignore[assignment]
    members.append((MANIFEST, json.dumps(manifest, sort_keys=True).encode()))
    tar = _tar(members)
    return Bundle(
        key, tar, hashlib.sha256(tar).hexdigest(), "app", None, None, platform.machine(), platform.system()
    )


def build_bundle(source: Path, cache: dict[tuple[str, str], Wheel]) -> Bundle:
    return build_app_bundle() if getattr(sys, "frozen", False) else build_wheels_bundle(source, cache)


# ---- what the remote is -----------------------------------------------------------------------


@dataclass(frozen=True)
class RemotePython:
    path: str
    version: tuple[int, int]
    platform: str
    glibc: tuple[int, int] | None


@dataclass
class RemoteFacts:
    home: str = ""
    system: str = ""
    arch: str = ""
    pythons: list[RemotePython] = field(default_factory=list)
    ready: bool = False
    server: dict[str, Any] | None = None
    """What `run/serve.json` says of a running server (pid alive), else None."""
    bwrap: bool = False

    @property
    def base(self) -> str:
        return f"{self.home}/{BASE}"

    @property
    def run_dir(self) -> str:
        return f"{self.base}/{RUN}"

    @property
    def socket(self) -> str:
        return f"{self.run_dir}/{SOCKET}"


PROBE = r"""
base="$HOME/$1"
echo "home=$HOME"
echo "system=$(uname -s)"
echo "arch=$(uname -m)"
for p in python3.14 python3.13 python3.12 python3.11 python3; do
  path=$(command -v "$p" 2>/dev/null) || continue
  info=$("$path" -c "$3" 2>/dev/null) || continue
  echo "python=$path|$info"
done
[ -f "$base/$2/ready" ] && echo "ready=yes"
if [ -f "$base/run/serve.json" ]; then
  pid=$(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' "$base/run/serve.json")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "server=$(cat "$base/run/serve.json")"; fi
fi
command -v bwrap >/dev/null 2>&1 && echo "bwrap=yes"
exit 0
"""
PYTHON_FACTS = (
    "import sys, sysconfig, platform; "
    "print('%d.%d|%s|%s' % (sys.version_info[0], sys.version_info[1], sysconfig.get_platform(), "
    "'-'.join(platform.libc_ver())))"
)


def shell(script: str, *args: str) -> str:
    """A remote command line running `script` with `/bin/sh` (whatever the login shell is)."""
    return " ".join(["exec", "/bin/sh", "-c", shlex.quote(script), "sh", *(shlex.quote(a) for a in args)])


def probe_command(key: str) -> str:
    return shell(PROBE, BASE, key, PYTHON_FACTS)


def parse_probe(text: str) -> RemoteFacts:
    facts = RemoteFacts()
    for line in text.splitlines():
        name, _, value = line.partition("=")
        if name == "home":
            facts.home = value
        elif name == "system":
            facts.system = value
        elif name == "arch":
            facts.arch = value
        elif name == "ready":
            facts.ready = value == "yes"
        elif name == "bwrap":
            facts.bwrap = value == "yes"
        elif name == "server":
            try:
                info = json.loads(value)
            except ValueError:
                continue
            facts.server = info if isinstance(info, dict) else None
        elif name == "python":
            parts = value.split("|")
            if len(parts) != 4:
                continue
            path, version, plat, libc = parts
            try:
                major, minor = (int(x) for x in version.split("."))
            except ValueError:
                continue
            found = re.fullmatch(r"glibc-(\d+)\.(\d+).*", libc)
            glibc = (int(found.group(1)), int(found.group(2))) if found else None
            if all(p.path != path for p in facts.pythons):
                facts.pythons.append(RemotePython(path, (major, minor), plat, glibc))
    return facts


def choose_python(facts: RemoteFacts, bundle: Bundle) -> RemotePython | None:
    """The remote Python that can run `bundle`; RemoteUnsuitable (one sentence) when none can.
    None for an `app` bundle (it brings its own)."""
    same_machine = facts.system == bundle.system and facts.arch == bundle.arch
    if bundle.kind == "app":
        if not same_machine:
            raise RemoteUnsuitable(
                f"The remote is {facts.system} {facts.arch} and this HarnessDesk is built for "
                f"{bundle.system} {bundle.arch}: there is no server for that machine to bring."
            )
        return None
    wanted = bundle.python
    words = f"{wanted[0]}.{wanted[1]}" if wanted else "3.11 or newer"
    if not facts.pythons:
        raise RemoteUnsuitable(
            f"The remote has no Python 3; HarnessDesk's server needs Python {words} there."
        )
    if bundle.python is not None and not same_machine:
        raise RemoteUnsuitable(
            f"The remote is {facts.system} {facts.arch} and this computer {bundle.system} {bundle.arch}: "
            "the server's compiled parts are this computer's, so it cannot run there."
        )
    for python in facts.pythons:
        if (wanted and python.version != wanted) or python.version < (3, 11):
            continue
        if bundle.glibc and (python.glibc is None or python.glibc < bundle.glibc):
            continue
        return python
    found = ", ".join(f"{p.version[0]}.{p.version[1]} ({p.path})" for p in facts.pythons)
    if bundle.glibc and any(p.version == wanted for p in facts.pythons):
        need = f"{bundle.glibc[0]}.{bundle.glibc[1]}"
        raise RemoteUnsuitable(
            f"The remote's C library is older than glibc {need}, which the server's compiled parts need."
        )
    raise RemoteUnsuitable(
        f"The remote has Python {found}; HarnessDesk's server needs Python {words} there"
        + (" (this computer's version: its compiled parts are built for it)." if wanted else ".")
    )


# ---- installing -------------------------------------------------------------------------------

UPLOAD = r"""
umask 077
mkdir -p "$HOME/$1/.incoming-$2"
cat > "$HOME/$1/.incoming-$2/bundle.tar"
"""

VERIFY = r"""
import hashlib, json, os, sys, tarfile
tar, expected, into = sys.argv[1], sys.argv[2], sys.argv[3]
digest = hashlib.sha256()
with open(tar, "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
if digest.hexdigest() != expected:
    print("the bundle arrived damaged (its SHA-256 differs)")
    sys.exit(3)
with tarfile.open(tar) as tf:
    for member in tf.getmembers():
        if not member.isfile() or member.name.startswith("/") or ".." in member.name.split("/"):
            print("the bundle holds an unexpected entry: " + member.name)
            sys.exit(4)
    tf.extractall(into)
manifest = json.load(open(os.path.join(into, "manifest.json")))
for entry in manifest.get("wheels", []) + manifest.get("files", []):
    name = entry["name"]
    path = os.path.join(into, "wheels", name) if "wheels" in manifest else os.path.join(into, name)
    with open(path, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != entry["sha256"]:
            print("a file of the bundle differs from its checksum: " + name)
            sys.exit(4)
print("verified")
"""

INSTALL = r"""
set -u
base="$HOME/$1"; key="$2"; py="$4"; kind="$6"
incoming="$base/.incoming-$key"; dir="$base/$key"
rm -rf "$dir" "$dir.partial"
mkdir -p "$dir.partial" || exit 5
if ! "$py" -c "$5" "$incoming/bundle.tar" "$3" "$dir.partial"; then
  rm -rf "$dir.partial" "$incoming"; exit 6
fi
mv "$dir.partial" "$dir" || exit 5
if [ "$kind" = wheels ]; then
  pip=$(sed -n 's/.*"pip": *"\([^"]*\)".*/\1/p' "$dir/manifest.json")
  "$py" -m venv --without-pip "$dir/venv" || { echo "python -m venv failed"; rm -rf "$dir"; exit 7; }
  # --ignore-requires-python: the wheels are the set this host runs, already held to the remote's
  # Python minor by the compiled ones (Bundle.python); a pure wheel's patch-level floor (soupsieve:
  # >=3.11.5) would refuse Debian 12's 3.11.2 for nothing (docs/decisions.md, "Remote hosts")
  if ! "$dir/venv/bin/python" "$dir/wheels/$pip/pip" install --no-index --no-deps --no-cache-dir \
      --ignore-requires-python --disable-pip-version-check -q "$dir"/wheels/*.whl; then
    rm -rf "$dir"; exit 8
  fi
  rm -rf "$dir/wheels"
else
  chmod 755 "$dir/app/harnessdesk" || exit 5
fi
echo "$key" > "$dir/ready"
rm -rf "$incoming"
for old in "$base"/*; do
  name=$(basename "$old")
  [ "$name" = "$key" ] || [ "$name" = run ] || rm -rf "$old"
done
echo installed
"""


def upload_command(key: str) -> str:
    return shell(UPLOAD, BASE, key)


def install_command(bundle: Bundle, python: RemotePython | None) -> str:
    interpreter = python.path if python is not None else "python3"
    return shell(INSTALL, BASE, bundle.key, bundle.sha256, interpreter, VERIFY, bundle.kind)


def server_program(facts: RemoteFacts, bundle: Bundle) -> str:
    folder = f"{facts.base}/{bundle.key}"
    return f"{folder}/app/harnessdesk" if bundle.kind == "app" else f"{folder}/venv/bin/harnessdesk"


LAUNCH = r"""
cd "$HOME" || exit 1
key="$1"; program="$2"; shift 2
HARNESSDESK_BUNDLE="$key" exec "$program" serve "$@"
"""


def launch_command(facts: RemoteFacts, bundle: Bundle, mode: str, idle_exit: float) -> str:
    """The server's launch: the handover comes on stdin; a ready line with the token leaves on
    stdout (docs/decisions.md, "Remote hosts": the token never crosses TCP)."""
    args = ["--unix-socket", facts.socket, "--handover", "-", "--log-level", "warning"]
    args += ["--attached"] if mode == "attached" else ["--detach", "--idle-exit", f"{idle_exit:g}"]
    return shell(LAUNCH, bundle.key, server_program(facts, bundle), *args)


STOP = r"""
info="$HOME/$1/run/serve.json"
pid=$(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' "$info" 2>/dev/null)
[ -n "$pid" ] || exit 0
kill "$pid" 2>/dev/null || exit 0
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
kill -9 "$pid" 2>/dev/null
exit 0
"""


def stop_command() -> str:
    return shell(STOP, BASE)


TOKEN_READ = r"""cat "$HOME/$1/run/token" """


def token_command() -> str:
    return shell(TOKEN_READ, BASE)
