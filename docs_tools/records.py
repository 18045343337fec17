"""Decision records (`docs/decisions/<slug>.md`) and their index (`docs/decisions.md`).

A record is short and has one shape: `# Title`, then `Decided:`, `Why:` and `Rejected:`, each with
a few lines, at most `MAX_LINES` lines in all (measurement figures stay in `bench/results.json`).
The index has one `## <Title>` heading per record, with the record's first `Decided:` sentence
and a link under it; code cites a record by that heading (`docs/decisions.md, "<Title>"`) or by
its file (`docs/decisions/<slug>.md`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from docs_tools.markers import fill

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "docs" / "decisions"
INDEX = ROOT / "docs" / "decisions.md"
FIELDS = ("Decided:", "Why:", "Rejected:")
MAX_LINES = 40
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Record:
    slug: str
    title: str
    decided: str
    """The first sentence of `Decided:`, the index's line."""


class RecordError(ValueError):
    """A record that does not have the one shape (the message names the file and what is wrong)."""


def first_sentence(text: str) -> str:
    """The first sentence of `text` (a `.` ends one only before a space and a capital, a backquote,
    a quote or the end, so `e.g.` and `0.5 s` do not)."""
    text = " ".join(text.split())
    found = re.search(r"(?<!e\.g)(?<!i\.e)(?<!vs)[.!?](?=\s+[A-Z`\"(]|$)", text)
    return text[: found.end()] if found else text


def _field_text(lines: list[str]) -> str:
    """A field's text: its first bullet, or its first paragraph when it has no bullets."""
    taken: list[str] = []
    for line in lines:
        if not line.strip():
            if taken:
                break
            continue
        if line.startswith("- ") and taken:
            break
        taken.append(line.removeprefix("- ").strip())
    return " ".join(taken)


def parse(path: Path) -> Record:
    """The record in `path`; `RecordError` when its shape is wrong."""
    name = f"docs/decisions/{path.name}"
    lines = path.read_text(encoding="utf-8").splitlines()
    wrong: list[str] = []
    if not SLUG.match(path.stem):
        wrong.append(f"the file name {path.name!r} is not a slug (lower-case words joined by '-')")
    if not lines or not lines[0].startswith("# ") or not lines[0][2:].strip():
        raise RecordError(f"{name}: the first line must be `# Title`")
    title = lines[0][2:].strip()
    if len(lines) > MAX_LINES:
        wrong.append(f"{len(lines)} lines; a record has at most {MAX_LINES}")
    starts: list[int] = []
    for field in FIELDS:
        where = [i for i, line in enumerate(lines) if line.startswith(field)]
        if len(where) != 1:
            wrong.append(f"`{field}` must start exactly one line (found {len(where)})")
            continue
        starts.append(where[0])
    if not wrong and starts != sorted(starts):
        wrong.append("the fields must come in the order " + ", ".join(FIELDS))
    if wrong:
        raise RecordError(f"{name}: " + "; ".join(wrong))
    bodies: list[str] = []
    for n, (field, at) in enumerate(zip(FIELDS, starts, strict=True)):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        body = [lines[at][len(field) :].strip(), *lines[at + 1 : stop]]
        text = _field_text(body)
        if not text:
            raise RecordError(f"{name}: `{field}` is empty")
        bodies.append(text)
    return Record(slug=path.stem, title=title, decided=first_sentence(bodies[0]))


def records(folder: Path = RECORDS) -> list[Record]:
    """Every record, in the index's order (by title, ignoring case); `RecordError` for the first
    malformed one or for two records with one title."""
    found = sorted((parse(p) for p in folder.glob("*.md")), key=lambda r: (r.title.casefold(), r.slug))
    titles: dict[str, str] = {}
    for r in found:
        if r.title in titles:
            raise RecordError(
                f"docs/decisions/{r.slug}.md and {titles[r.title]}.md have one title {r.title!r}"
            )
        titles[r.title] = r.slug
    return found


def render_index(found: list[Record]) -> str:
    entries = [f"## {r.title}\n{r.decided} [Record](decisions/{r.slug}.md)" for r in found]
    return "\n\n".join(entries)


def render(text: str, folder: Path = RECORDS) -> str:
    found = records(folder)
    return fill(text, {"decisions": lambda: render_index(found)}, "docs/decisions.md")
