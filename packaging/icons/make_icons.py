"""Render harnessdesk.svg into the PNG set, the Windows .ico and the macOS .icns.

The outputs are checked in, so builds never need this; run it after editing the SVG:
    python packaging/icons/make_icons.py
GdkPixbuf (PyGObject, already a dependency on Linux; librsvg's loader) renders the SVG; the .ico
and .icns containers are written by hand with PNG payloads, which every supported Windows
(Vista+) and macOS (10.7+) version reads.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SVG = HERE / "harnessdesk.svg"
PNG_SIZES: tuple[int, ...] = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES: tuple[int, ...] = (16, 24, 32, 48, 64, 128, 256)
# ICNS chunk types holding PNG data, by pixel size (ic11-ic14 are the @2x variants).
ICNS_TYPES: tuple[tuple[bytes, int], ...] = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"ic11", 32),
    (b"icp6", 64),
    (b"ic12", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic13", 256),
    (b"ic09", 512),
    (b"ic14", 512),
    (b"ic10", 1024),
)


def render(size: int) -> bytes:
    """The SVG drawn at size x size, as PNG bytes."""
    import gi

    gi.require_version("GdkPixbuf", "2.0")
    from gi.repository import GdkPixbuf

    pixbuf = GdkPixbuf.Pixbuf.new_from_file_at_scale(str(SVG), size, size, False)
    ok, data = pixbuf.save_to_bufferv("png", [], [])
    if not ok:
        raise RuntimeError(f"could not encode the {size} px icon")
    return bytes(data)


def ico(pngs: dict[int, bytes]) -> bytes:
    """A multi-size .ico whose entries are PNG streams."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = 6 + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, data in sorted(pngs.items()):
        dim = 0 if size >= 256 else size  # 0 means 256 in the directory entry
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return header + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    chunks = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size] for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(chunks)) + chunks


def main() -> int:
    sizes = sorted({*PNG_SIZES, *ICO_SIZES, *(s for _, s in ICNS_TYPES)})
    pngs = {size: render(size) for size in sizes}
    out = HERE / "png"
    out.mkdir(exist_ok=True)
    for size in PNG_SIZES:
        (out / f"harnessdesk-{size}.png").write_bytes(pngs[size])
    (HERE / "harnessdesk.png").write_bytes(pngs[256])  # the window icon (desktop.paths.icon_file)
    (HERE / "harnessdesk.ico").write_bytes(ico({s: pngs[s] for s in ICO_SIZES}))
    (HERE / "harnessdesk.icns").write_bytes(icns(pngs))
    print(f"wrote {len(PNG_SIZES)} PNGs, harnessdesk.ico, harnessdesk.icns in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
