#!/usr/bin/env bash
# Run every test: the generated JS contract is current, lint, types, layering, Python suites
# (engine, API, browser, window), JS units.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin
$py/python -m contract --check   # webui/js/contract.gen.js matches contract/
$py/ruff check .
$py/ruff format --check .
$py/mypy
node --test --test-reporter=dot tests/js/
$py/pytest -q "$@"
