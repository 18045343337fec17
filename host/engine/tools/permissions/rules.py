"""Rules a person writes once, by pattern (the `permission` namespace's `rules`: docs/decisions.md,
"Rules by pattern").

- `bash`: the pattern's words are the command's first words; a trailing `*` matches any further
  text (`npm run test*` covers `npm run test:unit --ci`; `npm run test *` needs a space first),
  no `*` only the very command. A command is matched only when it is one simple command that runs
  nothing taken from its arguments (`scope.bash_shape`: the same checks that keep a remembered
  `find -name` from covering `find -exec`), so `echo *` never covers `echo x; rm -rf ~` nor
  `bash -c …`, and `git *` never covers `git -c core.pager=… log`. The pattern's exact command is
  the one exception: written out whole, it is what the person meant.
- `web_fetch`: the URL's host is the domain, or below it for `*.python.org`.
- `mcp`: `server/tool` of an MCP tool, `server/*` or `server/prefix*`.

A rule applies everywhere (`folder` null) or in its folder and below, by real path. A matching
`deny` wins over every `allow`, in every mode; an `allow` never covers what leaves the sandbox
(`network: true`, `outside_sandbox: true`), which asks every time.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from contract.approvals import RuleSuggestion
from contract.permissions import PatternRule, pattern_problem
from host.engine.tools.permissions.scope import MCP_PREFIX, bash_shape
from host.engine.tools.permissions.shellwords import simple_words

WEB_FETCH = "web_fetch"


def subject(tool: Any, name: str, arguments: dict[str, Any]) -> tuple[str, str] | None:
    """(rule tool, what its patterns are matched against) for this call; None when no pattern
    rule speaks of it."""
    if name == "bash":
        command = arguments.get("command")
        return ("bash", command.strip()) if isinstance(command, str) else None
    if name == WEB_FETCH:
        url = arguments.get("url")
        host = _host(url) if isinstance(url, str) else None
        return (WEB_FETCH, host) if host else None
    server, raw = getattr(tool, "server", None), getattr(tool, "raw_name", None)
    if name.startswith(MCP_PREFIX) and isinstance(server, str) and isinstance(raw, str):
        return ("mcp", f"{server}/{raw}")
    return None


def _host(url: str) -> str | None:
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


def matches(rule: PatternRule, kind: str, text: str) -> bool:
    """Whether `rule`'s pattern covers `text` (a command, a host, `server/tool`)."""
    if rule.tool != kind:
        return False
    if kind == "bash":
        return command_matches(rule.pattern, text)
    if kind == WEB_FETCH:
        if rule.pattern.startswith("*."):
            return text.endswith(rule.pattern[1:])
        return text == rule.pattern
    if rule.pattern.endswith("*"):
        return text.startswith(rule.pattern[:-1])
    return text == rule.pattern


def command_matches(pattern: str, command: str) -> bool:
    """`pattern` (words, an optional trailing `*`) against a bash command (see the module)."""
    command = command.strip()
    if not pattern.endswith("*"):
        return pattern.strip() == command
    words = simple_words(command)
    if words is None or bash_shape(command) is None:
        return False  # not one simple command, or it runs code: only an exact pattern covers it
    head = pattern[:-1]
    glued = not head.endswith(" ")  # `test*` continues a word, `test *` starts a new one
    wanted = simple_words(head.strip())
    if not wanted or len(wanted) > len(words):
        return False
    *whole, last = wanted
    if words[: len(whole)] != whole:
        return False
    here = words[len(whole)]
    return here.startswith(last) if glued else here == last


def _inside(folder: str | None, cwd: Path) -> bool:
    if folder is None:
        return True
    root = os.path.realpath(folder)
    here = os.path.realpath(cwd)
    return here == root or here.startswith(root.rstrip(os.sep) + os.sep)


def verdict(
    rules: Iterable[PatternRule], tool: Any, name: str, arguments: dict[str, Any], cwd: Path
) -> PatternRule | None:
    """The rule that decides this call: the first matching `deny`, else the first matching
    `allow`, else None."""
    found = subject(tool, name, arguments)
    if found is None:
        return None
    kind, text = found
    hits = [r for r in rules if _inside(r.folder, cwd) and matches(r, kind, text)]
    return next((r for r in hits if r.decision == "deny"), None) or next(iter(hits), None)


def suggestion(tool: Any, name: str, arguments: dict[str, Any], cwd: Path) -> RuleSuggestion | None:
    """The rule "Always allow commands like this" offers for this call (the person may edit it):
    a command's program and subcommand then `*`, the URL's domain, the MCP tool; None when no
    pattern could cover the call (a command that runs code or is more than one)."""
    found = subject(tool, name, arguments)
    if found is None:
        return None
    kind, text = found
    pattern = text
    if kind == "bash":
        shape = bash_shape(text)
        if shape is None:
            return None
        pattern = " ".join(shlex.quote(w) for w in shape.prefix) + " *"
    if pattern_problem(kind, pattern) is not None:
        return None
    return RuleSuggestion(tool=kind, pattern=pattern, folder=os.path.realpath(cwd))  # type: ignore[arg-type]
