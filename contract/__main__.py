"""`python -m contract [--out DIR] [--js FILE] [--doc FILE] [--docs] [--check]`: everything derived
from the contract.

Writes the JSON Schemas and the OpenAPI document into DIR, regenerates the web client's module
(`webui/js/contract.gen.js`) and the error and method tables of `docs/architecture.md`. `--docs`
rewrites only those tables. `--check` writes nothing and fails when the committed module or the
tables are stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contract import docgen, jsgen
from contract.schema import write_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m contract", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", type=Path, default=Path("schema-out"), help="JSON Schema / OpenAPI directory"
    )
    parser.add_argument("--js", type=Path, default=jsgen.JS_MODULE, help="the generated ES module")
    parser.add_argument("--doc", type=Path, default=docgen.ARCHITECTURE, help="the page with the tables")
    parser.add_argument("--docs", action="store_true", help="rewrite only the page's generated tables")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the ES module or the tables are stale"
    )
    args = parser.parse_args(argv)
    if args.check:
        stale = [
            str(p)
            for p, fresh in ((args.js, jsgen.is_current(args.js)), (args.doc, docgen.is_current(args.doc)))
            if not fresh
        ]
        for path in stale:
            print(f"{path} is stale: regenerate it with `python -m contract`", file=sys.stderr)
        return 1 if stale else 0
    if not args.docs:
        files = write_all(args.out)
        print(f"wrote {len(files)} files to {args.out}", file=sys.stderr)
        print(f"wrote {jsgen.write(args.js)}", file=sys.stderr)
    print(f"wrote the generated tables of {docgen.write(args.doc)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
