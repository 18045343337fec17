"""The installed models: `<data dir>/models/<id>.gguf`, each with its `<id>.json` record.

A model is listed only when both files exist: the GGUF is moved into place first, then its
record is written atomically, so a crash in between leaves an unlisted file that the next start
removes (docs/decisions.md, "Offline agent"). Downloads in progress live under `.downloads/`
and are never listed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from host.engine.llm.localmodels.gguf_meta import GgufInfo

MODELS_DIR = "models"
PARTIAL_DIR = ".downloads"
MODEL_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


@dataclass(frozen=True)
class InstalledModel:
    id: str
    name: str
    file: str
    size_bytes: int
    sha256: str
    supports_tools: bool
    context_length: int | None = None
    license: str | None = None
    catalog_id: str | None = None
    source: str | None = None
    """The URL it came from (a local file's path for a copied file)."""
    installed_at: float = 0.0

    def path(self, root: Path) -> Path:
        return root / self.file


def slug(text: str) -> str:
    """A model id from a file name or title: lower case, [a-z0-9._-], at most 80 characters."""
    out = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-._")[:80]
    return out or "model"


class ModelLibrary:
    def __init__(self, data_dir: Path) -> None:
        self.root = Path(data_dir) / MODELS_DIR
        self.partial_root = self.root / PARTIAL_DIR
        self._models: dict[str, InstalledModel] = {}

    def open(self) -> None:
        """Read the records (blocking: call off the event loop); drop GGUF files without one."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.partial_root.mkdir(exist_ok=True)
        found: dict[str, InstalledModel] = {}
        for record in sorted(self.root.glob("*.json")):
            try:
                model = InstalledModel(**json.loads(record.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError):
                continue
            if model.path(self.root).is_file():
                found[model.id] = model
        for gguf in self.root.glob("*.gguf"):
            if not any(m.file == gguf.name for m in found.values()):
                with contextlib.suppress(OSError):
                    gguf.unlink()  # moved in, but its record was never written
        for tmp in self.root.glob(".*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()
        self._models = found

    def list(self) -> list[InstalledModel]:
        return sorted(self._models.values(), key=lambda m: m.installed_at)

    def get(self, model_id: str) -> InstalledModel | None:
        return self._models.get(model_id)

    def free_id(self, wanted: str) -> str:
        base = slug(wanted)
        candidate, n = base, 2
        while candidate in self._models or (self.root / f"{candidate}.gguf").exists():
            candidate, n = f"{base}-{n}", n + 1
        return candidate

    def install(
        self, partial: Path, model_id: str, name: str, sha256: str, info: GgufInfo, **extra: object
    ) -> InstalledModel:
        """Move a verified, fsynced file into place and write its record (blocking)."""
        file = f"{model_id}.gguf"
        model = InstalledModel(
            id=model_id,
            name=name,
            file=file,
            size_bytes=partial.stat().st_size,
            sha256=sha256,
            supports_tools=info.declares_tools,
            context_length=info.context_length,
            installed_at=time.time(),
            **extra,  # type: ignore[arg-type]
        )
        os.replace(partial, self.root / file)
        _write_atomic(self.root / f"{model_id}.json", json.dumps(asdict(model), indent=2).encode())
        _fsync_dir(self.root)
        self._models[model_id] = model
        return model

    def remove(self, model_id: str) -> bool:
        """Forget the record first (the model stops being listed), then free the file."""
        model = self._models.pop(model_id, None)
        if model is None:
            return False
        with contextlib.suppress(FileNotFoundError):
            (self.root / f"{model_id}.json").unlink()
        with contextlib.suppress(FileNotFoundError):
            model.path(self.root).unlink()
        return True


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


write_atomic = _write_atomic
