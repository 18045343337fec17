"""The runner's one unsandboxed path on a person's repository (docs/decisions/commit-and-push.md;
docs/threat-model.md, "The one unsandboxed git"): only a commit whose hooks run and a push use
it; it refuses any other purpose; it never waits on a terminal (the push over ssh to a real
OpenSSH server is in tests/api/test_git_commit.py)."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from host.engine.files.git import layout
from host.engine.files.git.runner import BATCH_SSH, PersonGit, _person_env
from tests.support.git_repos import place

__all__ = ["place"]

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {
    ("host/engine/files/git/commits.py", "commit"): "commit-with-hooks",
    ("host/engine/files/git/commits.py", "push"): "push",
}
"""(file, function) → the one purpose it may pass to the person's git."""
HOLDERS = {
    ("host/engine/files/git/runner.py", None),
    ("host/engine/engine.py", "open"),
    ("host/engine/files/git/commits.py", "__init__"),
}
"""Where the person's git may be named without being run: its definition, the engine building it,
and the one class holding it."""


def _uses() -> list[tuple[str, str | None, str, str | None]]:
    """(file, enclosing function, what, purpose) of every mention of the person's git in host/
    and desktop/: the class by name, an attribute holding it (`_person`), a call passing
    `purpose=`."""
    found: list[tuple[str, str | None, str, str | None]] = []
    for top in ("host", "desktop"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(), rel)

            def visit(node: ast.AST, func: str | None, rel: str = rel) -> None:
                for child in ast.iter_child_nodes(node):
                    here = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else func
                    if isinstance(child, ast.Name) and child.id == "PersonGit":
                        found.append((rel, func, "PersonGit", None))
                    if isinstance(child, ast.Attribute) and child.attr == "_person":
                        found.append((rel, func, "_person", None))
                    if isinstance(child, ast.Call):
                        for kw in child.keywords:
                            if kw.arg == "purpose":
                                value = kw.value.value if isinstance(kw.value, ast.Constant) else None
                                found.append(
                                    (rel, func, "purpose", str(value) if value is not None else None)
                                )
                    visit(child, here)

            visit(tree, None)
    return found


def init(folder: Path) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)


def test_only_a_commit_with_hooks_and_a_push_use_the_persons_git() -> None:
    uses = _uses()
    purposes = [(f, fn, p) for f, fn, what, p in uses if what == "purpose"]
    assert sorted(purposes) == sorted((f, fn, p) for (f, fn), p in ALLOWED.items()), purposes
    for f, fn, what, _ in uses:
        if what == "purpose":
            continue
        fine = (f, fn) in ALLOWED or (f, fn) in HOLDERS or (f, None) in HOLDERS
        assert fine, f"{f}:{fn} names the person's git ({what}): only commit-with-hooks and push may"
    assert any(f == "host/engine/engine.py" for f, _, what, _ in uses if what == "PersonGit"), "the scan sees"


async def test_any_other_purpose_is_refused(place: Path) -> None:
    init(place / "r")
    found = layout.find(place / "r")
    assert found is not None
    with pytest.raises(ValueError):
        await PersonGit().run(found, ["status"], purpose="status")  # type: ignore[arg-type]
    done = await PersonGit().run(found, ["rev-parse", "--git-dir"], purpose="push")
    assert done.ok and done.stdout.strip() == b".git"


def test_the_persons_git_never_waits_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_SSH_COMMAND", raising=False)
    monkeypatch.delenv("GIT_SSH", raising=False)
    env = _person_env(ssh_configured=False)
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["GIT_SSH_COMMAND"] == BATCH_SSH
    assert env["SSH_ASKPASS_REQUIRE"] == "never" and env["GIT_EDITOR"] == ":"
    assert "GIT_SSH_COMMAND" not in _person_env(ssh_configured=True), "the person's own ssh command stays"
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh -F /elsewhere")
    assert _person_env(ssh_configured=False)["GIT_SSH_COMMAND"] == "ssh -F /elsewhere"


def test_the_persons_environment_keeps_their_tokens_but_not_the_hosts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from host.engine.files.git.runner import person_environment
    from host.engine.sandbox.secret_values import remember

    remember("sk-host-known-key-123456")
    monkeypatch.setenv("GH_TOKEN", "ghp_the_persons_own_token")
    monkeypatch.setenv("HARNESSDESK_TOKEN_FILE", "/somewhere/token")
    monkeypatch.setenv("COPIED_KEY", "prefix-sk-host-known-key-123456")
    env = person_environment()
    assert env["GH_TOKEN"] == "ghp_the_persons_own_token", "their credential helper may need it"
    assert "HARNESSDESK_TOKEN_FILE" not in env and "COPIED_KEY" not in env
