""".gitignore rules, as git reads them, for the `@` finder (docs/decisions.md, "The @ finder").

Each `.gitignore` applies to paths below its own folder; within and across files the last rule
that matches wins; a folder that is ignored is never entered, so nothing below it can be
re-included (git's rule too). Patterns: `*` `?` `[...]` within one path segment, `**` across
segments, a leading or middle `/` anchors to the file's folder, a trailing `/` matches folders
only, `!` re-includes, `\\` escapes. No library: the grammar is small and git's own
documentation fixes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_RULES = 2_000
"""Rules kept from one file (a generated file of thousands of lines would slow every entry)."""


@dataclass(frozen=True, slots=True)
class Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _segment(pat: str) -> str:
    """A glob over one or more segments (no `**` left inside) as a regex."""
    out: list[str] = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if c == "\\" and i + 1 < len(pat):
            out.append(re.escape(pat[i + 1]))
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pat.find("]", i + 2 if i + 1 < len(pat) and pat[i + 1] in "!^" else i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j]
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                body = body.replace("\\", "\\\\").replace("^", "\\^")
                out.append(f"[{'^/' if neg else ''}{body}]")
                i = j + 1
                continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_rule(line: str) -> Rule | None:
    """One line of a .gitignore, or None for a blank line, a comment or a pattern that cannot
    be read."""
    if not line or line.startswith("#"):
        return None
    # trailing spaces are ignored unless escaped
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    elif line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/") and not line.endswith("\\/")
    line = line.rstrip("/") if dir_only else line
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    parts = line.split("/")
    pieces: list[str] = []
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        if part == "**":
            # leading "**/" any folders; middle "/**/" zero or more; trailing "/**" everything inside
            pieces.append(".*" if last else "(?:[^/]+/)*")
        else:
            pieces.append(_segment(part) + ("" if last else "/"))
    body = "".join(pieces)
    if pieces and parts[-1] == "**" and len(parts) > 1:
        body = "".join(pieces[:-1]) + "[^/].*"  # "a/**" matches what is inside a, not a itself
    prefix = "" if anchored else "(?:[^/]+/)*"
    try:
        return Rule(re.compile(f"{prefix}{body}", re.DOTALL), negate, dir_only)
    except re.error:
        return None


def parse(text: str) -> tuple[Rule, ...]:
    """Every rule of a .gitignore's text, in order."""
    rules: list[Rule] = []
    for raw in text.splitlines():
        rule = compile_rule(raw)
        if rule is not None:
            rules.append(rule)
            if len(rules) >= MAX_RULES:
                break
    return tuple(rules)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules of one .gitignore; `base` is its folder relative to the scan's root ("" for the
    root, "sub/" below it), or, for a file in a folder above the root, `above` is the root's
    path relative to that folder ("root/")."""

    rules: tuple[Rule, ...]
    base: str = ""
    above: str = ""

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included, None when no rule here matches."""
        if self.above:
            path = self.above + rel
        elif self.base:
            if not rel.startswith(self.base):
                return None
            path = rel[len(self.base) :]
        else:
            path = rel
        for rule in reversed(self.rules):
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.fullmatch(path):
                return not rule.negate
        return None


def ignored(sets: tuple[RuleSet, ...], rel: str, is_dir: bool) -> bool:
    """Whether `rel` (relative to the scan's root, "/"-separated, no trailing slash) is ignored
    by the rule sets that apply to its folder (outermost first)."""
    for rule_set in reversed(sets):
        verdict = rule_set.verdict(rel, is_dir)
        if verdict is not None:
            return verdict
    return False
