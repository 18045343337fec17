"""One type for every request field that names a file or folder on the host.

A path must be text the operating system can take: no NUL (every POSIX call ends the string
there, and Python refuses it with a `ValueError` deep inside the handler), no lone surrogate
(what an undecodable byte becomes in Python text: it names no file a client could reach) and no
U+FFFD (what the carrier turns such a surrogate into, docs/architecture.md "The handler"). A path
that breaks one of these is a `bad-request` with issues, before any handler sees it
(docs/decisions.md, "Paths and archives from outside").
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field


def check_path_text(value: str) -> str:
    """`value` unchanged, or ValueError naming the first character no path can hold."""
    for index, char in enumerate(value):
        code = ord(char)
        if code == 0:
            raise ValueError(f"a path cannot hold a NUL character (at position {index})")
        if 0xD800 <= code <= 0xDFFF or code == 0xFFFD:
            raise ValueError(f"a path cannot hold an invalid byte or lone surrogate (at position {index})")
    return value


HostPath = Annotated[str, Field(max_length=4096), AfterValidator(check_path_text)]
"""A path on the host as a request names it (absolute or not is each field's own rule)."""

PathSegment = Annotated[str, Field(max_length=255), AfterValidator(check_path_text)]
"""One name inside a folder (a folder to create)."""
