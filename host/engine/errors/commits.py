"""Commit, push and pull request (docs/decisions/commit-and-push.md): each failure is one plain
sentence, with git's own output in `details.output` for the disclosure under it."""

from __future__ import annotations

import re

from contract.errors import GitOutputDetails, NoDetails, SessionDetails
from host.engine.errors.base import EngineError
from host.engine.sandbox.secret_values import redact

OUTPUT_CAP = 8000
"""git's output kept for the disclosure: its last characters (where git says what went wrong)."""


_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE)


def _tail(output: str) -> str:
    """The end of git's output, with any `user:password@` of an address and any key the host
    knows taken out (secrets never in a response)."""
    return redact(_USERINFO.sub(r"\1", output[-OUTPUT_CAP:])).strip()


class NothingStaged(EngineError[SessionDetails]):
    code = "nothing-staged"

    def __init__(self, session_id: str) -> None:
        super().__init__(
            "Nothing is staged: stage the changes to commit first.", SessionDetails(session_id=session_id)
        )


class GitIdentityMissing(EngineError[NoDetails]):
    """The person has no git identity; the host never invents one."""

    code = "git-identity-missing"

    def __init__(self) -> None:
        super().__init__(
            "Git does not know who you are: set your name and email with"
            ' git config --global user.name "Your Name" and git config --global user.email you@example.com.',
            NoDetails(),
        )


class PushRejected(EngineError[GitOutputDetails]):
    code = "push-rejected"

    def __init__(self, remote: str, output: str) -> None:
        super().__init__(
            f"{remote} refused the push: it has commits this branch does not have; pull them first.",
            GitOutputDetails(output=_tail(output)),
        )


class NoRemote(EngineError[GitOutputDetails]):
    code = "no-remote"

    def __init__(self, message: str = "This repository has no remote to push to.", output: str = "") -> None:
        super().__init__(message, GitOutputDetails(output=_tail(output)))


class AuthFailed(EngineError[GitOutputDetails]):
    code = "auth-failed"

    def __init__(self, remote: str, output: str) -> None:
        super().__init__(
            f"{remote} did not accept your credentials (your ssh key or credential helper).",
            GitOutputDetails(output=_tail(output)),
        )


class GitFailed(EngineError[GitOutputDetails]):
    """git (or `gh`) failed for another reason: a hook refused the commit, a timeout …"""

    code = "git-failed"

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message, GitOutputDetails(output=_tail(output)))
