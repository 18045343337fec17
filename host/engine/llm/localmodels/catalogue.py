"""The shipped catalogue of tool-capable GGUF models (`catalogue.json` beside this file).

The file is data, so a release can update it without code changes; an entry whose facts could
not be checked says so (`sha256: null` with a `sha256Note`) instead of carrying an invented
value (docs/decisions.md, "Offline agent").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CATALOGUE_FILE = Path(__file__).with_name("catalogue.json")


@dataclass(frozen=True)
class CatalogueEntry:
    id: str
    name: str
    description: str
    file: str
    url: str
    size_bytes: int
    license: str
    context_length: int
    memory_bytes: int
    sha256: str | None
    sha256_note: str | None


def load_catalogue(path: Path = CATALOGUE_FILE) -> list[CatalogueEntry]:
    """Every entry of the catalogue file, in its order."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        CatalogueEntry(
            id=m["id"],
            name=m["name"],
            description=m.get("description", ""),
            file=m["file"],
            url=m["url"],
            size_bytes=int(m["sizeBytes"]),
            license=m["license"],
            context_length=int(m["contextLength"]),
            memory_bytes=int(m["memoryBytes"]),
            sha256=(m.get("sha256") or None),
            sha256_note=m.get("sha256Note"),
        )
        for m in raw["models"]
    ]


@lru_cache(maxsize=1)
def shipped() -> tuple[CatalogueEntry, ...]:
    return tuple(load_catalogue())


def entry(catalog_id: str) -> CatalogueEntry | None:
    return next((e for e in shipped() if e.id == catalog_id), None)
