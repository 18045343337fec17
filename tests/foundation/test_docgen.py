"""The error and method tables of docs/architecture.md are generated from the contract
(contract/docgen.py; `python -m contract --docs`), and `--check` fails when they are stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from contract import docgen
from contract.errors import ERROR_DETAILS, SessionDetails
from contract.methods import METHODS
from tests.foundation.test_jsgen import run_contract

PAGE = docgen.ARCHITECTURE.read_text(encoding="utf-8")


def table(text: str, name: str) -> list[str]:
    body = text.split(docgen.begin(name), 1)[1].split(docgen.end(name), 1)[0]
    return [line for line in body.splitlines() if line.startswith("| `")]


def test_the_committed_tables_are_current_and_complete() -> None:
    assert docgen.is_current(), "docs/architecture.md is stale: run `python -m contract --docs`"
    assert [row.split("`")[1] for row in table(PAGE, "errors")] == list(ERROR_DETAILS)
    assert [row.split("`")[1] for row in table(PAGE, "methods")] == list(METHODS)


def test_rows_carry_the_details_shape_and_the_policies() -> None:
    errors = table(PAGE, "errors")
    assert "| `session-conflict` | `{sessionId, requestedCwd, existingCwd?}` |" in "\n".join(errors)
    assert any(r.startswith("| `storage-error` | `{reason}` | the database") for r in errors)
    methods = {r.split(" | ", 1)[0]: r for r in table(PAGE, "methods")}
    assert methods["| `session.delete`"].endswith("| yes |  | changes | fenced |")
    assert methods["| `host.pickDirectory`"].endswith("| yes | yes |  |  |")
    assert "| changes | open: a person may halt" in methods["| `job.stop`"]


def test_check_fails_on_a_stale_table_and_docs_rewrites_only_the_tables(tmp_path: Path) -> None:
    page = tmp_path / "architecture.md"
    stale = PAGE.replace("| `session-not-found` |", "| `session-lost` |").replace(
        "## Layers", "## Layers (a person's edit outside the tables)"
    )
    page.write_text(stale, encoding="utf-8")
    run = run_contract("--check", "--doc", str(page))
    assert run.returncode == 1 and f"{page} is stale" in run.stderr
    assert page.read_text(encoding="utf-8") == stale, "--check writes nothing"
    run = run_contract("--docs", "--doc", str(page))
    assert run.returncode == 0, run.stderr
    fresh = page.read_text(encoding="utf-8")
    assert "| `session-not-found` |" in fresh and "`session-lost`" not in fresh
    assert "## Layers (a person's edit outside the tables)" in fresh
    assert run_contract("--check", "--doc", str(page)).returncode == 0
    assert not list(tmp_path.glob("*.tmp"))


def test_a_page_without_markers_or_a_code_without_its_sentence_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="markers"):
        docgen.render("# no tables here\n")
    assert not docgen.is_current(tmp_path / "absent.md")
    monkeypatch.setitem(ERROR_DETAILS, "session-gone", SessionDetails)
    with pytest.raises(ValueError, match=r"no sentence for \['session-gone'\]"):
        docgen.render_errors()
