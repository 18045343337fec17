"""Rows read by column name: a statement's columns become a named tuple's fields, so code says
`row.cwd`, not `row[3]`, and a column added to or moved in a SELECT cannot shift the others
(docs/decisions.md, "Rows by name").

Named tuples rather than `sqlite3.Row`: attribute access costs about a third of `Row`'s lookup
by name, which shows on `session.list` over thousands of sessions. A one-column read (an
event's json, a sha) stays a plain tuple: there is no position to get wrong.
"""

from __future__ import annotations

import functools
import sqlite3
from collections import namedtuple
from typing import Any


@functools.lru_cache(maxsize=256)
def _row_type(names: tuple[str, ...]) -> Any:
    return namedtuple("Row", names)


def _maker(cursor: sqlite3.Cursor) -> Any:
    """Every column needs a plain name: an expression needs `AS name` (namedtuple rejects it)."""
    return _row_type(tuple(d[0] for d in cursor.description))._make


def named_rows(cursor: sqlite3.Cursor) -> list[Any]:
    """All rows of an executed statement, by column name."""
    return list(map(_maker(cursor), cursor.fetchall()))


def named_row(cursor: sqlite3.Cursor) -> Any | None:
    """The first row of an executed statement, by column name (None when there is none)."""
    row = cursor.fetchone()
    return None if row is None else _maker(cursor)(row)


def named_values(columns: str, values: tuple[Any, ...]) -> Any:
    """`values` read some other way (salvage reads a damaged file one guarded row at a time) of
    a statement that selected `columns`, a comma-separated list of plain names."""
    return _row_type(tuple(c.strip() for c in columns.split(",")))._make(values)
