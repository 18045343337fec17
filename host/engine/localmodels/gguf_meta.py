"""Reads the few GGUF header fields the model library needs, without loading the model.

A GGUF file starts with `GGUF`, a version, the tensor and key/value counts, then typed key/value
pairs (docs/decisions.md, "Offline agent"). Only string and integer values are kept; arrays
(the tokenizer's vocabulary) are skipped without being decoded. The reader stops after the
key/value section, so a 5 GB model costs a few megabytes of reading.
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


class NotGguf(ValueError):
    """The file is not a readable GGUF model."""


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
            values = _read_kv(f)
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


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _read_kv(f: BinaryIO) -> dict[str, Any]:
    if f.read(4) != MAGIC:
        raise NotGguf("no GGUF signature")
    (version,) = struct.unpack("<I", _exact(f, 4))
    if version < 2:
        raise NotGguf(f"GGUF version {version} is too old")
    _tensors, count = struct.unpack("<QQ", _exact(f, 16))
    if count > MAX_KEYS:
        raise NotGguf(f"{count} metadata keys")
    out: dict[str, Any] = {}
    for _ in range(count):
        key = _string(f)
        (vtype,) = struct.unpack("<I", _exact(f, 4))
        out[key] = _value(f, vtype)
    return out


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
