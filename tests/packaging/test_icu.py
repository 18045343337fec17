"""Qt's ICU data library, cut to the root and English locales (packaging/icu.py)."""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import struct
from pathlib import Path

import icu
import pytest


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("icudt73l/root.res", True),
        ("icudt73l/pool.res", True),
        ("icudt73l/res_index.res", True),
        ("icudt73l/en.res", True),
        ("icudt73l/en_GB.res", True),
        ("icudt73l/de.res", False),
        ("icudt73l/zh_Hant_TW.res", False),
        ("icudt73l/supplementalData.res", True),
        ("icudt73l/zoneinfo64.res", True),
        ("icudt73l/icuver.res", True),
        ("icudt73l/uts46.nrm", True),
        ("icudt73l/cnvalias.icu", True),
        ("icudt73l/ibm-943_P15A-2003.cnv", False),
        ("icudt73l/coll/root.res", True),
        ("icudt73l/coll/ucadata.icu", True),
        ("icudt73l/coll/zh.res", False),
        ("icudt73l/lang/en.res", True),
        ("icudt73l/lang/pool.res", True),
        ("icudt73l/zone/fr.res", False),
        ("icudt73l/brkitr/char.brk", True),
        ("icudt73l/brkitr/cjdict.dict", False),
        ("icudt73l/translit/root.res", False),
        ("icudt73l/rbnf/en.res", False),
    ],
)
def test_keep_rules(name: str, kept: bool) -> None:
    assert icu.keep_item(name) is kept


def fake_package(items: list[tuple[str, bytes]]) -> bytes:
    header = struct.pack("<HBB", 32, 0xDA, 0x27) + struct.pack("<HH", 20, 0) + b"\0\0\0\0"
    header += b"CmnD" + b"\1\0\0\0" + b"\0" * 4
    return icu.write_package(header + b"\0" * (32 - len(header)), items)


def test_package_round_trip_and_alignment() -> None:
    items = [("icudt73l/b.res", b"B" * 5), ("icudt73l/a.res", b"A" * 17), ("icudt73l/coll/de.res", b"D")]
    header, read = icu.read_package(fake_package(items))
    assert len(header) == 32
    # sorted by name (ICU finds items by binary search); an item reads back with its padding
    assert [name for name, _ in read] == sorted(name for name, _ in items)
    assert all(data.startswith(dict(items)[name]) and len(data) % icu.ALIGN == 0 for name, data in read)
    blob = fake_package(items)
    count = struct.unpack_from("<I", blob, 32)[0]
    offsets = [struct.unpack_from("<II", blob, 36 + 8 * i)[1] for i in range(count)]
    assert all(off % icu.ALIGN == 0 for off in offsets)
    with pytest.raises(ValueError):
        icu.read_package(b"\0" * 64)


def qt_icu_data() -> Path | None:
    spec = importlib.util.find_spec("PyQt6")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("Qt6/lib/libicudata.so.*"))
    return found[0] if found else None


@pytest.mark.skipif(qt_icu_data() is None or shutil.which("ld") is None, reason="needs PyQt6 and binutils")
def test_shrink_rebuilds_a_loadable_library_with_the_same_symbol(tmp_path: Path) -> None:
    original = qt_icu_data()
    assert original is not None
    lib = tmp_path / original.name
    shutil.copyfile(original, lib)
    symbol, _, _ = icu.data_symbol(lib)
    before, after, dropped = icu.shrink(lib)
    assert after < before / 4 and dropped > 1000
    new_symbol, offset, size = icu.data_symbol(lib)
    assert new_symbol == symbol
    loaded = ctypes.CDLL(str(lib))  # the dynamic loader accepts it and exports the blob
    address = ctypes.addressof(ctypes.c_char.in_dll(loaded, symbol))
    in_memory = ctypes.string_at(address, size)
    assert in_memory == lib.read_bytes()[offset : offset + size]
    _, items = icu.read_package(in_memory)
    names = {name.split("/", 1)[1] for name, _ in items}
    assert {"root.res", "en.res", "pool.res", "coll/root.res", "coll/ucadata.icu", "cnvalias.icu"} <= names
    assert "coll/zh.res" not in names and not any(n.endswith(".cnv") for n in names)
