"""No `wait_for_function` is given an async page script.

Playwright's `wait_for_function` does not await what the script returns: an async script answers
a Promise, which is truthy, so the wait passes at once however the call turns out. A test that
"waited" for a job's output this way killed the host before the job had printed, and failed on
CI a day later. `tests/browser/support.wait_for_call` polls such a script for real.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def async_waits(source: str) -> list[int]:
    """The lines of `wait_for_function(...)` calls whose script is an async function."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "wait_for_function" or not node.args:
            continue
        script = node.args[0]
        if isinstance(script, ast.Constant) and isinstance(script.value, str):
            text = script.value.lstrip()
            if text.startswith("async") or "await " in text:
                found.append(node.lineno)
    return found


def test_the_rule_finds_an_async_wait() -> None:
    bad = 'page.wait_for_function("""async (s) => { return (await f(s)).ok; }""", arg=1)\n'
    good = 'page.wait_for_function("() => window.ready === true")\n'
    assert async_waits(bad) == [1]
    assert async_waits(good) == []


def test_no_wait_for_function_is_given_an_async_script() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in ("tests", "bench")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line in async_waits(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], f"async scripts in wait_for_function (use wait_for_call): {offenders}"
