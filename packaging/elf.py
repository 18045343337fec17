"""Read an ELF file's DT_NEEDED entries (the libraries it links) with the standard library only.

PyInstaller resolves library dependencies before the spec trims plugins, so libraries wanted
only by dropped plugins (GTK for the gtk3 theme, PulseAudio for multimedia, CUPS for printing)
stay behind as orphans; `trim.prune_orphans` needs each file's links to find them.
"""

from __future__ import annotations

import struct
from pathlib import Path

SHT_DYNAMIC = 6
DT_NULL, DT_NEEDED = 0, 1


def needed(path: str | Path) -> list[str]:
    """Names of the libraries `path` links against; [] for non-ELF or static files."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return []
    if data[:4] != b"\x7fELF" or len(data) < 64:
        return []
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        shoff = struct.unpack_from(end + "Q", data, 0x28)[0]
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
    else:
        shoff = struct.unpack_from(end + "I", data, 0x20)[0]
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
    sections = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if is64:
            _, stype, _, _, soff, ssize, link, _, _, entsize = struct.unpack_from(
                end + "IIQQQQIIQQ", data, off
            )
        else:
            _, stype, _, _, soff, ssize, link, _, _, entsize = struct.unpack_from(
                end + "IIIIIIIIII", data, off
            )
        sections.append((stype, soff, ssize, link, entsize))
    names: list[str] = []
    for stype, soff, ssize, link, entsize in sections:
        if stype != SHT_DYNAMIC or link >= len(sections):
            continue
        str_off = sections[link][1]
        fmt = end + ("qQ" if is64 else "iI")
        step = entsize or struct.calcsize(fmt)
        for pos in range(soff, soff + ssize, step):
            tag, val = struct.unpack_from(fmt, data, pos)
            if tag == DT_NULL:
                break
            if tag == DT_NEEDED:
                stop = data.index(b"\0", str_off + val)
                names.append(data[str_off + val : stop].decode("utf-8", "replace"))
    return names
