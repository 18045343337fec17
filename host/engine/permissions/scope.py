"""What "Allow always" remembers: a scope per call, never every call of a tool.

- `bash`: the command's leading words (`words:npm test` covers `npm test --watch`, never
  `npm install` or `npm test && rm -rf x`). A command that chains, pipes, redirects, substitutes
  or goes through a wrapper (`sudo`, `bash -c`, `xargs`, `python -c` …) cannot be summed up by
  its first words: its rule is the exact command (`exact:…`).
- file tools (`write_file`, `edit_file`, any tool with a `path`): the workspace, i.e. the
  session's folder (`workspace:/home/me/project`).
- an MCP tool (`mcp__server__tool`): that one tool in the session's project
  (`project:/home/me/project`), never the whole server (docs/decisions.md, "MCP servers").
- any other tool: its exact arguments (`args:{…}`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

from host.engine.project import project_root

WORDS, EXACT, WORKSPACE, ARGS, PROJECT = "words:", "exact:", "workspace:", "args:", "project:"
MCP_PREFIX = "mcp__"

COMPOUND = re.compile(r"[;&|<>`\n\r()]|\$\(|\$\{")
"""Shell syntax that makes a command more than one program with arguments."""
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SUBCOMMAND = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]*$")
WRAPPERS = frozenset(
    "sudo doas su env bash sh zsh dash fish ksh xargs timeout nice nohup time exec eval command builtin"
    " ssh watch strace stdbuf chroot unshare setsid parallel script".split()
)
"""Programs that run another command taken from their arguments."""
INTERPRETERS = frozenset("python python3 node perl ruby php lua deno bun pwsh powershell osascript".split())
"""Programs whose options run code (`python -c`): only `python script.py` gets a words rule."""


def bash_words(command: str) -> list[str] | None:
    """The words a rule for `command` remembers, or None when only the exact command can be."""
    text = command.strip()
    if not text or COMPOUND.search(text):
        return None
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        return None
    program = os.path.basename(words[0]) if words else ""
    if not words or ASSIGNMENT.match(words[0]) or program in WRAPPERS:
        return None
    head = [words[0]]
    second = words[1] if len(words) > 1 else None
    if second is not None and SUBCOMMAND.match(second):
        head.append(second)
    if program in INTERPRETERS and len(head) < 2:
        return None  # `python -c …` or a bare REPL: nothing narrower than the exact command
    return head


def scope_for(tool: str, arguments: dict[str, Any], cwd: Path, has_path: bool) -> str:
    """The scope an "Allow always" answer to this call remembers."""
    if tool == "bash":
        command = str(arguments.get("command", ""))
        words = bash_words(command)
        return WORDS + " ".join(words) if words is not None else EXACT + command.strip()
    if tool.startswith(MCP_PREFIX):
        return PROJECT + str(project_root(Path(os.path.realpath(cwd))))
    if has_path:
        return WORKSPACE + os.path.realpath(cwd)
    return ARGS + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def covers(scope: str, tool: str, arguments: dict[str, Any], cwd: Path, has_path: bool) -> bool:
    """Whether a rule with `scope` (for `tool`) allows this call."""
    if tool == "bash":
        command = str(arguments.get("command", ""))
        if scope.startswith(WORDS):
            words = bash_words(command)
            rule = scope[len(WORDS) :].split(" ")
            return words is not None and shlex.split(command)[: len(rule)] == rule
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
    if scope.startswith(WORDS):
        return f"{tool}: {scope[len(WORDS) :]} …"
    if scope.startswith(EXACT):
        return f"{tool}: exactly `{scope[len(EXACT) :]}`"
    if scope.startswith(WORKSPACE):
        return f"{tool}: anywhere in {scope[len(WORKSPACE) :]}"
    if scope.startswith(PROJECT):
        return f"{tool}: every call in the project {scope[len(PROJECT) :]}"
    if scope.startswith(ARGS):
        return f"{tool}: these exact arguments {scope[len(ARGS) :]}"
    return f"{tool}: every call"
