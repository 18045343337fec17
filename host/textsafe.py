"""Strings that are always valid Unicode text (docs/threat-model.md, "Hostile content").

Python strings may hold lone surrogates: a file name with a non-UTF-8 byte comes back from
`os.scandir` as `\\udce9`, and `json.loads` turns the escape `"\\ud800"` from a request body or
a model's stream into one. Such a string cannot be encoded as UTF-8, so SQLite, JSON encoders
and HTTP clients raise on it. Every boundary where text enters the host runs it through here;
a lone surrogate becomes U+FFFD (surrogate pairs are joined into their character).
"""

from __future__ import annotations

import itertools
from typing import Any

REPLACEMENT = "\ufffd"


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD; unchanged (same object) if valid."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def clean_json(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with every string cleaned. Copy on
    write: a container none of whose strings changed comes back as the same object, so cleaning
    a model request (the whole conversation) costs no second copy of it."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        changed: dict[Any, Any] | None = None
        for i, (k, v) in enumerate(value.items()):
            ck = clean_text(k) if isinstance(k, str) else k
            cv = clean_json(v)
            if changed is None and (ck is not k or cv is not v):
                changed = dict(itertools.islice(value.items(), i))
            if changed is not None:
                changed[ck] = cv
        return value if changed is None else changed
    if isinstance(value, list):
        out: list[Any] | None = None
        for i, v in enumerate(value):
            cv = clean_json(v)
            if out is None and cv is not v:
                out = value[:i]
            if out is not None:
                out.append(cv)
        return value if out is None else out
    return value


def encode_utf8(text: str) -> bytes:
    """UTF-8 bytes of `text`, lone surrogates as U+FFFD: never raises."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return clean_text(text).encode("utf-8")
