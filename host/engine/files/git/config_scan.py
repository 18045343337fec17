"""Whether a repository's own configuration names anything git could run (docs/decisions.md,
"The host's git").

Read by a parser of our own, never by git (asking git to read a configuration is already running
it). An allow-list, not a deny-list: a key is harmless only when it is one of the settings below
(branches, remotes, line endings, user identity …); anything else — a filter, diff or merge
driver, `core.fsmonitor`, `core.hooksPath`, `core.sshCommand`, a pager, an editor, a credential
helper, an `include` — is a finding, and so is a file this parser cannot read. The host's git
runs on a folder whose configuration has findings only once the person trusted that folder (and
even then inside the sandbox).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from host.engine.files.git.layout import RepoLayout

MAX_CONFIG_BYTES = 1024 * 1024

ANY = frozenset({"*"})
SAFE_KEYS: dict[str, frozenset[str]] = {
    "core": frozenset(
        {
            "repositoryformatversion",
            "filemode",
            "bare",
            "logallrefupdates",
            "ignorecase",
            "precomposeunicode",
            "symlinks",
            "autocrlf",
            "eol",
            "safecrlf",
            "checkstat",
            "trustctime",
            "quotepath",
            "commentchar",
            "commentstring",
            "abbrev",
            "longpaths",
            "compression",
            "loosecompression",
            "bigfilethreshold",
            "sharedrepository",
            "untrackedcache",
            "splitindex",
            "sparsecheckout",
            "sparsecheckoutcone",
            "preloadindex",
            "fscache",
            "protecthfs",
            "protectntfs",
            "packedgitlimit",
            "packedgitwindowsize",
            "deltabasecachelimit",
            "multipackindex",
            "warnambiguousrefs",
            "hidedotfiles",
            "fsyncmethod",
            "fsync",
            "restrictinheritedhandles",
            "excludesfile",
            "attributesfile",
        }
    ),
    "extensions": frozenset(
        {"objectformat", "worktreeconfig", "refstorage", "noop", "preciousobjects", "partialclone"}
    ),
    "user": frozenset({"name", "email", "useconfigonly"}),
    "init": frozenset({"defaultbranch"}),
    "pull": frozenset({"rebase", "ff"}),
    "push": frozenset({"default", "autosetupremote", "followtags"}),
    "fetch": frozenset({"prune", "prunetags", "recursesubmodules", "writecommitgraph"}),
    "merge": frozenset({"ff", "conflictstyle", "log", "renames", "renamelimit"}),
    "diff": frozenset(
        {
            "renames",
            "algorithm",
            "mnemonicprefix",
            "noprefix",
            "submodule",
            "indentheuristic",
            "colormoved",
            "relative",
        }
    ),
    "color": ANY,
    "gc": ANY,
    "pack": ANY,
    "index": ANY,
    "feature": ANY,
    "status": ANY,
    "log": ANY,
    "advice": ANY,
    "rerere": ANY,
    "i18n": ANY,
    "lfs": ANY,
}
"""Settings without a subsection that name no program: section → keys (`*`: every key)."""

SAFE_SUBSECTION_KEYS: dict[str, frozenset[str]] = {
    "remote": frozenset(
        {
            "url",
            "pushurl",
            "fetch",
            "push",
            "tagopt",
            "prune",
            "prunetags",
            "mirror",
            "skipdefaultupdate",
            "skipfetchall",
            "promisor",
            "partialclonefilter",
            "followremotehead",
        }
    ),
    "branch": frozenset({"remote", "merge", "rebase", "pushremote", "description"}),
    "submodule": frozenset(
        {"url", "path", "active", "branch", "fetchrecursesubmodules", "ignore", "shallow"}
    ),
    "lfs": ANY,
    "color": ANY,
}
"""Settings of a named subsection (`[remote "origin"]`) that name no program."""

FALSE_WORDS = frozenset({"false", "no", "off", "0", ""})
BOOLEAN_OFF_ONLY = frozenset({"core.fsmonitor"})
"""Keys that are harmless only when they turn the feature off (a path or command runs)."""

_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\]|\\.)*)")?\s*\]')
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


@dataclass(frozen=True)
class Setting:
    section: str
    subsection: str | None
    name: str
    value: str

    @property
    def key(self) -> str:
        middle = f".{self.subsection}" if self.subsection is not None else ""
        return f"{self.section}{middle}.{self.name}"


class Unreadable(ValueError):
    """The file is not a configuration this parser understands (so nothing is vouched for)."""


def parse(text: str) -> list[Setting]:
    """The settings of a git configuration file, in order (values roughly unquoted)."""
    out: list[Setting] = []
    section: str | None = None
    subsection: str | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        while line.startswith("["):
            match = _SECTION.match(line)
            if match is None:
                raise Unreadable(f"a section header git's parser would read differently: {line[:60]!r}")
            name, sub = match.group(1), match.group(2)
            if sub is None and "." in name:  # the old `[section.sub]` form
                name, _, sub = name.partition(".")
                sub = sub.lower()
            elif sub is not None:
                sub = re.sub(r"\\(.)", r"\1", sub)
            section, subsection = name.lower(), sub
            line = line[match.end() :].strip()
        if not line or line[0] in "#;":
            continue
        if section is None:
            raise Unreadable("a setting before any section")
        match = _NAME.match(line)
        if match is None:
            raise Unreadable(f"a line git's parser would read differently: {line[:60]!r}")
        name = match.group(0).lower()
        rest = line[match.end() :].strip()
        value = ""
        if rest.startswith("="):
            raw = rest[1:]
            while raw.endswith("\\") and not raw.endswith("\\\\") and i < len(lines):
                raw = raw[:-1] + lines[i]
                i += 1
            value = _value(raw)
        elif rest and rest[0] not in "#;":
            raise Unreadable(f"a line git's parser would read differently: {line[:60]!r}")
        out.append(Setting(section, subsection, name, value))
    return out


def _value(raw: str) -> str:
    """A value with its quotes taken out and a trailing comment dropped."""
    out: list[str] = []
    quoted = False
    chars = iter(raw.strip())
    for c in chars:
        if c == "\\":
            out.append(next(chars, ""))
        elif c == '"':
            quoted = not quoted
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
    return "".join(out).strip()


def is_safe(setting: Setting) -> bool:
    if setting.key.lower() in BOOLEAN_OFF_ONLY:
        return setting.value.lower() in FALSE_WORDS
    if setting.subsection is None:
        keys = SAFE_KEYS.get(setting.section)
    else:
        keys = SAFE_SUBSECTION_KEYS.get(setting.section)
    return keys is not None and (keys is ANY or setting.name in keys)


def findings(layout: RepoLayout) -> list[str]:
    """What in the repository's configuration git could run or be redirected by: the keys
    outside the allow-list (`filter.x.clean`), an unreadable file, and a git directory reached
    through a redirection that leaves the work tree (a planted `commondir`). Empty: nothing."""
    found: list[str] = []
    top = os.path.realpath(layout.top)
    own = os.path.realpath(layout.top / ".git")
    if layout.has_commondir and not layout.dot_git_is_file:
        found.append("commondir")  # git never writes one into a main repository's .git
    for where in (layout.git_dir, layout.common_dir):
        real = os.path.realpath(where)
        if _inside(real, top) and not _inside(real, own):
            found.append(f"git directory inside the work tree: {where}")
    for path in layout.config_files:
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_CONFIG_BYTES + 1)
            if len(data) > MAX_CONFIG_BYTES:
                raise Unreadable("larger than 1 MB")
            settings = parse(data.decode("utf-8"))
        except (OSError, UnicodeDecodeError, Unreadable) as exc:
            found.append(f"{path.name}: unreadable ({exc})")
            continue
        for setting in settings:
            if not is_safe(setting) and setting.key not in found:
                found.append(setting.key)
    return list(dict.fromkeys(found))


def hooks(layout: RepoLayout) -> list[str]:
    """The hooks the repository holds (git's `.sample` files excepted): they run on commit."""
    folder = layout.common_dir / "hooks"
    try:
        names = sorted(e.name for e in os.scandir(folder) if not e.name.endswith(".sample"))
    except OSError:
        return []
    return names


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
