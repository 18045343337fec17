"""Linux post-build steps: strip debug info, check library links, build the .deb and .tar.gz.

Separate from build.py so each stays small; everything here works on an existing
dist/harnessdesk/ and needs only binutils, ldd, dpkg and tar from the system.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import elf

PACKAGING = Path(__file__).resolve().parent
DEB = PACKAGING / "deb"
ICONS = PACKAGING / "icons"
ELF_MAGIC = b"\x7fELF"
# Libraries every glibc system has; they need no Depends line beyond libc6.
GLIBC = re.compile(r"^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libresolv)\b")


def is_elf(path: Path) -> bool:
    if not path.is_file() or path.is_symlink():
        return False
    with path.open("rb") as fh:
        return fh.read(4) == ELF_MAGIC


def elf_files(bundle: Path) -> list[Path]:
    return [p for p in sorted(bundle.rglob("*")) if is_elf(p)]


def section_names(path: Path) -> set[str]:
    out = subprocess.run(["readelf", "-S", "-W", str(path)], capture_output=True, text=True, check=False)
    rows = [line.split("]", 1)[1].split() for line in out.stdout.splitlines() if "]" in line]
    return {cols[0] for cols in rows if cols}


def strip_debug(bundle: Path) -> list[tuple[str, int]]:
    """Remove DWARF debug info and static symbol tables (xllamacpp: 106 MB -> 25 MB).

    `--strip-unneeded` keeps every dynamic symbol (what the loader and Python's PyInit_* need).
    Only files under `_internal/` that carry such sections are rewritten: already-stripped
    libraries stay as they are, and so does the bootloader next to `_internal/`, whose appended
    archive a strip would cut off.
    """
    saved: list[tuple[str, int]] = []
    for path in elf_files(bundle / "_internal"):
        if not section_names(path) & {".debug_info", ".symtab"}:
            continue
        before = path.stat().st_size
        subprocess.run(["strip", "--strip-unneeded", str(path)], check=True)
        saved.append((str(path.relative_to(bundle)), before - path.stat().st_size))
    return saved


# The system libraries the window's stack grows from: WebKitGTK (which loads GTK, GLib, Soup,
# JavaScriptCore, cairo, …) and libgirepository (PyGObject's link to GObject introspection).
STACK_ROOTS: tuple[str, ...] = ("libwebkit2gtk-4.1.so.0", "libgirepository-1.0.so.1")
STACK_FIX = "apt-get install libwebkit2gtk-4.1-0 gir1.2-webkit2-4.1 libgirepository-1.0-1"


def system_library(soname: str) -> Path | None:
    """Where the dynamic loader finds `soname` on this system (`ldconfig -p`), or None."""
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    for line in out.splitlines():
        name, _, target = line.strip().partition(" => ")
        if name.split(" (", 1)[0] == soname:
            return Path(target.strip())
    return None


def ldd(path: Path) -> dict[str, str]:
    """soname -> resolved path for everything `path` loads (transitively), per ldd."""
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>" and parts[2] != "not":
            found[parts[0]] = parts[2]
    return found


def gtk_system_stack() -> frozenset[str]:
    """The sonames of the system's GTK/WebKitGTK stack: never bundled (packaging/trim.py)."""
    import trim

    paths: dict[str, Path] = {}
    for soname in STACK_ROOTS:
        found = system_library(soname)
        if found is None:
            raise SystemExit(f"{soname} is not installed; the Linux build needs it: {STACK_FIX}")
        paths[soname] = found
    return trim.system_stack(STACK_ROOTS, lambda name: ldd(paths[name]))


@dataclass
class Links:
    """What the bundle's ELF files need from outside the bundle."""

    missing: dict[str, list[str]] = field(default_factory=dict)  # library -> needed by
    system: dict[str, str] = field(default_factory=dict)  # library -> resolved path (transitive)
    direct: set[str] = field(default_factory=set)  # libraries some bundle file links itself


def library_dirs(bundle: Path) -> list[Path]:
    internal = bundle / "_internal"
    return sorted({p.parent for p in elf_files(internal) if ".so" in p.name} | {internal})


def check_links(bundle: Path) -> Links:
    """Run ldd on every ELF file with the bundle's own directories first on the search path, as
    the bootloader arranges at run time; anything left over comes from the system."""
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(str(d) for d in library_dirs(bundle)))
    links = Links()
    for path in elf_files(bundle):
        links.direct.update(elf.needed(path))
        out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env, check=False)
        for line in out.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "=>":
                name, target = parts[0], parts[2]
                if target == "not":
                    links.missing.setdefault(name, []).append(str(path.relative_to(bundle)))
                elif not Path(target).resolve().is_relative_to(bundle.resolve()):
                    links.system[name] = target
    return links


def owning_packages(paths: list[str]) -> dict[str, str]:
    """Library path -> Debian package (architecture suffix dropped), via dpkg -S."""
    owners: dict[str, str] = {}
    for path in paths:
        real = str(Path(path).resolve())
        for candidate in (path, real, real.replace("/usr/lib/", "/lib/"), path.replace("/lib/", "/usr/lib/")):
            out = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True, check=False)
            if out.returncode == 0:
                owners[path] = out.stdout.split(":", 1)[0].strip()
                break
    return owners


def read_depends() -> list[str]:
    lines = (DEB / "depends.txt").read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def uncovered_packages(links: Links) -> list[str]:
    """System packages the bundle links against directly that depends.txt does not name (their
    own dependencies are the system packages' business)."""
    declared = {alt.split()[0] for dep in read_depends() for alt in dep.split("|")}
    direct = [p for n, p in links.system.items() if n in links.direct and not GLIBC.match(n)]
    needed = owning_packages(direct)
    return sorted({pkg for pkg in needed.values() if pkg not in declared and not pkg.startswith("libc6")})


def deb_arch() -> str:
    return subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()


def _install(src: Path, dest: Path, mode: int) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    dest.chmod(mode)


def _hardlink_tree(src: Path, dest: Path) -> None:
    """Stage the bundle by hard links: a 400 MB copy avoided, same inodes, same modes."""
    shutil.copytree(src, dest, symlinks=True, copy_function=os.link)


def dir_size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


# dpkg-deb level per compressor. Measured on the ~500 MB bundle (2 cores): zstd -9 20 s / 233 MB,
# zstd -3 6 s / 249 MB, gzip -9 90 s / 253 MB, xz -6 335 s / 207 MB. zstd needs dpkg >= 1.21.18
# (Debian 12, Ubuntu 21.10), which the bundle's glibc 2.36 floor implies anyway.
COMPRESSION_LEVELS: dict[str, int] = {"zstd": 9, "xz": 6, "gzip": 9}


def build_deb(bundle: Path, version: str, out_dir: Path, work: Path, compression: str = "zstd") -> Path:
    """dpkg-deb a package: /opt/harnessdesk, /usr/bin wrapper, .desktop entry, hicolor icons."""
    root = stage_deb(bundle, version, work)
    try:
        return pack_deb(root, version, out_dir, compression)
    finally:
        shutil.rmtree(root)


def stage_deb(bundle: Path, version: str, work: Path) -> Path:
    """The package tree under work/deb-root. Staging hard-links the bundle, which changes its
    files' ctime: do it before anything else (tar) reads the bundle, remove it after."""
    root = work / "deb-root"
    if root.exists():
        shutil.rmtree(root)
    _hardlink_tree(bundle, root / "opt" / "harnessdesk")
    _install(DEB / "harnessdesk.sh", root / "usr/bin/harnessdesk", 0o755)
    _install(PACKAGING / "harnessdesk.desktop", root / "usr/share/applications/harnessdesk.desktop", 0o644)
    for png in sorted((ICONS / "png").glob("harnessdesk-*.png")):
        size = png.stem.rsplit("-", 1)[1]
        _install(png, root / f"usr/share/icons/hicolor/{size}x{size}/apps/harnessdesk.png", 0o644)
    _install(ICONS / "harnessdesk.svg", root / "usr/share/icons/hicolor/scalable/apps/harnessdesk.svg", 0o644)
    _install(DEB / "copyright", root / "usr/share/doc/harnessdesk/copyright", 0o644)
    control = root / "DEBIAN"
    control.mkdir(parents=True)
    arch = deb_arch()
    text = (DEB / "control.in").read_text(encoding="utf-8")
    text = text.replace("@VERSION@", version).replace("@ARCH@", arch)
    text = text.replace("@INSTALLED_SIZE@", str(dir_size(root) // 1024))
    text = text.replace("@DEPENDS@", ", ".join(read_depends()))
    (control / "control").write_text(text, encoding="utf-8")
    for script in ("postinst", "postrm"):
        _install(DEB / script, control / script, 0o755)
    for d in [root, *(p for p in root.rglob("*") if p.is_dir() and not p.is_symlink())]:
        d.chmod(0o755)
    return root


def pack_deb(root: Path, version: str, out_dir: Path, compression: str = "zstd") -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    deb = out_dir / f"harnessdesk_{version}_{deb_arch()}.deb"
    level = COMPRESSION_LEVELS[compression]
    cmd = ["dpkg-deb", "--root-owner-group", f"-Z{compression}", f"-z{level}", "--build", str(root), str(deb)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return deb


def build_tar(bundle: Path, version: str, out_dir: Path, machine: str) -> Path:
    """`harnessdesk-VERSION-linux-ARCH.tar.gz` holding the `harnessdesk/` folder, owners reset."""
    out = out_dir / f"harnessdesk-{version}-linux-{machine}.tar.gz"

    def reset(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        return info

    if shutil.which("tar") and shutil.which("gzip"):
        cmd = ["tar", "--owner=0", "--group=0", "--numeric-owner", "-C", str(bundle.parent)]
        subprocess.run([*cmd, "-czf", str(out), bundle.name], check=True)
    else:  # pragma: no cover - every Debian has tar
        with tarfile.open(out, "w:gz", compresslevel=6) as tar:
            tar.add(bundle, arcname=bundle.name, filter=reset)
    return out
