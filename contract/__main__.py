"""`python -m contract [--out DIR] [--js FILE] [--check]`: everything derived from the contract.

Writes the JSON Schemas and the OpenAPI document into DIR and regenerates the web client's
module (`webui/js/contract.gen.js`). `--check` writes nothing and fails when the committed
module is stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contract import jsgen
from contract.schema import write_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m contract", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", type=Path, default=Path("schema-out"), help="JSON Schema / OpenAPI directory"
    )
    parser.add_argument("--js", type=Path, default=jsgen.JS_MODULE, help="the generated ES module")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the ES module is stale"
    )
    args = parser.parse_args(argv)
    if args.check:
        if jsgen.is_current(args.js):
            return 0
        print(f"{args.js} is stale: regenerate it with `python -m contract`", file=sys.stderr)
        return 1
    files = write_all(args.out)
    print(f"wrote {len(files)} files to {args.out}", file=sys.stderr)
    print(f"wrote {jsgen.write(args.js)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
