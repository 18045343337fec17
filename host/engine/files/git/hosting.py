"""A pull request for a pushed branch (docs/decisions/commit-and-push.md): with the `gh` CLI
installed and logged in, `gh pr create`; otherwise the hosting site's page that opens one
(GitHub, GitLab, Bitbucket; other hosts get GitHub's form, which Gitea and Forgejo share), for
the person to submit in their browser.

`gh` is not git, but it runs git in the folder: it starts only on the person's click, in a
folder that is trusted or whose configuration names no program (the rule of docs/decisions.md,
"The host's git"), never asks on a terminal and is bounded in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from host.engine.files.git.runner import person_environment

GH_BOUND = 60.0
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(.+)$")


@dataclass(frozen=True)
class Hosted:
    """Where a remote lives on the web: `https://host/owner/repo`, and the kind of site."""

    web: str
    kind: str
    """`github`, `gitlab`, `bitbucket`, or `other` (GitHub's form)."""


def hosted(remote_url: str) -> Hosted | None:
    """The web page of a remote (`git@github.com:o/r.git`, `ssh://git@host:22/o/r`,
    `https://user:secret@host/o/r.git` — the user part is never kept), or None for a remote that
    is no hosting site (a path, `file://`)."""
    url = remote_url.strip()
    host: str | None
    path: str
    if "://" in url:
        parts = urlsplit(url)
        if parts.scheme not in ("ssh", "git", "http", "https", "git+ssh", "ssh+git"):
            return None
        host, path = parts.hostname, parts.path
    else:
        match = _SCP.match(url)
        if match is None or url.startswith(("/", ".")):
            return None
        host, path = match.group(1), match.group(2)
    if not host:
        return None
    path = path.strip("/").removesuffix(".git").strip("/")
    if path.count("/") < 1:
        return None
    name = host.lower()
    kind = (
        "github"
        if "github" in name
        else "gitlab"
        if "gitlab" in name
        else "bitbucket"
        if "bitbucket" in name
        else "other"
    )
    return Hosted(f"https://{name}/{quote(path)}", kind)


def compare_url(site: Hosted, base: str, branch: str, title: str, body: str) -> str:
    """The page that opens a pull (merge) request of `branch` into `base`, title and body filled
    in where the site takes them from the address."""
    if site.kind == "gitlab":
        query = urlencode(
            {
                "merge_request[source_branch]": branch,
                "merge_request[target_branch]": base,
                "merge_request[title]": title,
                "merge_request[description]": body,
            }
        )
        return f"{site.web}/-/merge_requests/new?{query}"
    if site.kind == "bitbucket":
        return f"{site.web}/pull-requests/new?{urlencode({'source': branch, 'dest': base})}"
    query = urlencode({"expand": "1", "title": title, "body": body})
    return f"{site.web}/compare/{quote(base, safe='')}...{quote(branch, safe='')}?{query}"


def gh_program(env: dict[str, str] | None = None) -> str | None:
    """The `gh` on the person's PATH, or None."""
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    return shutil.which("gh", path=path)


def _gh_env() -> dict[str, str]:
    env = person_environment()  # gh's own login, or the person's GH_TOKEN
    env.update(
        {"GH_PROMPT_DISABLED": "1", "GIT_TERMINAL_PROMPT": "0", "NO_COLOR": "1", "GH_NO_UPDATE_NOTIFIER": "1"}
    )
    return env


async def _gh(program: str, top: Path, args: list[str], bound: float) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        program,
        *args,
        cwd=str(top),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=_gh_env(),
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), bound)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        await asyncio.shield(proc.wait())
        raise
    return proc.returncode or 0, out.decode("utf-8", "replace").strip()


async def gh_logged_in(program: str, top: Path) -> bool:
    code, _ = await _gh(program, top, ["auth", "status"], GH_BOUND)
    return code == 0


async def gh_create(
    program: str, top: Path, base: str, branch: str, title: str, body: str
) -> tuple[bool, str]:
    """(created, the pull request's address or gh's output)."""
    code, out = await _gh(
        program,
        top,
        ["pr", "create", "--base", base, "--head", branch, "--title", title, "--body", body],
        GH_BOUND,
    )
    urls = re.findall(r"https://\S+", out)
    return code == 0 and bool(urls), urls[-1] if code == 0 and urls else out
