"""Generated blocks inside a hand-written page: the text between a BEGIN and an END marker is the
tool's, everything around it is the page's own prose and is left as it is."""

from __future__ import annotations

from collections.abc import Callable, Mapping


def begin(name: str) -> str:
    return f"<!-- BEGIN GENERATED {name}: `python -m docs_tools` writes this -->"


def end(name: str) -> str:
    return f"<!-- END GENERATED {name} -->"


def fill(text: str, bodies: Mapping[str, Callable[[], str]], page: str) -> str:
    """`text` with each named block replaced by what its function renders now."""
    for name, render in bodies.items():
        head, tail = begin(name), end(name)
        start, stop = text.find(head), text.find(tail)
        if start < 0 or stop < start:
            raise ValueError(f"{page}: no generated block {name!r} (markers {head!r} … {tail!r})")
        text = text[: start + len(head)] + "\n" + render() + "\n" + text[stop:]
    return text
