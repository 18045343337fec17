#!/usr/bin/env bash
# Run every test: the generated JS contract is current, lint, types, layering, Python suites
# (engine, API, browser, window), JS units.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin
# Compiled bytecode for every Python the suite starts goes to one cache outside the repository
# instead of being recompiled at each start (tests/conftest.py does the same for the test's own
# subprocesses).
export PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-${TMPDIR:-/tmp}/harnessdesk-test-pycache-$(id -u)}"
unset PYTHONDONTWRITEBYTECODE
$py/python -m contract --check   # webui/js/contract.gen.js matches contract/
$py/python -m docs_tools --check # the decision index and the generated tables of docs/ match
$py/ruff check .
$py/ruff format --check .
$py/mypy
node --test --test-reporter=dot tests/js/
# Four workers on this 2-core machine: the suite is mostly waiting on subprocesses, sockets and
# the browser, and three still left a third of the CPU idle (15 min against 11.5 with four,
# docs/decisions/a-parallel-suite.md); a file's tests stay on one worker, so module-scoped
# servers and browsers are built once. Files go out longest first, in the order
# tests/support/file_order.py gives, not xdist's (most tests first), so no long file is left for
# the end ("Longest files first").
$py/pytest -q -n "${HARNESSDESK_TEST_WORKERS:-4}" --dist loadfile --no-loadscope-reorder "$@"
