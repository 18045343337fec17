"""The `@` finder's .gitignore reader and index walk on real folders (docs/architecture.md,
"The @ finder"): git's pattern grammar, rules from above the folder, the entry cap, and the
whole walk against `git check-ignore` on repositories with nested .gitignores, negations and
info/exclude."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from host.engine.files.finder import index as index_module
from host.engine.files.finder.ignore import RuleSet, ignored, parse
from host.engine.files.finder.index import build


def rules(text: str) -> tuple[RuleSet, ...]:
    return (RuleSet(parse(text)),)


GRAMMAR = [
    ("*.log", "a/b/x.log", False, True),
    ("*.log", "x.logs", False, False),
    ("/top.txt", "top.txt", False, True),
    ("/top.txt", "sub/top.txt", False, False),  # a leading slash anchors
    ("doc/*.md", "doc/a.md", False, True),
    ("doc/*.md", "doc/sub/a.md", False, False),  # * stays within a segment
    ("a/**/b", "a/b", False, True),  # zero folders
    ("a/**/b", "a/x/y/b", False, True),
    ("**/cache", "deep/er/cache", True, True),
    ("out/**", "out/a/b.js", False, True),
    ("out/**", "out", True, False),  # "out/**" is what is inside, not out itself
    ("build/", "build", True, True),
    ("build/", "build", False, False),  # a trailing slash: folders only
    ("file?.txt", "file1.txt", False, True),
    ("file?.txt", "file12.txt", False, False),
    ("[ab]*.c", "b_main.c", False, True),
    ("[!ab]*.c", "b_main.c", False, False),
    ("\\#hash", "#hash", False, True),
    ("# a comment", "# a comment", False, False),
    ("trailing.txt   ", "trailing.txt", False, True),  # unescaped trailing spaces go
    ("*.tmp\n!keep.tmp", "keep.tmp", False, False),  # the last rule wins
    ("out/***", "out/a/b.js", False, True),  # a run of stars is "**" to git
    ("a***b", "axyb", False, True),  # but a single "*" inside a segment
    ("a***b", "a/b", False, False),
    ("a/**/", "a", True, False),  # "a/**/": the folders inside a, not a
    ("a/**/", "a/f", False, False),  # nor its files
    ("a/**/", "a/d/e", True, True),
]


@pytest.mark.parametrize(("pattern", "path", "is_dir", "expected"), GRAMMAR)
def test_gitignore_grammar(pattern: str, path: str, is_dir: bool, expected: bool) -> None:
    assert ignored(rules(pattern), path, is_dir) is expected


def test_the_grammar_table_is_what_git_says(tmp_path: Path) -> None:
    """Each row of GRAMMAR asked of `git check-ignore` in a repository of its own."""
    env = git_env(tmp_path / "home")
    for k, (pattern, path, is_dir, expected) in enumerate(GRAMMAR):
        repo = git_repo(tmp_path / f"r{k}", env)
        (repo / ".gitignore").write_text(pattern + "\n")
        make(repo, {path + ("/" if is_dir else ""): ""})
        said = subprocess.run(
            ["git", "check-ignore", "-q", "--no-index", path], cwd=repo, env=env, timeout=60
        )
        assert said.returncode in (0, 1)
        assert (said.returncode == 0) is expected, (pattern, path)


def test_rules_above_the_folder_apply_up_to_the_work_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git" / "info").mkdir(parents=True)
    (repo / ".git" / "info" / "exclude").write_text("*.secret\n")
    (repo / ".gitignore").write_text("pkg/generated/\n")
    folder = repo / "pkg"
    for rel in ("generated/out.py", "src/a.py", "src/key.secret"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("")
    (tmp_path / ".gitignore").write_text("*.py\n")  # outside the work tree: not read
    found = build(folder)
    assert found.entries == ["src/", "src/a.py"]


def test_a_huge_folder_is_cut_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "MAX_ENTRIES", 10)
    for i in range(30):
        (tmp_path / f"f{i:02d}.txt").write_text("")
    cut = build(tmp_path)
    assert cut.partial is True and len(cut.entries) == 10


def test_a_name_that_is_not_utf8_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "fine.txt").write_text("")
    Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.txt")).write_text("")  # a lone surrogate once decoded
    (tmp_path / "new\nline.txt").write_text("")
    assert build(tmp_path).entries == ["fine.txt"]


# ---- the walk against git itself -----------------------------------------------------------------


def git_env(home: Path) -> dict[str, str]:
    """git with no configuration of the machine's (no global excludes file to add rules)."""
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }


def make(root: Path, files: dict[str, str]) -> None:
    for rel, body in files.items():
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def git_keeps(repo: Path, folder: Path, env: dict[str, str]) -> list[str]:
    """Every file and folder under `folder` (never .git) that `git check-ignore` does not name
    (git names what lies in an ignored folder too), folders ending in "/", sorted."""
    found: list[tuple[str, bool]] = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        rel = Path(here).relative_to(folder).as_posix()
        prefix = "" if rel == "." else rel + "/"
        found += [(prefix + d, True) for d in dirs] + [(prefix + f, False) for f in files]
    answer = subprocess.run(
        ["git", "check-ignore", "--stdin", "-z", "--no-index"],
        input="".join(p + "\0" for p, _ in found).encode(),
        cwd=folder,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert answer.returncode in (0, 1), answer.stderr  # 1: nothing ignored
    named = set(answer.stdout.decode().split("\0"))
    return sorted(p + ("/" if is_dir else "") for p, is_dir in found if p not in named)


def git_repo(path: Path, env: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True, env=env, timeout=60)
    return path


def test_the_walk_keeps_what_git_keeps_with_nested_files_negations_and_info_exclude(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    repo = git_repo(tmp_path / "repo", env)
    (repo / ".git" / "info" / "exclude").write_text("*.secret\n!shared.secret\nscratch/\n")
    make(
        repo,
        {
            ".gitignore": (
                "# build output\n*.log\n!important.log\n/build/\nnode_modules/\ndist/**\n"
                "!dist/keep.txt\ncache/**/\n\\#notes\ntrailing.txt   \n[Tt]emp*\n!**/tempo/\n"
            ),
            "app/.gitignore": "secret*\n!secret-ok.txt\n!*.log\nvendor/\n!vendor/kept.py\n",
            "app/sub/.gitignore": "!secret-sub.txt\n*.py\n",
            "app/sub/deeper/.gitignore": "!main.py\n",
            "important.log": "",
            "debug.log": "",
            "build/out.js": "",
            "src/build/real.js": "",  # "/build/" is anchored to its file's folder
            "node_modules/lib/index.js": "",
            "dist/bundle.js": "",
            "dist/keep.txt": "",  # "dist/**" leaves dist itself, so "!dist/keep.txt" re-includes
            "cache/top.txt": "",  # "cache/**/": the folders inside cache, not its files
            "cache/v1/blob": "",
            "#notes": "",
            "trailing.txt": "",
            "Temp.txt": "",
            "temp/x": "",
            "src/tempo/kept.txt": "",  # "[Tt]emp*" then "!**/tempo/"
            "key.secret": "",
            "shared.secret": "",
            "scratch/a.txt": "",
            "app/main.py": "",
            "app/debug.log": "",  # the inner "!*.log" wins over the outer "*.log"
            "app/secret-key.txt": "",
            "app/secret-ok.txt": "",
            "app/vendor/kept.py": "",  # its folder is ignored: nothing below comes back
            "app/sub/secret-sub.txt": "",
            "app/sub/secret-other.txt": "",
            "app/sub/tool.py": "",
            "app/sub/deeper/main.py": "",
            "app/sub/deeper/other.py": "",
            "empty/": "",
            ".github/workflows/ci.yml": "",
        },
    )
    kept = git_keeps(repo, repo, env)
    # the fixture really exercises each rule: spot-check git's own answer
    for path in ("dist/", "dist/keep.txt", "cache/", "cache/top.txt", "app/debug.log", "app/sub/deeper/"):
        assert path in kept
    assert "app/sub/deeper/main.py" in kept and "app/sub/deeper/other.py" not in kept
    for path in ("cache/v1/", "app/vendor/", "app/sub/tool.py", "key.secret", "scratch/", "temp/"):
        assert path not in kept
    assert sorted(build(repo).entries) == kept
    # a folder below the top: the ancestors' .gitignore files and info/exclude still apply
    assert sorted(build(repo / "app").entries) == git_keeps(repo, repo / "app", env)
    assert sorted(build(repo / "app" / "sub").entries) == git_keeps(repo, repo / "app" / "sub", env)


NAMES = (
    "a", "b", "out", "build", "keep", "x.log", "y.txt", "deep", "Doc.md", "n m", "#h", "!bang", "e*", "q[1]",
)  # fmt: skip
PATTERNS = (
    "{n}", "{n}/", "/{n}", "/{n}/", "*.log", "*.txt", "{n}/**", "**/{n}", "**/{n}/**", "{n}/*",
    "{n}/{m}", "{n}/**/{m}", "*", "*/", "**", "[ab]*", "[!a]*", "?", "{n}*", "*{n}", "/{n}/{m}/",
    "{n}/*/{m}", "**/{n}/", "*/{n}", "\\#h", "\\!bang", "e\\*", "q\\[1]", "[a-c]*", "a?",
    "{n}/**/", "/**/{n}", "{n}   ", "**/*", "*/**/", "{n}/**/*", "{n}\\", "[a-", "***", "{n}/***",
)  # fmt: skip


def random_repo(rnd: random.Random, repo: Path) -> None:
    """A small tree of NAMES with 1-3 .gitignore files and maybe info/exclude, rules drawn from
    PATTERNS (a third of them negated)."""

    def rule() -> str:
        text = rnd.choice(PATTERNS).format(n=rnd.choice(NAMES), m=rnd.choice(NAMES))
        return "!" + text if rnd.random() < 0.3 else text

    def grow(prefix: str, depth: int) -> list[str]:
        made: list[str] = []
        for name in rnd.sample(NAMES, rnd.randint(1, 5 if depth < 2 else 3)):
            if depth < 3 and rnd.random() < 0.45:
                made += [prefix + name + "/", *grow(prefix + name + "/", depth + 1)]
            else:
                made.append(prefix + name)
        return made

    entries = grow("", 0)
    make(repo, dict.fromkeys(entries, ""))
    folders = ["", *(e for e in entries if e.endswith("/"))]
    for folder in rnd.sample(folders, min(len(folders), rnd.randint(1, 3))):
        (repo / folder / ".gitignore").write_text("".join(rule() + "\n" for _ in range(rnd.randint(1, 5))))
    if rnd.random() < 0.5:
        (repo / ".git" / "info" / "exclude").write_text("".join(rule() + "\n" for _ in range(2)))


def test_the_walk_keeps_what_git_keeps_on_random_repositories(tmp_path: Path) -> None:
    """120 seeded trees (the same each run): every rule shape of PATTERNS, at every level."""
    env = git_env(tmp_path / "home")
    wrong: list[str] = []
    compared = 0
    for seed in range(120):
        rnd = random.Random(seed)
        repo = git_repo(tmp_path / f"r{seed}", env)
        random_repo(rnd, repo)
        kept = git_keeps(repo, repo, env)
        compared += len(kept)
        if sorted(build(repo).entries) != kept:
            wrong.append(f"seed {seed}: git keeps {kept}, the walk {sorted(build(repo).entries)}")
    assert not wrong, "\n".join(wrong[:3])
    assert compared > 1_000  # the trees are not trivially empty
