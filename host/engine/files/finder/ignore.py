""".gitignore rules, as git reads them, for the `@` finder (docs/decisions.md, "The @ finder").

`pathspec` reads the patterns (git's wildmatch grammar: `*` `?` `[...]`, `**`, anchoring `/`,
folders-only `/`, `!`, `\\` escapes, trailing spaces); this module applies them the way git's
own walk does: each `.gitignore` to paths below its folder, the innermost file with a rule that
matches the path itself decides, and within a file the last such rule wins. A folder that is
ignored is never entered, so nothing below it can be re-included (git's rule too).

pathspec answers for a flat list of files, where a rule that names a folder also covers what
is in it; the walk asks about one entry whose folders were all kept, so a rule counts here
only when it names the entry itself, which the folder mark in pathspec's regexes tells apart
(`RuleSet.verdict`). tests/engine/test_finder_index.py holds the walk to `git check-ignore`.
Known gap (as before pathspec): POSIX classes such as `[[:digit:]]` are not read as git reads
them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pathspec import GitIgnoreSpec

MAX_RULES = 2_000
"""Rules kept from one file (a generated file of thousands of lines would slow every entry)."""
_DIR_MARK = "ps_d"
"""The group pathspec's regexes give the slash after a name that matched as a folder."""
_MARK_AT_END = f"(?P<{_DIR_MARK}>/)"


@dataclass(frozen=True, slots=True)
class Rule:
    regex: re.Pattern[str]
    """pathspec's regex for the pattern, searched in a "/"-separated relative path."""
    negate: bool
    marked: bool
    """The regex has the folder mark group (most do; "*", "**" and "x/**" do not)."""
    folders_only: bool
    """The regex ends in the folder mark ("build/"): it never matches a file itself."""


def parse(text: str) -> tuple[Rule, ...]:
    """Every rule of a .gitignore's text, in order (a line pathspec cannot read is left out,
    as git leaves it out)."""
    rules: list[Rule] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        try:
            spec = GitIgnoreSpec.from_lines([_as_git_reads(line)])
        except ValueError:  # pathspec's GitIgnorePatternError: an unreadable pattern
            continue
        for pattern in spec.patterns:
            if pattern.include is not None and pattern.regex is not None:
                regex = pattern.regex
                marked = _DIR_MARK in regex.groupindex
                rules.append(Rule(regex, not pattern.include, marked, regex.pattern.endswith(_MARK_AT_END)))
        if len(rules) >= MAX_RULES:
            break
    return tuple(rules)


def _as_git_reads(line: str) -> str:
    """Two spellings pathspec reads otherwise than git: a path segment of three or more `*`
    is `**` to git (wildmatch folds a run of stars), and "a/**/" is only the folders inside a,
    which pathspec would read as "a/" (a itself and all in it); "a/**/*/" says it in a form
    pathspec keeps."""
    line = _STAR_RUN.sub("**", line)
    stripped = line.rstrip(" ")
    if stripped.endswith("/**/") and not stripped.endswith("\\/**/"):
        return stripped + "*/"
    return line


_STAR_RUN = re.compile(r"(?<![^/])\*{3,}(?![^/])")


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
        if is_dir:
            return self._folder_verdict(path)
        # a file: a match counts when no folder mark (`ps_d`) in it names a folder above
        # `path` (that folder was kept by the walk, so such a match is not about `path`)
        for rule in reversed(self.rules):
            if rule.folders_only:
                continue
            found = rule.regex.search(path)
            if found is not None and (not rule.marked or found.start(_DIR_MARK) < 0):
                return not rule.negate
        return None

    def _folder_verdict(self, path: str) -> bool | None:
        """A folder matches through the mark right after its own name ("build/" on "build/")
        or, with no mark, without reaching past its name: "out/**" is what is inside out, not
        out, though pathspec's regex for it matches "out/"."""
        folder = path + "/"
        end = len(path)
        for rule in reversed(self.rules):
            if rule.regex.search(folder) is None:  # the common case: no match at all
                continue
            alone = rule.regex.search(folder, 0, end)
            if alone is not None and (not rule.marked or alone.start(_DIR_MARK) < 0):
                return not rule.negate
            if rule.marked and any(found.start(_DIR_MARK) == end for found in rule.regex.finditer(folder)):
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
