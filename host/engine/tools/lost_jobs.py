"""Background jobs a host crash took with it (docs/architecture.md, "Background jobs").

While a job runs, a small manifest `<job file>.json` sits beside its output file under
`<data dir>/jobs/`; the job's end removes it, a clean close removes the whole folder. So a
manifest found at start names a job the previous run lost in a crash: it is listed as `killed`,
"stopped: the app closed" (with the output it had captured), and its session is told
(docs/decisions.md "Crash windows").
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from contract.jobs import JobView

log = logging.getLogger(__name__)

APP_CLOSED = "stopped: the app closed"


def manifest_path(output: Path) -> Path:
    return output.with_name(output.name + ".json")


def write_manifest(output: Path, session_id: str, job_id: str, label: str, started_at: int) -> None:
    """Before the command starts: a crash from here on leaves the manifest behind."""
    data = {"sessionId": session_id, "jobId": job_id, "label": label, "startedAt": started_at}
    target = manifest_path(output)
    tmp = target.with_name(target.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(tmp, target)


def remove_manifest(output: Path) -> None:
    with contextlib.suppress(OSError):
        manifest_path(output).unlink()


@dataclass(frozen=True)
class LostJob:
    session_id: str
    view: JobView
    output: Path
    """What it printed before the crash (read by `job.output`; removed with the folder)."""


def find_lost(directory: Path) -> list[LostJob]:
    """The jobs whose manifest survived the previous run, oldest first. A manifest that cannot be
    read is logged and skipped: it never stops the app from starting."""
    lost: list[LostJob] = []
    if not directory.is_dir():
        return lost
    for manifest in sorted(directory.glob("*.log.json")):
        output = manifest.with_name(manifest.name.removesuffix(".json"))
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            ended = output.stat().st_mtime_ns // 1_000_000 if output.exists() else None
            started = int(data["startedAt"])
            view = JobView(
                id=str(data["jobId"]),
                kind="bash",
                label=str(data["label"]),
                status="killed",
                detail=APP_CLOSED,
                started_at=started,
                finished_at=max(started, ended) if ended is not None else started,
            )
            lost.append(LostJob(str(data["sessionId"]), view, output))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("a lost job's record %s cannot be read: %s", manifest, exc)
    lost.sort(key=lambda j: j.view.started_at)
    return lost


def read_output(path: Path, offset: int | None, limit: int) -> tuple[bytes, int, int]:
    """(bytes, their offset, file size) of a lost job's output; empty when the file is gone."""
    try:
        with path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            start = max(0, size - limit) if offset is None else min(offset, size)
            fh.seek(start)
            return fh.read(limit), start, size
    except OSError:
        return b"", 0, 0


def lost_text(job: LostJob) -> str:
    """What the session (and its agent) is told about a job lost to a crash."""
    return (
        f"Background job {job.view.id} was {APP_CLOSED} while it ran (a crash): it no longer "
        f"runs and its outcome is unknown.\nCommand: {job.view.label}\n"
        f'Output it captured: job_output {{"jobId": "{job.view.id}"}}'
    )
