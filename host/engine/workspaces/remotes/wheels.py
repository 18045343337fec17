"""The server's own wheels, made from what this host runs (docs/decisions.md, "Remote hosts").

A remote gets no internet access from us and may have none of its own: the server it runs is
installed from wheels this host carries there. They are made from the installed distributions
of this very process (their RECORD names every file; their WHEEL file keeps the tags they were
built for), and the project's own wheel from its package folders, so nothing is downloaded and
the remote runs exactly the code that runs here. Every wheel is written deterministically (sorted
entries, a fixed date), so the same code gives the same bytes and the same bundle key.

What the server does not need stays here: the embedded model's runtime (`xllamacpp`, 100 MB) and
the window's toolkit. A remote session uses a provider that speaks HTTP (docs/decisions.md).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as md
import io
import json
import re
import tomllib
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PROJECT = "harnessdesk"
PROJECT_PACKAGES = ("contract", "host", "desktop")
"""The project's own top-level packages (pyproject.toml's `packages`)."""
LEFT_OUT = frozenset({"xllamacpp"})
"""Dependencies the remote server does without (the embedded model runs only on this computer)."""
INSTALLER = "pip"
"""Installs the rest on the remote, from its own wheel (`python pip.whl/pip install …`)."""
DATE = (1980, 1, 1, 0, 0, 0)
SKIP_DIST_INFO = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})


class WheelError(Exception):
    """A distribution that cannot be carried as a wheel (one sentence)."""


@dataclass(frozen=True)
class Wheel:
    name: str
    """The file name (`pydantic_core-2.50.5-cp311-cp311-manylinux_2_17_x86_64.whl`)."""
    data: bytes
    sha256: str
    tags: tuple[str, ...]
    """`cp311-cp311-manylinux_2_17_x86_64`, …; `py3-none-any` for pure Python."""


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _escape(name: str) -> str:
    return re.sub(r"[^\w\d.]+", "_", name, flags=re.UNICODE)


def requirement_name(requirement: str) -> str:
    found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return found.group(1) if found else ""


def requirements_of(dist: md.Distribution, source: Path | None) -> list[str]:
    """What a distribution requires. For this project run from its source folder, that folder's
    pyproject.toml says it: installed metadata (an editable install's, a stray egg-info's) is as
    old as the last install, and a dependency added since would be missing on the remote."""
    if source is not None and normalized(dist.metadata["Name"]) == PROJECT:
        try:
            project = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))["project"]
            return [str(r) for r in project.get("dependencies", [])]
        except (OSError, ValueError, KeyError, TypeError):
            pass  # no readable pyproject there: the installed metadata
    return list(dist.requires or [])


def server_distributions(root: str = PROJECT, source: Path | None = None) -> list[md.Distribution]:
    """The project and every distribution its server needs, as installed here (`source`: the
    project's folder, read for an editable install's requirements).

    A requirement behind an extra is left out; one with another marker (a Python version, a
    platform) counts when it is installed here and is skipped when it is not (it is then not
    this platform's). A plain requirement that is missing is an error."""
    found: dict[str, md.Distribution] = {}
    todo = [(root, False)]
    while todo:
        name, conditional = todo.pop()
        key = normalized(name)
        if key in found or key in LEFT_OUT:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            if conditional:
                continue
            raise WheelError(
                f"{name} is not installed here, so it cannot be carried to a remote host"
            ) from None
        found[key] = dist
        for requirement in requirements_of(dist, source):
            marker = requirement.split(";", 1)[1] if ";" in requirement else ""
            if "extra" in marker:
                continue
            todo.append((requirement_name(requirement), bool(marker.strip())))
    return [found[k] for k in sorted(found)]


def _zip(entries: Iterable[tuple[str, bytes]]) -> bytes:
    """A deterministic zip of `entries` (name, bytes), written in the order given."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return buffer.getvalue()


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _finish(dist_info: str, files: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """`files` sorted, dist-info last, with a RECORD naming each one."""
    files = sorted(files, key=lambda f: (f[0].startswith(dist_info + "/"), f[0]))
    record = "\n".join([*(_record_line(n, d) for n, d in files), f"{dist_info}/RECORD,,"]) + "\n"
    return [*files, (f"{dist_info}/RECORD", record.encode())]


def _tags(wheel_text: str) -> tuple[str, ...]:
    return tuple(line.split(":", 1)[1].strip() for line in wheel_text.splitlines() if line.startswith("Tag:"))


def _file_tag(tags: tuple[str, ...]) -> str:
    """The compressed tag set of a wheel's file name
    (`cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64`)."""
    parts = [t.split("-") for t in tags]
    return "-".join(
        ".".join(sorted(set(p[i] for p in parts), key=[q[i] for q in parts].index)) for i in range(3)
    )


def _wheel(
    dist_name: str, version: str, tags: tuple[str, ...], files: list[tuple[str, bytes]], dist_info: str = ""
) -> Wheel:
    dist_info = dist_info or f"{_escape(dist_name)}-{version}.dist-info"
    data = _zip(_finish(dist_info, files))
    name = f"{_escape(dist_name)}-{version}-{_file_tag(tags)}.whl"
    return Wheel(name, data, hashlib.sha256(data).hexdigest(), tags)


def repack(dist: md.Distribution) -> Wheel:
    """An installed distribution back as its wheel (its files below site-packages, its metadata)."""
    name, version = dist.metadata["Name"], dist.version
    wheel_text = dist.read_text("WHEEL") or ""
    tags = _tags(wheel_text)
    listed = [f for f in dist.files or [] if not str(f).startswith("..")]
    if not tags or not listed:
        raise WheelError(
            f"{name} {version} was not installed from a wheel, so it cannot be carried to a remote host"
        )
    files: list[tuple[str, bytes]] = []
    dist_info = ""
    for path in listed:
        text = str(path).replace("\\", "/")
        parts = text.split("/")
        if (
            "__pycache__" in parts
            or text.endswith(".pyc")
            or (parts[0].endswith(".dist-info") and parts[-1] in SKIP_DIST_INFO)
        ):
            continue
        if parts[0].endswith(".dist-info"):
            dist_info = parts[0]
        located = Path(str(dist.locate_file(path)))
        try:
            files.append((text, located.read_bytes()))
        except OSError as exc:
            raise WheelError(f"{name}: cannot read {text} ({exc.strerror or exc})") from exc
    return _wheel(name, version, tags, files, dist_info)


def project_wheel(source: Path, dist: md.Distribution) -> Wheel:
    """This project's wheel from its package folders under `source` (an editable install lists
    no files; a regular one is repacked like any other)."""
    files: list[tuple[str, bytes]] = []
    for package in PROJECT_PACKAGES:
        for path in sorted((source / package).rglob("*")):
            rel = path.relative_to(source).as_posix()
            if path.is_dir() or "__pycache__" in rel.split("/") or rel.endswith((".pyc", ".pyo")):
                continue
            files.append((rel, path.read_bytes()))
    if not files:
        raise WheelError(f"the project's packages are not under {source}")
    dist_info = f"{_escape(PROJECT)}-{dist.version}.dist-info"
    metadata = (
        dist.read_text("METADATA") or f"Metadata-Version: 2.1\nName: {PROJECT}\nVersion: {dist.version}\n"
    )
    files.append((f"{dist_info}/METADATA", metadata.encode()))
    wheel_text = "Wheel-Version: 1.0\nGenerator: harnessdesk\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files.append((f"{dist_info}/WHEEL", wheel_text.encode()))
    entry_points = dist.read_text("entry_points.txt")
    if entry_points:
        files.append((f"{dist_info}/entry_points.txt", entry_points.encode()))
    return _wheel(PROJECT, dist.version, ("py3-none-any",), files)


def is_editable(dist: md.Distribution) -> bool:
    """Installed with `pip install -e` (its files are the source folder's, not in RECORD)."""
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    return bool(isinstance(direct, dict) and direct.get("dir_info", {}).get("editable"))


def server_wheels(source: Path, cache: dict[tuple[str, str], Wheel] | None = None) -> list[Wheel]:
    """Every wheel the remote server needs, pip's own first. `cache` keeps the repacked
    dependencies between calls (by name and version: an installed version does not change)."""
    cache = {} if cache is None else cache
    out: list[Wheel] = []
    dists = server_distributions(source=source)
    try:
        installer = md.distribution(INSTALLER)
    except md.PackageNotFoundError:
        raise WheelError("pip is not installed here, so no remote host can install the server") from None
    for dist in [installer, *dists]:
        key = (normalized(dist.metadata["Name"]), dist.version)
        if key[0] == PROJECT and (is_editable(dist) or not dist.read_text("WHEEL")):
            out.append(project_wheel(source, dist))
            continue
        if key not in cache:
            cache[key] = repack(dist)
        out.append(cache[key])
    return out
