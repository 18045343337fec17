"""What the bundle is made of, per library and resource group (the table in packaging/README.md).

    python packaging/sizes.py [dist/harnessdesk]      # a Markdown table, largest group first

`build.py` stores the same figures in dist/harnessdesk-report.json (`components`).
"""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

MB = 1024 * 1024

# (group, glob patterns on the path below the bundle): the first group that matches wins.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("embedded model (SmolLM2-135M .gguf)", ("*.gguf",)),
    ("llama.cpp runtime (xllamacpp)", ("*/xllamacpp/*",)),
    ("Python runtime (libpython, stdlib)", ("*/libpython3*", "*/lib-dynload/*", "*/base_library*")),
    ("bootloader + compiled Python code (PYZ)", ("harnessdesk", "harnessdesk.exe", "harnessdesk-cli.exe")),
    ("PyGObject + pycairo bindings (GTK/WebKitGTK: the system's)", ("*/gi/*", "*/cairo/*")),
    ("Python packages with native code (pydantic-core, …)", ("*.cpython-*.so", "*.abi3.so")),
    ("system libraries bundled (OpenSSL, …)", ("_internal/lib*.so*",)),
    ("web UI, bridge, icons, pywebview JS", ("*/webui/*", "*/desktop/*", "*/webview/*", "*/packaging/*")),
)
OTHER = "everything else"


def group_of(rel: str) -> str:
    for name, patterns in GROUPS:
        if any(fnmatch.fnmatch(rel, p) for p in patterns):
            return name
    return OTHER


def components(bundle: Path) -> list[tuple[str, int, int]]:
    """(group, bytes, files), largest first; symlinks count as their own (tiny) size."""
    totals: dict[str, list[int]] = {}
    for path in bundle.rglob("*"):
        if not (path.is_file() or path.is_symlink()):
            continue
        entry = totals.setdefault(group_of(str(path.relative_to(bundle))), [0, 0])
        entry[0] += path.lstat().st_size
        entry[1] += 1
    return sorted(((g, b, n) for g, (b, n) in totals.items()), key=lambda row: -row[1])


def markdown(rows: list[tuple[str, int, int]]) -> str:
    total = sum(b for _, b, _ in rows)
    lines = ["| part | MB | files |", "|---|---:|---:|"]
    lines += [f"| {name} | {size / MB:.1f} | {files} |" for name, size, files in rows]
    lines.append(f"| **total** | **{total / MB:.1f}** | {sum(n for _, _, n in rows)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    default = Path(__file__).resolve().parent.parent / "dist" / "harnessdesk"
    print(markdown(components(Path(sys.argv[1]) if len(sys.argv) > 1 else default)))
