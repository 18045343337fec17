"""Reads the few GGUF header fields the model library needs, without loading the model, and
checks from the file's own header that it is whole.

A GGUF file starts with `GGUF`, a version, the tensor and key/value counts, then typed key/value
pairs, then one record per tensor (name, dimensions, type, offset), then the tensor data from the
next multiple of `general.alignment` (default 32) (docs/decisions.md, "Offline agent"). Only
string and integer values are kept; arrays (the tokenizer's vocabulary) are skipped without being
decoded. The reader stops after the tensor records, so a 5 GB model costs a few megabytes of
reading; `check_whole` compares the end of the last tensor's data with the file's size, so a file
cut short (a download that ended early with no length and no checksum to tell) is never
installed (docs/decisions.md, "GGUF: a model is installed only when whole").
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

MAGIC = b"GGUF"
_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
MAX_KEYS = 100_000
MAX_STRING = 64 * 1024 * 1024
MAX_TENSORS = 1_000_000
MAX_DIMS = 4
"""ggml's GGML_MAX_DIMS: a tensor record with more is not one llama.cpp reads."""
DEFAULT_ALIGNMENT = 32

TYPE_SIZES: dict[int, tuple[int, int]] = {
    0: (1, 4),  # F32
    1: (1, 2),  # F16
    2: (32, 18),  # Q4_0
    3: (32, 20),  # Q4_1
    6: (32, 22),  # Q5_0
    7: (32, 24),  # Q5_1
    8: (32, 34),  # Q8_0
    9: (32, 40),  # Q8_1
    10: (256, 84),  # Q2_K
    11: (256, 110),  # Q3_K
    12: (256, 144),  # Q4_K
    13: (256, 176),  # Q5_K
    14: (256, 210),  # Q6_K
    15: (256, 292),  # Q8_K
    16: (256, 66),  # IQ2_XXS
    17: (256, 74),  # IQ2_XS
    18: (256, 98),  # IQ3_XXS
    19: (256, 50),  # IQ1_S
    20: (32, 18),  # IQ4_NL
    21: (256, 110),  # IQ3_S
    22: (256, 82),  # IQ2_S
    23: (256, 136),  # IQ4_XS
    24: (1, 1),  # I8
    25: (1, 2),  # I16
    26: (1, 4),  # I32
    27: (1, 8),  # I64
    28: (1, 8),  # F64
    29: (256, 56),  # IQ1_M
    30: (1, 2),  # BF16
    34: (256, 54),  # TQ1_0
    35: (256, 66),  # TQ2_0
    39: (32, 17),  # MXFP4
    40: (64, 36),  # NVFP4
    41: (128, 18),  # Q1_0
}
"""ggml tensor type → (elements per block, bytes per block), as ggml's type traits say (the `gguf`
package's GGML_QUANT_SIZES; tests/engine/test_gguf_layout.py compares the two)."""


class NotGguf(ValueError):
    """The file is not a readable GGUF model."""


class Incomplete(NotGguf):
    """The file's header is readable but the file ends before its tensor data does."""


@dataclass(frozen=True)
class GgufInfo:
    name: str | None
    architecture: str | None
    context_length: int | None
    chat_template: str | None
    license: str | None

    @property
    def declares_tools(self) -> bool:
        """The chat template renders a `tools` list: llama.cpp can then offer the model tools
        and parse its calls (docs/decisions.md, "Offline agent")."""
        return bool(re.search(r"\btools\b", self.chat_template or ""))


def read_info(path: Path) -> GgufInfo:
    """The header fields of the GGUF file at `path`; raises NotGguf."""
    try:
        with open(path, "rb") as f:
            _tensors, values = _read_kv(f)
    except (OSError, struct.error, UnicodeDecodeError) as exc:
        raise NotGguf(f"{path.name} is not a readable GGUF file ({exc})") from None
    arch = _str(values.get("general.architecture"))
    ctx = values.get(f"{arch}.context_length") if arch else None
    return GgufInfo(
        name=_str(values.get("general.name")),
        architecture=arch,
        context_length=ctx if isinstance(ctx, int) and ctx > 0 else None,
        chat_template=_str(values.get("tokenizer.chat_template")),
        license=_str(values.get("general.license")),
    )


@dataclass(frozen=True)
class Layout:
    """Where a GGUF file's tensor data lies, from its header."""

    tensors: int
    data_offset: int
    """Where the tensor data starts: the end of the tensor records, rounded up to the alignment."""
    data_end: int
    """Where the last tensor's data ends: the least size a whole file has."""


def read_layout(path: Path) -> Layout:
    """The tensor layout of the GGUF file at `path` (its header and tensor records); raises
    NotGguf, also when the records themselves are cut off."""
    try:
        with open(path, "rb") as f:
            tensors, values = _read_kv(f)
            return _layout(f, tensors, values)
    except (OSError, struct.error, UnicodeDecodeError) as exc:
        raise NotGguf(f"{path.name} is not a readable GGUF file ({exc})") from None


def check_whole(path: Path) -> Layout:
    """The layout, when the file holds all of its tensor data; Incomplete when it ends early.
    A longer file is accepted (a writer pads the last tensor to the alignment)."""
    layout = read_layout(path)
    size = path.stat().st_size
    if size < layout.data_end:
        raise Incomplete(
            f"the file ends at {size:,} bytes but its header says its tensor data runs to"
            f" {layout.data_end:,} bytes: it was cut short"
        )
    return layout


def tensor_bytes(ggml_type: int, dims: tuple[int, ...]) -> int | None:
    """A tensor's data size (None: a type this reader does not know)."""
    sizes = TYPE_SIZES.get(ggml_type)
    if sizes is None:
        return None
    block, block_bytes = sizes
    count = 1
    for n in dims:
        count *= n
    if dims and dims[0] % block:
        raise NotGguf(f"a tensor's first dimension {dims[0]} is not a multiple of its block size {block}")
    return count // block * block_bytes


def _layout(f: BinaryIO, tensors: int, values: dict[str, Any]) -> Layout:
    if tensors > MAX_TENSORS:
        raise NotGguf(f"{tensors} tensors")
    alignment = values.get("general.alignment", DEFAULT_ALIGNMENT)
    plain = isinstance(alignment, int) and not isinstance(alignment, bool)
    if not plain or alignment <= 0 or alignment & (alignment - 1):
        raise NotGguf(f"general.alignment {alignment!r} is not a power of two")
    end = 0
    for _ in range(tensors):
        _string(f)  # the name
        (n_dims,) = struct.unpack("<I", _exact(f, 4))
        if n_dims > MAX_DIMS:
            raise NotGguf(f"a tensor has {n_dims} dimensions")
        dims = struct.unpack(f"<{n_dims}Q", _exact(f, 8 * n_dims))
        ggml_type, offset = struct.unpack("<IQ", _exact(f, 12))
        if offset % alignment:
            raise NotGguf(f"a tensor's offset {offset} is not aligned to {alignment}")
        size = tensor_bytes(ggml_type, dims)
        # an unknown (newer) type: at least its first byte must be there
        end = max(end, offset + (1 if size is None else size))
    data_offset = -(-f.tell() // alignment) * alignment
    return Layout(tensors, data_offset, data_offset + end)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _read_kv(f: BinaryIO) -> tuple[int, dict[str, Any]]:
    """(tensor count, the metadata), the file left at the first tensor record."""
    if f.read(4) != MAGIC:
        raise NotGguf("no GGUF signature")
    (version,) = struct.unpack("<I", _exact(f, 4))
    if version < 2:
        raise NotGguf(f"GGUF version {version} is too old")
    tensors, count = struct.unpack("<QQ", _exact(f, 16))
    if count > MAX_KEYS:
        raise NotGguf(f"{count} metadata keys")
    out: dict[str, Any] = {}
    for _ in range(count):
        key = _string(f)
        (vtype,) = struct.unpack("<I", _exact(f, 4))
        out[key] = _value(f, vtype)
    return tensors, out


def _exact(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise NotGguf("the file ends inside its header")
    return data


def _string(f: BinaryIO) -> str:
    (n,) = struct.unpack("<Q", _exact(f, 8))
    if n > MAX_STRING:
        raise NotGguf("a metadata string is too long")
    return _exact(f, n).decode("utf-8")


def _value(f: BinaryIO, vtype: int) -> Any:
    if vtype in _SCALARS:
        fmt = _SCALARS[vtype]
        return struct.unpack(fmt, _exact(f, struct.calcsize(fmt)))[0]
    if vtype == _STRING:
        return _string(f)
    if vtype == _ARRAY:
        (itype,) = struct.unpack("<I", _exact(f, 4))
        (n,) = struct.unpack("<Q", _exact(f, 8))
        if itype in _SCALARS:
            f.seek(struct.calcsize(_SCALARS[itype]) * n, 1)
        elif itype == _STRING:
            for _ in range(n):
                (size,) = struct.unpack("<Q", _exact(f, 8))
                f.seek(size, 1)
        else:
            for _ in range(n):
                _value(f, itype)
        return None
    raise NotGguf(f"unknown metadata type {vtype}")
