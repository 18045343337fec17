"""The window starts on a data dir whose settings.json is not UTF-8 and whose credentials.json is
a folder (issue 24 measured the window never starting): the real host behind the bridge, the
real web UI, and the notice naming both files; neither file is touched."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.desktop.support import AppFactory, gui_test
from tests.support.scripted_llm import ScriptedLlmServer

ROOT = Path(__file__).resolve().parents[2]
LATIN_1 = b'{"version": 2, "namespaces": {"ui-appearance": {"theme": "caf\xe9"}}}\n'

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]


def wait_until(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


@gui_test
def test_the_window_starts_and_names_both_files(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_bytes(LATIN_1)
    (data / "credentials.json").mkdir()
    provider = ["--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m"]
    app = apps.launch("--webui", str(ROOT / "webui"), "--real-host", *provider, data_dir=data)
    page = app.page()
    wait_until(lambda: page.evaluate("document.documentElement.dataset.connection === 'connected'"))
    rows = wait_until(
        lambda: json.loads(
            page.evaluate(
                "JSON.stringify([...document.querySelectorAll('[data-testid=config-file-problem]')]"
                ".filter(e => !e.closest('[hidden]')).map(e => [e.dataset.file, e.textContent]))"
            )
        )
    )
    shown = dict(rows)
    assert "settings.json is not valid UTF-8 (byte 0xe9 on line 1)" in shown["settings.json"]
    assert "credentials.json is a folder, not a file." in shown["credentials.json"]
    assert app.close_window(60) == 0
    assert (data / "settings.json").read_bytes() == LATIN_1 and (data / "credentials.json").is_dir()
    beside = sorted(
        p.name
        for p in data.iterdir()
        if p.name.startswith((".settings", ".credentials", "settings", "credentials"))
    )
    assert beside == ["credentials.json", "settings.json"]  # no temp file, nothing set aside
