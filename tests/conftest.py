"""Root fixtures: shared plugins live in tests/support/ (each suite keeps its own conftest)."""

import os
import sys
import tempfile
from pathlib import Path

import pytest

# Every host the tests open, in this process or in one they start, checks each value and frame it
# sends against the contract (host/fetch/handler.py; off in the product).
os.environ.setdefault("HARNESSDESK_DEV_VALIDATE", "1")
# ... and runs as on a machine without a sandbox (host/engine/sandbox/probe.py): a session in Auto
# asks like Ask, as the approval tests expect. The sandbox tests turn it on (tests/security/
# sandboxing.py `sandbox_on`).
os.environ.setdefault("HARNESSDESK_SANDBOX", "none")
# ... and speaks English whatever the machine's locale (the command line and the window follow
# it: desktop/i18n; the browser tests set their context's locale): the tests read English words.
# The language tests set their own (tests/desktop/test_languages.py, tests/browser/test_i18n.py).
if any(os.environ.get(n, "").lower().startswith("zh") for n in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")):
    os.environ.pop("LANGUAGE", None)
    os.environ["LC_ALL"] = "C.UTF-8"

# Every `python` the tests start (serve, the CLI, the fork servers, a copied repository's suites)
# reuses compiled bytecode instead of compiling our modules again at each start: the environment
# turns bytecode writing off, so the cache goes to one directory outside the repository, not to
# `__pycache__` folders in it (docs/decisions.md, "Bytecode for the suite's subprocesses").
# Python checks each source's mtime and size, so an edited module is compiled again.
os.environ.setdefault(
    "PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / f"harnessdesk-test-pycache-{os.getuid()}")
)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

pytest_plugins = ["tests.support.scripted_llm", "tests.support.file_order"]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test that does not use the browser streak ends it first (tests/browser/streak.py): the
    Playwright driver's event loop must not outlive the browser tests into an asyncio test."""
    if "playwright_driver" not in getattr(item, "fixturenames", ()):
        close_browser_streak()


def pytest_sessionfinish(session: pytest.Session) -> None:
    close_browser_streak()


def close_browser_streak() -> None:
    streak = sys.modules.get("tests.browser.streak")  # only where a browser test ran
    if streak is not None and streak.STREAK.open:
        streak.STREAK.close()
