"""Imported sessions work where the importing user says (docs/threat-model.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from host.engine.store import ExportHeader, ExportRow


def rows_with_cwd(rows: Iterable[ExportRow], cwd: str) -> list[ExportRow]:
    """The rows with the header's cwd replaced by `cwd` (an existing directory, resolved): the
    archive's own cwd is never used. ValueError when `cwd` is not a directory."""
    chosen = os.path.realpath(os.path.expanduser(cwd))
    if not os.path.isdir(chosen):
        raise ValueError(f"{chosen} is not a directory")
    out: list[ExportRow] = []
    for row in rows:
        if isinstance(row, ExportHeader):
            header = json.loads(row.json)
            header["cwd"] = chosen
            row = ExportHeader(json.dumps(header, ensure_ascii=False, separators=(",", ":")))
        out.append(row)
    return out
