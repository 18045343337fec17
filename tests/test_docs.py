"""Docs that cannot drift (docs/decisions.md; docs/architecture.md, "Layers", "Services"): the decision
index is generated from the records and each record has the one shape; the tables of
docs/architecture.md that mirror the code are generated from it; every citation of a docs/ section
or record names one that exists. Each check is also shown failing on a page made wrong on purpose."""

from __future__ import annotations

import subprocess
import typing
from pathlib import Path

import pytest

from docs_tools import cites, records, tables

ROOT = Path(__file__).resolve().parents[1]

GOOD = """# Strict wire names

Decided:
- Inbound JSON is validated by its camelCase names only. Snake case is refused.

Why:
- One spelling on the wire.

Rejected:
- Accepting both spellings.
"""

INDEX = """# Decisions

<!-- BEGIN GENERATED decisions: `python -m docs_tools` writes this -->
<!-- END GENERATED decisions -->
"""


def test_every_record_has_the_one_shape_and_a_title_of_its_own() -> None:
    found = records.records()
    assert len(found) >= 90
    assert all(r.decided for r in found)


def test_the_index_is_generated_from_the_records() -> None:
    text = records.INDEX.read_text(encoding="utf-8")
    assert records.render(text) == text, "docs/decisions.md is stale: run `python -m docs_tools`"
    for r in records.records():
        assert f"## {r.title}\n{r.decided} [Record](decisions/{r.slug}.md)" in text


def test_the_tables_that_mirror_the_code_are_generated_from_it() -> None:
    text = tables.ARCHITECTURE.read_text(encoding="utf-8")
    assert tables.render(text) == text, "docs/architecture.md is stale: run `python -m docs_tools`"
    from host.engine.engine import Engine

    services = tables.render_services()
    for field in Engine.__dataclass_fields__:
        assert (f"`engine.{field}`" in services) == (field != "parts")
    assert "`host.engine.store.maintenance`" in tables.render_door()
    assert "| `session` | `host/api/session.py` |" in tables.render_domains()
    assert "| `bash` | `BashTool` (`host/engine/tools/bash.py`) | yes |" in tables.render_tools()


def _section(page: str, title: str) -> str:
    start = page.index(f"\n### {title}\n")
    return page[start : page.find("\n##", start + 5)]


def test_the_event_and_frame_lists_name_every_type_the_contract_has() -> None:
    """Checked rather than generated: each row says more than the type's name. A new event type
    or frame fails this test until "Session events" or "Stream frames" names it."""
    from contract.events import EVENT_DATA
    from contract.frames import STREAMS

    page = tables.ARCHITECTURE.read_text(encoding="utf-8")
    events = _section(page, "Session events")
    assert [t for t in EVENT_DATA if f"`{t}`" not in events] == []
    frames = _section(page, "Stream frames")
    for stream, adapter in STREAMS.items():
        models = typing.get_args(typing.get_args(adapter._type)[0])
        types = [m.model_fields["type"].default for m in models]
        assert len(types) > 10, stream
        assert [t for t in types if f"`{t}" not in frames] == [], stream


def test_every_cited_section_and_record_exists() -> None:
    assert cites.broken() == []


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_index_of_a_new_record_is_stale_until_regenerated(tmp_path: Path) -> None:
    folder = tmp_path / "decisions"
    _write(folder, "strict-wire-names.md", GOOD)
    index = records.render(INDEX, folder)
    assert "## Strict wire names\nInbound JSON is validated by its camelCase names only." in index
    _write(folder, "another.md", GOOD.replace("# Strict wire names", "# Another"))
    assert records.render(index, folder) != index
    assert records.render(records.render(index, folder), folder) == records.render(index, folder)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (GOOD.replace("Why:\n", "Reason:\n"), "`Why:` must start exactly one line"),
        (GOOD.replace("Rejected:\n- Accepting both spellings.\n", "Rejected:\n"), "`Rejected:` is empty"),
        ("Strict wire names\n" + GOOD, "the first line must be `# Title`"),
        (GOOD + "- more\n" * 40, "a record has at most 40"),
        ("# T\n\nWhy:\n- a\n\nDecided:\n- b\n\nRejected:\n- c\n", "in the order"),
    ],
)
def test_a_malformed_record_is_refused(tmp_path: Path, text: str, why: str) -> None:
    path = _write(tmp_path / "decisions", "a-record.md", text)
    with pytest.raises(records.RecordError, match=why.replace("(", r"\(")):
        records.parse(path)


def test_two_records_with_one_title_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "decisions"
    _write(folder, "one.md", GOOD)
    _write(folder, "two.md", GOOD)
    with pytest.raises(records.RecordError, match="one title"):
        records.records(folder)


def test_a_citation_of_a_missing_section_or_record_is_found(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs, "decisions.md", "# Decisions\n\n## Strict wire names\nx\n")
    _write(docs, "decisions/strict-wire-names.md", GOOD)
    _write(docs, "architecture.md", "# Architecture\n\n## The handler (`host/fetch/`)\n")
    _write(docs, "threat-model.md", "# Threat model\n\n## The fence\n")
    _write(
        tmp_path,
        "mod.py",
        '"""Cited well (docs/decisions.md, "Strict wire\nnames"; docs/decisions/strict-wire-names.md;\n'
        'docs/architecture.md, "The handler"; docs/threat-model.md, "The fence").\n\n'
        'Cited wrong (docs/decisions.md, "Loose wire names"; docs/decisions/gone.md).\n"""\n'
        '# and wrapped over comment lines (docs/architecture.md, "The\n# carrier")\n',
    )
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=30)
    assert cites.broken(tmp_path) == [
        'mod.py:5: cites docs/decisions.md, "Loose wire names", which does not exist',
        'mod.py:7: cites docs/architecture.md, "The carrier", which does not exist',
        "mod.py:5: cites docs/decisions/gone.md, which does not exist",
    ]


def test_every_title_of_a_listed_citation_is_read() -> None:
    text = 'See docs/decisions.md "MCP servers", "Hooks",\n# "Hook rows" and "Hook\n# approval" (issue 29).'
    assert [c.target for c in cites.cites_in(text, "x.py")] == [
        "MCP servers",
        "Hooks",
        "Hook rows",
        "Hook approval",
    ]


def test_a_service_that_does_not_say_what_it_owns_stops_the_table() -> None:
    class Silent:
        pass

    with pytest.raises(ValueError, match="no docstring"):
        tables._summary(Silent)


def test_the_tool_checks_what_it_writes() -> None:
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-m", "docs_tools", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
