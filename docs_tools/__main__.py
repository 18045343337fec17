"""`python -m docs_tools [--check]`: write the decision index and the generated tables of
docs/architecture.md, or (`--check`) write nothing and exit 1 when a page is stale, a record is
malformed, or the code cites a decision that does not exist."""

from __future__ import annotations

import argparse
import sys

from docs_tools import cites, records, tables


def pages() -> list[tuple[str, str, str]]:
    """(path, committed text, text as the tool writes it) for each page it writes."""
    out = []
    for path, render in ((records.INDEX, records.render), (tables.ARCHITECTURE, tables.render)):
        text = path.read_text(encoding="utf-8")
        out.append((str(path.relative_to(records.ROOT)), text, render(text)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docs_tools", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when anything is stale")
    args = parser.parse_args(argv)
    try:
        written = pages()
    except (records.RecordError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.check:
        stale = [path for path, old, new in written if old != new]
        for path in stale:
            print(f"{path} is stale: regenerate it with `python -m docs_tools`", file=sys.stderr)
        bad = cites.broken()
        for line in bad:
            print(line, file=sys.stderr)
        return 1 if stale or bad else 0
    for path, old, new in written:
        if old != new:
            (records.ROOT / path).write_text(new, encoding="utf-8")
            print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
