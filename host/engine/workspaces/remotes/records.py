"""The remote hosts a person added: `<data dir>/remotes.json` (docs/decisions.md, "Remote hosts").

Only what identifies a host and how to reach it: never a password, a passphrase or a token
(ssh keeps the person's keys and known_hosts; the remote's token lives in memory). A file that
cannot be used is never written over: the host starts with no remote hosts and says why.
"""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from host.engine.settings.files import FileProblem, read_json, write_private

log = logging.getLogger(__name__)

FILE = "remotes.json"


@dataclass
class RemoteRecord:
    host_id: str
    target: str
    name: str
    mode: str = "detached"
    settings_from: str = "here"
    auto_connect: bool = False
    """Connected when the app last ran: connected again at start."""

    @classmethod
    def from_json(cls, data: Any) -> RemoteRecord | None:
        if not isinstance(data, dict):
            return None
        try:
            record = cls(
                host_id=str(data["hostId"]),
                target=str(data["target"]),
                name=str(data.get("name") or data["target"]),
                mode="attached" if data.get("mode") == "attached" else "detached",
                settings_from="remote" if data.get("settingsFrom") == "remote" else "here",
                auto_connect=bool(data.get("autoConnect", False)),
            )
        except KeyError:
            return None
        return record if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", record.host_id) else None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {
            "hostId": d["host_id"],
            "target": d["target"],
            "name": d["name"],
            "mode": d["mode"],
            "settingsFrom": d["settings_from"],
            "autoConnect": d["auto_connect"],
        }


def new_host_id() -> str:
    return "h-" + secrets.token_hex(6)


@dataclass
class RemoteRecords:
    path: Path
    items: dict[str, RemoteRecord] = field(default_factory=dict)
    problem: str | None = None

    @classmethod
    def read(cls, data_dir: Path) -> RemoteRecords:
        path = data_dir / FILE
        records = cls(path)
        try:
            data = read_json(path)
        except FileProblem as exc:
            records.problem = str(exc)
            log.warning("not using %s: %s", path, exc)
            return records
        for entry in (data or {}).get("hosts", []) if isinstance((data or {}).get("hosts"), list) else []:
            record = RemoteRecord.from_json(entry)
            if record is not None:
                records.items[record.host_id] = record
        return records

    def save(self) -> None:
        """Write every record (atomically); refused while the file cannot be used."""
        if self.problem is not None:
            raise OSError(f"{self.path.name} cannot be used ({self.problem}); fix or remove it first")
        write_private(self.path, {"version": 1, "hosts": [r.to_json() for r in self.items.values()]})
