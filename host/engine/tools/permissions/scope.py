"""What "Allow always" remembers: a scope per call, never every call of a tool, and never wider
than the call the person saw (docs/decisions.md, "Grants cannot widen").

- `bash`: the command's *shape* (`shape:{…}`): its program, its subcommand and the set of its
  options. A later command is covered only if it has the very same shape (other operands are
  fine: `sed -n 1p a.txt` covers `sed -n 5p b.txt`, never `sed -i …` nor `sed -n '1e …'`).
  A command that is not one simple command (chains, pipes, redirections, substitutions,
  expansions) or that runs its arguments as code (`code_runners.runs_code`) gets the exact
  command (`exact:…`), and is never covered by a shape.
- file tools (`write_file`, `edit_file`, any tool with a `path`): the workspace, i.e. the
  session's folder (`workspace:/home/me/project`).
- an MCP tool (`mcp__server__tool`): that one tool in the session's project
  (`project:/home/me/project`), never the whole server (docs/decisions.md, "MCP servers").
- any other tool: its exact arguments (`args:{…}`).

`words:` rules of an earlier version (a command's first words, which let `find -name` cover
`find -exec`) are never honoured, like the whole-tool rules before them: `covers` is False for
them and the list says so, so the person can revoke them.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.approvals import AllowAlways, ScopeWords
from host.engine.sessions.project import project_root
from host.engine.tools.permissions.code_runners import INTERPRETER, program_name, runs_code
from host.engine.tools.permissions.shellwords import simple_words

SHAPE, EXACT, WORKSPACE, ARGS, PROJECT = "shape:", "exact:", "workspace:", "args:", "project:"
LEGACY_WORDS = "words:"
MCP_PREFIX = "mcp__"

ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SUBCOMMAND = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]*$")
SUBCOMMAND_TOOLS = frozenset(
    "git npm pnpm yarn cargo go uv pip pip3 poetry gh dotnet bundle gem composer mvn gradle make"
    " rustup conda mamba brew apt apt-get".split()
)
"""Programs whose leading options may take a value that looks like a subcommand (`npm --prefix
x test`, `make -C dir`): with such options only the exact command is remembered (git's own
value-less leading flags are the exception, `code_runners.GIT_FLAG_GLOBALS`)."""


@dataclass(frozen=True)
class Shape:
    """What a bash grant compares: `prefix` (the program and its subcommand, literally) and the
    set of option words anywhere after it (`--opt=value` counts as `--opt=`)."""

    prefix: tuple[str, ...]
    options: tuple[str, ...]

    def scope(self) -> str:
        return SHAPE + json.dumps({"prefix": self.prefix, "options": self.options}, separators=(",", ":"))

    def words(self) -> str:
        return " ".join(shlex.quote(w) for w in (*self.prefix, *self.options))


def is_option(word: str) -> bool:
    return word.startswith("-") and word != "-"


def option_key(word: str) -> str:
    return word.split("=", 1)[0] + "=" if word.startswith("--") and "=" in word else word


def bash_shape(command: str) -> Shape | None:
    """The shape a rule for `command` remembers, or None when only the exact command can be."""
    words = simple_words(command.strip())
    if not words or ASSIGNMENT.match(words[0]) or runs_code(words):
        return None
    program = program_name(words[0])
    rest = words[1:]
    prefix = [words[0]]
    i = 0
    if program == "git":
        while i < len(rest) and is_option(rest[i]):  # value-less flags (runs_code checked them)
            prefix.append(rest[i])
            i += 1
    elif program in SUBCOMMAND_TOOLS and rest and is_option(rest[0]):
        return None
    if INTERPRETER.match(program):
        while i < len(rest) and is_option(rest[i]):  # `-m module` / safe flags, then the script
            prefix.append(rest[i])
            i += 1
        if i < len(rest):
            prefix.append(rest[i])
            i += 1
    elif i < len(rest) and SUBCOMMAND.match(rest[i]):
        prefix.append(rest[i])
        i += 1
    options: set[str] = set()
    for w in rest[i:]:
        if w == "--":
            options.add(w)
            break
        if is_option(w):
            options.add(option_key(w))
    return Shape(tuple(prefix), tuple(sorted(options)))


def _stored_shape(scope: str) -> Shape | None:
    try:
        data = json.loads(scope[len(SHAPE) :])
        return Shape(tuple(data["prefix"]), tuple(data["options"]))
    except (ValueError, KeyError, TypeError):
        return None


def scope_for(tool: str, arguments: dict[str, Any], cwd: Path, has_path: bool) -> str:
    """The scope an "Allow always" answer to this call remembers."""
    if tool == "bash":
        command = str(arguments.get("command", ""))
        shape = bash_shape(command)
        return shape.scope() if shape is not None else EXACT + command.strip()
    if tool.startswith(MCP_PREFIX):
        return PROJECT + str(project_root(Path(os.path.realpath(cwd))))
    if has_path:
        return WORKSPACE + os.path.realpath(cwd)
    return ARGS + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def covers(scope: str, tool: str, arguments: dict[str, Any], cwd: Path, has_path: bool) -> bool:
    """Whether a rule with `scope` (for `tool`) allows this call."""
    if tool == "bash":
        command = str(arguments.get("command", ""))
        if scope.startswith(SHAPE):
            stored = _stored_shape(scope)
            return stored is not None and bash_shape(command) == stored
        return scope.startswith(EXACT) and scope[len(EXACT) :] == command.strip()
    if scope.startswith(PROJECT):
        here = str(project_root(Path(os.path.realpath(cwd))))
        return tool.startswith(MCP_PREFIX) and scope[len(PROJECT) :] == here
    if scope.startswith(WORKSPACE):
        if not has_path:
            return False
        root = scope[len(WORKSPACE) :]
        target = os.path.realpath(os.path.join(cwd, str(arguments.get("path", "."))))
        return os.path.realpath(cwd) == root and (target == root or target.startswith(root + os.sep))
    return scope == ARGS + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def label(tool: str, scope: str) -> str:
    """The rule in words, for the permissions list."""
    if scope.startswith(SHAPE):
        stored = _stored_shape(scope)
        return f"{tool}: {stored.words() if stored else '?'} …"
    if scope.startswith(EXACT):
        return f"{tool}: exactly `{scope[len(EXACT) :]}`"
    if scope.startswith(LEGACY_WORDS):
        return (
            f"{tool}: {scope[len(LEGACY_WORDS) :]} … (an earlier version's rule: no longer used, asks again)"
        )
    if scope.startswith(WORKSPACE):
        return f"{tool}: anywhere in {scope[len(WORKSPACE) :]}"
    if scope.startswith(PROJECT):
        return f"{tool}: every call in the project {scope[len(PROJECT) :]}"
    if scope.startswith(ARGS):
        return f"{tool}: these exact arguments {scope[len(ARGS) :]}"
    return f"{tool}: every call"


def scope_words(scope: str) -> ScopeWords:
    """`label`'s parts, for a client that words the rule in its own language (docs/decisions.md,
    "Languages")."""
    if scope.startswith(SHAPE):
        stored = _stored_shape(scope)
        return ScopeWords(kind="command", subject=stored.words() if stored else "?")
    for prefix, kind in (
        (EXACT, "exact-command"),
        (LEGACY_WORDS, "legacy"),
        (WORKSPACE, "folder"),
        (PROJECT, "project"),
        (ARGS, "exact-arguments"),
    ):
        if scope.startswith(prefix):
            return ScopeWords(kind=kind, subject=scope[len(prefix) :])  # type: ignore[arg-type]
    return ScopeWords(kind="any")


def always_words(tool: str, scope: str) -> AllowAlways:
    """The button and the sentence naming what an "Allow always" answer would remember, as the
    approval request carries them (every client shows the same words before the click)."""
    if scope.startswith(SHAPE):
        stored = _stored_shape(scope)
        shown = stored.words() if stored else "?"
        words = ScopeWords(kind="command", subject=shown)
        return _always("Allow always", f"Always allow `{shown} …` in this session", False, words)
    if scope.startswith(EXACT):
        words = ScopeWords(kind="exact-command", subject=scope[len(EXACT) :])
        return _always("Allow this exact command always", "Always allow exactly this command", True, words)
    if scope.startswith(WORKSPACE):
        where = scope[len(WORKSPACE) :]
        words = ScopeWords(kind="folder", subject=where)
        return _always(
            "Allow always", f"Always allow {tool} anywhere in {where} in this session", False, words
        )
    exactly = f"Always allow {tool} with exactly these arguments"
    words = ScopeWords(kind="exact-arguments")
    return _always("Allow these exact arguments always", exactly, True, words)


def _always(button: str, text: str, exact: bool, words: ScopeWords) -> AllowAlways:
    return AllowAlways(button=button, text=text, exact=exact, words=words)
