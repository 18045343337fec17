"""Shrink Qt's ICU data library (`libicudata.so.NN`, 31 MB) to what a web-view shell uses.

Qt links ICU for QtCore's locale-aware text functions (collation, case mapping, time zones,
legacy codecs). The page itself never reaches this copy: Chromium carries its own ICU data
(`resources/icudtl.dat`). So the library keeps ICU's core tables, the root and English
locales and the supplemental data, and drops legacy-encoding converters, break-iterator
dictionaries, transliteration, spell-out rules and the per-language collations and display
names (a missing locale falls back to root, which is what ICU does for any locale it lacks).
docs/decisions.md ("Performance and packaging") records why.

The library is one exported symbol, `icudtNN_dat`, holding an ICU "common data" package
(a header, a table of contents of named items, the items 16-byte aligned). We read it out of
the ELF file, write a smaller package with the same header and rebuild the library with
binutils (`as`, `ld`), keeping its SONAME: libicuuc finds the same symbol in the same file.
"""

from __future__ import annotations

import re
import struct
import subprocess
import tempfile
from pathlib import Path

ALIGN = 16
PAD = b"\xaa"
"""ICU's own padding byte (genccode/icupkg): a package rewritten unchanged is byte-identical."""
DROPPED_DIRS = ("translit", "rbnf")
"""Whole item folders nobody asks for: transliterators and number spell-out rules."""
DISPLAY_DIRS = ("coll", "lang", "region", "curr", "unit", "zone")
"""Per-locale folders: only the locales in KEPT_LOCALE keep their item."""
KEPT_LOCALE = re.compile(r"^(root|pool|res_index|en(_\w+)?)$")
SYMBOL = re.compile(r"^\s*\d+:\s+([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+OBJECT.*\s(icudt\d+_dat)$", re.M)
"""readelf --dyn-syms row of the data blob: value, size, name."""
LOCALE_RES = re.compile(r"^[a-z]{2,3}(_\w+)?$")
"""A top-level `xx.res`/`xx_YY.res` is a locale's own data; camelCase names are supplemental."""


def keep_item(name: str) -> bool:
    """Whether package item `name` (e.g. `icudt73l/coll/de.res`) stays."""
    parts = name.split("/")[1:]  # drop the `icudtNNl` prefix
    if len(parts) == 1:
        stem, _, ext = parts[0].rpartition(".")
        if ext == "cnv":
            return False  # table-based legacy encodings; UTF-*, ASCII, Latin-1 are built in
        return ext != "res" or not LOCALE_RES.match(stem) or bool(KEPT_LOCALE.match(stem))
    folder, leaf = parts[0], parts[-1]
    stem, _, ext = leaf.rpartition(".")
    if folder in DROPPED_DIRS:
        return False
    if folder == "brkitr":
        return ext != "dict"  # rules stay; dictionaries (CJK, Thai, Khmer, Burmese) go
    if folder in DISPLAY_DIRS and ext == "res":
        return bool(KEPT_LOCALE.match(stem))
    return True  # e.g. coll/ucadata.icu


def read_package(blob: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """(header, [(item name, item bytes)]) of an ICU common-data package."""
    header_size, magic1, magic2 = struct.unpack_from("<HBB", blob, 0)
    if (magic1, magic2) != (0xDA, 0x27) or blob[12:16] != b"CmnD":
        raise ValueError("not an ICU common data package")
    toc = header_size
    (count,) = struct.unpack_from("<I", blob, toc)
    entries = [struct.unpack_from("<II", blob, toc + 4 + 8 * i) for i in range(count)]
    items = []
    for i, (name_off, data_off) in enumerate(entries):
        name = blob[toc + name_off : blob.index(b"\0", toc + name_off)].decode("ascii")
        end = entries[i + 1][1] if i + 1 < count else len(blob) - toc
        items.append((name, blob[toc + data_off : toc + end]))
    return blob[:header_size], items


def write_package(header: bytes, items: list[tuple[str, bytes]]) -> bytes:
    """The package bytes; items stay sorted by name (ICU looks them up by binary search)."""
    items = sorted(items)
    names = b"".join(name.encode("ascii") + b"\0" for name, _ in items)
    toc_size = 4 + 8 * len(items)
    data_start = _aligned(toc_size + len(names))
    offsets, name_off, data_off = [], toc_size, data_start
    body = bytearray()
    for name, data in items:
        offsets.append((name_off, data_off))
        name_off += len(name) + 1
        body += data + PAD * (_aligned(len(data)) - len(data))
        data_off += _aligned(len(data))
    toc = struct.pack("<I", len(items)) + b"".join(struct.pack("<II", n, d) for n, d in offsets)
    padding = PAD * (data_start - toc_size - len(names))
    return header + toc + names + padding + bytes(body)


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def data_symbol(lib: Path) -> tuple[str, int, int]:
    """(symbol name, file offset, size) of the library's `icudtNN_dat` blob, via readelf."""
    found = SYMBOL.search(_readelf("--dyn-syms", lib))
    if not found:
        raise ValueError(f"{lib.name}: no icudtNN_dat symbol")
    value, size = int(found.group(1), 16), int(found.group(2), 0)
    for line in _readelf("-S", lib).splitlines():
        cols = line.split("]", 1)[-1].split()
        if len(cols) >= 5 and cols[1] == "PROGBITS":
            addr, off, length = int(cols[2], 16), int(cols[3], 16), int(cols[4], 16)
            if addr <= value < addr + length:
                return found.group(3), off + value - addr, size
    raise ValueError(f"{lib.name}: {found.group(3)} lies in no section")


def _readelf(option: str, lib: Path) -> str:
    out = subprocess.run(["readelf", option, "-W", str(lib)], capture_output=True, text=True, check=True)
    return out.stdout


def link_data_library(package: bytes, symbol: str, soname: str, out: Path) -> None:
    """A shared library exporting `symbol` = `package` (read-only, 16-byte aligned)."""
    with tempfile.TemporaryDirectory(prefix="icu-") as tmp:
        work = Path(tmp)
        (work / "data.bin").write_bytes(package)
        source = "\n".join(
            [
                ".section .rodata",
                f".globl {symbol}",
                f".type {symbol}, @object",
                ".balign 16",
                f"{symbol}:",
                '.incbin "data.bin"',
                f".size {symbol}, . - {symbol}",
                '.section .note.GNU-stack,"",@progbits',  # no executable stack
                "",
            ]
        )
        (work / "data.s").write_text(source, encoding="ascii")
        subprocess.run(["as", "-o", "data.o", "data.s"], cwd=work, check=True)
        subprocess.run(["ld", "-shared", "-soname", soname, "-o", str(out), "data.o"], cwd=work, check=True)


def shrink(lib: Path) -> tuple[int, int, int]:
    """Rewrite `lib` in place; returns (bytes before, bytes after, items dropped)."""
    before = lib.stat().st_size
    symbol, offset, size = data_symbol(lib)
    with lib.open("rb") as fh:
        fh.seek(offset)
        header, items = read_package(fh.read(size))
    kept = [(name, data) for name, data in items if keep_item(name)]
    rebuilt = lib.with_name(lib.name + ".new")
    link_data_library(write_package(header, kept), symbol, lib.name, rebuilt)
    mode = lib.stat().st_mode
    rebuilt.replace(lib)
    lib.chmod(mode)
    return before, lib.stat().st_size, len(items) - len(kept)
