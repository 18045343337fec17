"""The review pane's git (docs/decisions/review-pane.md)."""

from __future__ import annotations

from contract.errors import RepositoryDetails, StaleDiffDetails
from host.engine.errors.base import EngineError


class StaleDiff(EngineError[StaleDiffDetails]):
    """A hunk or file the request names is not what git shows now: nothing was written."""

    code = "stale-diff"

    def __init__(self, session_id: str, paths: list[str]) -> None:
        shown = ", ".join(paths[:5]) or "the diff"
        super().__init__(
            f"The changes to {shown} are not what the review pane showed; nothing was changed."
            " Refresh and try again.",
            StaleDiffDetails(session_id=session_id, paths=paths[:50]),
        )


class RepositoryUntrusted(EngineError[RepositoryDetails]):
    """The repository's configuration names programs and the folder is not trusted: the host
    runs no git there (docs/decisions.md, "The host's git")."""

    code = "repository-untrusted"

    def __init__(self, path: str, findings: list[str], message: str | None = None) -> None:
        shown = ", ".join(findings[:3])
        text = message or (
            f"The git configuration of {path} names programs git would run ({shown}): trust the folder"
            " first, then try again."
        )
        super().__init__(text, RepositoryDetails(path=path, findings=findings[:10]))
