"""`python -m contract [--out DIR]`: write the JSON Schemas and the OpenAPI document."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contract.schema import write_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m contract", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("schema-out"), help="output directory")
    args = parser.parse_args(argv)
    files = write_all(args.out)
    print(f"wrote {len(files)} files to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
