"""A configuration file the host cannot use, as a person meets it in headless Chromium over a
real `harnessdesk serve`: settings.json with a trailing comma and a folder where credentials.json
belongs. One notice names each file and what is wrong; "Open file" hands settings.json to the
desktop's default application (a recorder here); a fix saved by hand clears its row; "Reset"
keeps the folder as credentials.json.broken-<time> and starts the file afresh."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.api.test_host_folders import desktop
from tests.browser.shots import SHOTS
from tests.browser.support import Contexts, HarnessServer, openai_args, snap
from tests.support.scripted_llm import ScriptedLlmServer

__all__ = ["desktop"]  # the xdg recorder fixture (DISPLAY and a default application for files)

pytestmark = pytest.mark.browser

BROKEN = b'{"version": 2, "namespaces": {\n  "ui-appearance": {"theme": "dark"},\n}}\n'
FIXED = '{"version": 2, "namespaces": {"ui-appearance": {"theme": "dark"}}}\n'


def opened(recorder: Path, count: int, within: float = 30.0) -> list[str]:
    log = recorder / "opened.txt"
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if log.exists() and len(lines := log.read_text().splitlines()) >= count:
            return lines
        time.sleep(0.05)
    raise AssertionError("the default application was never started")


def test_the_notice_names_the_file_opens_it_and_resets_it(
    tmp_path: Path,
    desktop: Path,
    contexts: Contexts,
    make_harness: Callable[..., HarnessServer],
    llm: ScriptedLlmServer,
) -> None:
    data = tmp_path / "own-0" / "data"  # where make_harness's first server keeps its data
    data.mkdir(parents=True)
    (data / "settings.json").write_bytes(BROKEN)
    (data / "credentials.json").mkdir()
    (data / "credentials.json" / "note.txt").write_text("kept")
    server = make_harness(openai_args(llm.base_url))
    page: Page = contexts.warm_page(server.url)

    notice = page.get_by_test_id("config-file-notice")
    expect(notice).to_be_visible()
    settings_row = notice.locator('[data-testid="config-file-problem"][data-file="settings.json"]')
    creds_row = notice.locator('[data-testid="config-file-problem"][data-file="credentials.json"]')
    expect(settings_row).to_contain_text(
        "settings.json is not valid JSON: a comma before the closing } (line 3, column 1)."
    )
    expect(creds_row).to_contain_text("credentials.json is a folder, not a file")
    SHOTS.mkdir(parents=True, exist_ok=True)
    snap(page, SHOTS / "config-file-notice.png")

    # A write from the page is refused, and the file stays as the person left it.
    refused = page.evaluate(
        """() => window.harnessdesk.client.call("settings.mutate",
             {ns: "ui-appearance", ops: [{op: "set", path: ["theme"], value: "light"}]})"""
    )
    assert refused["ok"] is False and refused["error"]["code"] == "settings-rejected"
    assert (data / "settings.json").read_bytes() == BROKEN

    page.get_by_test_id("open-settings").click()  # Settings says so too, before anyone types
    dialog = page.get_by_test_id("settings-dialog")
    expect(dialog.get_by_test_id("settings-message")).to_contain_text("settings.json is not valid JSON")
    expect(dialog.get_by_test_id("settings-message")).to_contain_text("credentials.json is a folder")
    dialog.get_by_test_id("settings-close").click()

    settings_row.get_by_test_id("config-file-open").click()
    assert opened(desktop, 1) == [str(data / "settings.json")]

    (data / "settings.json").write_text(FIXED)  # saved from the editor
    expect(settings_row).to_have_count(0)
    expect(creds_row).to_be_visible()
    assert (data / "settings.json").read_text() == FIXED  # the host wrote nothing over the fix

    creds_row.get_by_test_id("config-file-reset").click()
    page.get_by_test_id("config-file-reset-confirm-ok").click()
    expect(notice).to_be_hidden()
    expect(page.get_by_test_id("toast").last).to_contain_text(
        "the old file is kept as credentials.json.broken-"
    )
    [kept] = [p for p in data.iterdir() if p.name.startswith("credentials.json.broken-")]
    assert (kept / "note.txt").read_text() == "kept"
    assert json.loads((data / "credentials.json").read_text()) == {"version": 2, "credentials": {}}
    assert (data / "settings.json").read_text() == FIXED
