"""Commands that run their arguments as code: they never get a prefix grant, and no prefix grant
ever covers them (docs/decisions.md, "Grants cannot widen").

`runs_code(words)` is deliberately broad: a false alarm only means "Allow always" remembers the
exact command instead of a prefix; a miss would let a remembered `find -name` run `find -exec`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

ALWAYS = frozenset(
    (
        # run a command taken from their arguments
        "sudo doas su pkexec runuser sg env xargs parallel timeout nice ionice chrt taskset nohup time"
        " exec eval command builtin source . watch strace ltrace stdbuf chroot unshare nsenter setsid"
        " script flock busybox firejail bwrap systemd-run ssh rsh scp sftp expect at batch crontab"
        # shells and languages whose script is on the command line
        " bash sh zsh dash fish ksh csh tcsh ash mksh awk gawk mawk nawk busybox"
        # run a package fetched by name
        " npx pnpx bunx uvx pipx deno bun"
        # containers: `run` / `exec` start arbitrary programs (every subcommand is exact here)
        " docker podman nerdctl kubectl"
        # shell syntax that is not a program
        " ! { } [[ ]] if then else elif fi for while until do done case esac select function"
        " coproc alias trap export declare typeset local readonly unset set shopt enable hash"
    ).split()
)
"""Every call of these is exact-only."""

INTERPRETER = re.compile(
    r"^(python|pypy|perl|ruby|node|nodejs|php|lua|luajit|pwsh|powershell|osascript|Rscript|R|tclsh|wish|julia|guile|racket|irb|jshell)[0-9.]*$"
)
"""Languages: only `python script.py …` (a file, no option before it) gets a prefix."""
SAFE_INTERPRETER_FLAGS = frozenset({"-u", "-B", "-O", "-OO", "-q", "-s", "-S", "-E", "-I"})
"""Flags that take no value and run nothing (`-W x`/`-X x` take one: the value would pass for the
script, and `python -W ignore a.py` would cover `python -W ignore b.py`)."""

FIND_CODE = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
TAR_CODE = (
    "--to-command",
    "--checkpoint-action",
    "--use-compress-program",
    "--info-script",
    "--new-volume-script",
    "-I",
    "-F",
    "--rsh-command",
)
RSYNC_CODE = ("-e", "--rsh", "--rsync-path")
ZIP_CODE = ("-TT", "--unzip-command")
GIT_FLAG_GLOBALS = frozenset(
    "--no-pager -P --paginate -p --bare --no-replace-objects --literal-pathspecs --glob-pathspecs"
    " --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice".split()
)
"""Leading git options that take no value and run nothing; any other (`-c`, `-C`, `--exec-path`,
`--git-dir`, `--config-env`, …) can make git run code from a config of someone's choosing."""
GIT_BUILTINS = frozenset(
    "add am annotate apply archive bisect blame branch bundle checkout cherry cherry-pick citool clean"
    " clone commit count-objects describe diff diff-files diff-index diff-tree fetch for-each-ref"
    " format-patch fsck gc grep help init log ls-files ls-remote ls-tree merge merge-base mv name-rev"
    " notes prune pull push range-diff rebase reflog remote repack reset restore revert rev-list"
    " rev-parse rm shortlog show show-branch show-ref sparse-checkout stash status switch tag"
    " verify-commit verify-tag version whatchanged worktree cat-file check-ignore".split()
)
"""Subcommands git runs itself; any other name may be an alias (`!touch M`)."""
GIT_CODE_OPTIONS = (
    "--exec",
    "-x",
    "--upload-pack",
    "--receive-pack",
    "-u",
    "--ext-diff",
    "--extcmd",
    "--tool",
    "--open-files-in-pager",
    "-O",
    "--textconv",
    "--config",
    "-c",
    "--template",
    "--run",
)
"""Options of a git subcommand that run a program (`rebase --exec`, `clone -u`, `grep -O` …)."""
GIT_CODE_SUBCOMMANDS = frozenset({"bisect", "submodule", "filter-branch", "difftool", "mergetool", "config"})
"""`bisect run`, `submodule foreach`, `config core.pager …`: code now or at the next git call."""
PACKAGE_RUNNERS = {
    "pnpm": {"dlx", "exec"},
    "yarn": {"dlx", "exec"},
    "npm": {"exec", "x"},
    "bun": {"x"},
    "uv": {"run", "tool"},
}
"""`<manager> <subcommand>` that fetches and runs a package by name."""


def program_name(word: str) -> str:
    return os.path.basename(word)


def _has(words: Sequence[str], options: Sequence[str]) -> bool:
    """Whether an option (or its `--opt=value` / `-Xvalue` form) is among `words`."""
    for w in words:
        if w == "--":
            return False
        for o in options:
            if (
                w == o
                or (o.startswith("--") and w.startswith(o + "="))
                or (len(o) == 2 and w.startswith(o) and not w.startswith("--"))
            ):
                return True
    return False


def runs_code(words: Sequence[str]) -> bool:
    """Whether the command (its words, see `shellwords.simple_words`) can run code taken from
    its own arguments or from a file it names: then it is exact-only."""
    if not words:
        return True
    program, rest = program_name(words[0]), list(words[1:])
    if program in ALWAYS:
        return True
    if INTERPRETER.match(program):
        return _interpreter_runs_code(rest)
    if program == "find":
        return any(w in FIND_CODE for w in rest)
    if program == "sed" or program == "gsed":
        return _sed_runs_code(rest)
    if program == "git":
        return _git_runs_code(rest)
    if program == "tar":
        return _has(rest, TAR_CODE) or any(_tar_cluster(w) for w in rest)
    if program == "rsync":
        return _has(rest, RSYNC_CODE)
    if program == "zip":
        return _has(rest, ZIP_CODE)
    if program in PACKAGE_RUNNERS:
        sub = next((w for w in rest if not w.startswith("-")), "")
        return sub in PACKAGE_RUNNERS[program]
    return False


def _tar_cluster(word: str) -> bool:
    """`tar cIf prog …` / `tar -xIfoo`: a short-option cluster naming a program (-I) or script (-F)."""
    if word.startswith("--"):
        return False
    return ("I" in word or "F" in word) and (word.startswith("-") or word.isalpha())


def _interpreter_runs_code(rest: list[str]) -> bool:
    """`python -c`, `node -e`, `perl -pe`, a REPL reading stdin: code. `python -m mod` and
    `python file.py` run a named module or file (their words are the rule)."""
    for i, w in enumerate(rest):
        if not w.startswith("-") or w == "-":
            return w == "-"  # the script (a file) comes first: what follows are its arguments
        if w == "-m":
            return i + 1 >= len(rest)
        if w not in SAFE_INTERPRETER_FLAGS:
            return True
    return True  # a bare interpreter reads code from stdin


def _sed_runs_code(rest: list[str]) -> bool:
    """GNU sed's `e` command and flag run a shell; `w`/`W` write files; a script file (`-f`)
    cannot be read here. Conservative: any script with one of those letters is code."""
    scripts: list[str] = []
    explicit = False
    operands: list[str] = []
    i = 0
    while i < len(rest):
        w = rest[i]
        if w == "--":
            operands.extend(rest[i + 1 :])
            break
        if (
            w in ("-f", "--file")
            or w.startswith("--file=")
            or (w.startswith("-") and not w.startswith("--") and "f" in w[1:])
        ):
            return True
        if w in ("-e", "--expression"):
            explicit = True
            if i + 1 < len(rest):
                scripts.append(rest[i + 1])
            i += 2
            continue
        if w.startswith("--expression="):
            explicit = True
            scripts.append(w.split("=", 1)[1])
        elif w.startswith("-e") and not w.startswith("--"):
            explicit = True
            scripts.append(w[2:])
        elif w.startswith("-") and not w.startswith("--") and "e" in w[1:]:
            return True  # `-ne 'script'`: a cluster ending in e takes the next word as script
        elif not w.startswith("-") or w == "-":
            operands.append(w)
        i += 1
    if not explicit:
        scripts.extend(operands[:1])
    return any(set(s) & set("ewW") for s in scripts) or not scripts


def _git_runs_code(rest: list[str]) -> bool:
    i = 0
    while i < len(rest) and rest[i].startswith("-"):
        if rest[i] not in GIT_FLAG_GLOBALS:
            return True
        i += 1
    if i >= len(rest):
        return False  # `git --version`-like: nothing runs
    sub = rest[i]
    if sub not in GIT_BUILTINS or sub in GIT_CODE_SUBCOMMANDS:
        return True
    return _has(rest[i + 1 :], GIT_CODE_OPTIONS)
