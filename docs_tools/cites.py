"""Where the repository cites docs/ by section: `docs/decisions.md, "<Title>"` must name a heading of
the decision index (a record's title), `docs/decisions/<slug>.md` an existing record, and
`docs/architecture.md, "<Section>"` or `docs/threat-model.md, "<Section>"` a heading of that page
(its start will do: "The handler" names "The handler (`host/fetch/`)"). A title may wrap over
comment lines."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = (".py", ".js", ".mjs", ".css", ".html", ".sh", ".toml", ".md")
PAGES = ("decisions", "architecture", "threat-model")
TITLE = re.compile(r"(decisions|architecture|threat-model)\.md(?:[,;:]|\s)(?:\s|#|//|\*|\()*\"([^\"]+)\"")
RECORD = re.compile(r"docs/decisions/([A-Za-z0-9_.-]+\.md)")
MORE = re.compile(r"(?:\s|#|//|\*)*(?:,|;|and|, and)(?:\s|#|//|\*)*\"([^\"]+)\"")
"""A further title of the same page in a list: `docs/decisions.md, "A", "B" and "C"`."""
WRAP = re.compile(r"\s*\n\s*(?:#|//|\*)?\s*")
ISSUE = re.compile(r"\s*\(issues? [^)]*\)$")
"""A trailing issue tag, `(issue 27)`: the long-form decision sections had them in their titles,
the records do not, and a citation that still carries one names the same record."""
SKIP = ("docs/decisions/", "docs_tools/", "tests/test_docs.py")
"""Records name each other in prose; this tool and its test show the citation forms (and wrong ones)."""


@dataclass(frozen=True)
class Cite:
    path: str
    line: int
    page: str
    """`decisions`, `architecture`, `threat-model`, or `record` for a record's file."""
    target: str


def tracked_files(root: Path = ROOT) -> list[Path]:
    """The repository's files (those git tracks, plus new ones it does not ignore)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.splitlines()
    return [root / p for p in listed if p.endswith(SUFFIXES) and (root / p).is_file()]


def cites_in(text: str, name: str) -> list[Cite]:
    found: list[Cite] = []
    for m in TITLE.finditer(text):
        titles, end = [m.group(2)], m.end()
        while more := MORE.match(text, end):
            titles.append(more.group(1))
            end = more.end()
        for raw in titles:
            title = WRAP.sub(" ", raw).strip()
            if m.group(1) == "decisions":
                title = ISSUE.sub("", title)
            found.append(Cite(name, text.count("\n", 0, m.start()) + 1, m.group(1), title))
    for m in RECORD.finditer(text):
        found.append(Cite(name, text.count("\n", 0, m.start()) + 1, "record", m.group(1)))
    return found


def page_headings(root: Path = ROOT) -> dict[str, set[str]]:
    """Each page's headings (`##` and deeper), without the `#`s."""
    return {
        page: {
            line.lstrip("#").strip()
            for line in (root / "docs" / f"{page}.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("## ") or line.startswith("### ")
        }
        for page in PAGES
    }


def resolves(cite: Cite, headings: dict[str, set[str]], records: set[str]) -> bool:
    if cite.page == "record":
        return cite.target in records
    if cite.target == "<Title>" or cite.target == "<Section>":  # the forms, as docs/ shows them
        return True
    names = headings[cite.page]
    if cite.page == "decisions":
        return cite.target in names
    return any(h == cite.target or h.startswith(cite.target + " ") for h in names)


def broken(root: Path = ROOT) -> list[str]:
    """Each citation of a section or record that does not exist, as `path:line: what`."""
    headings = page_headings(root)
    records = {p.name for p in (root / "docs" / "decisions").glob("*.md")}
    bad: list[str] = []
    for path in tracked_files(root):
        name = path.relative_to(root).as_posix()
        if name.startswith(SKIP):
            continue
        for c in cites_in(path.read_text(encoding="utf-8", errors="replace"), name):
            if not resolves(c, headings, records):
                where = (
                    f"docs/decisions/{c.target}" if c.page == "record" else f'docs/{c.page}.md, "{c.target}"'
                )
                bad.append(f"{c.path}:{c.line}: cites {where}, which does not exist")
    return bad
