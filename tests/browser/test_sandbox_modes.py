"""The one mode picker and its badge, with the real sandbox (a `serve` of the test's own that
probes bubblewrap; the suite's other servers run as on a machine without one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from host.engine.sandbox.probe import FORCE_ENV, probe_bwrap
from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    openai_args,
    send,
    snap,
    tool_call,
    turn_ends,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def open_settings(page: Page) -> Locator:
    page.get_by_test_id("open-settings").click()
    dialog = page.get_by_test_id("settings-dialog")
    expect(dialog).to_be_visible()
    return dialog


pytestmark = pytest.mark.skipif(not probe_bwrap().available, reason="no bubblewrap here")
AUTO = "Auto — runs inside this folder, asks before anything else."


def test_auto_runs_without_a_click_and_the_picker_switches_modes(
    contexts: Contexts,
    make_harness: Callable[..., HarnessServer],
    llm: ScriptedLlmServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.delenv(FORCE_ENV, raising=False)  # this server probes the machine's sandbox
    server = make_harness(openai_args(llm.base_url))
    page = contexts.warm_page(server.url)
    fresh_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("w1", "write_file", path="hello.py", content="print('hi')\n")]),
        Reply(tool_calls=[tool_call("b1", "bash", command="python3 hello.py > out.txt && cat out.txt")]),
        Reply(tool_calls=[tool_call("b2", "bash", command="echo x > /etc/escape.txt")]),
        Reply(text="Done."),
    )
    send(page, "Write and run hello.py")
    # writing and running inside the folder took no click; only b2, which failed inside the
    # sandbox writing outside the folder, asks whether to run it again outside: refused
    card = page.get_by_test_id("approval-card")
    expect(card).to_have_count(1)
    assert (server.workdir / "out.txt").read_text() == "hi\n"
    expect(card.get_by_test_id("approval-args")).to_contain_text("/etc/escape.txt")
    card.get_by_test_id("approval-reject").click()
    turn_ends(page)
    expect(page.get_by_test_id("approval-card")).to_have_count(0)
    blocked = page.locator('[data-testid="tool-card"][data-call-id="b2"]')
    expect(blocked.get_by_test_id("tool-result")).to_contain_text("blocked by the sandbox")
    badge = page.get_by_test_id("permission-badge")
    expect(badge).to_have_text(AUTO)

    llm.enqueue(
        Reply(tool_calls=[tool_call("n1", "bash", command="true", network=True)]),
        Reply(text="Asked."),
    )
    send(page, "Download it")
    card = page.get_by_test_id("approval-card")
    expect(card.get_by_test_id("approval-args")).to_contain_text("network")
    card.get_by_test_id("approval-reject").click()
    turn_ends(page, 2)

    page.get_by_test_id("permissions-toggle").click()
    modes = page.get_by_test_id("permission-mode")
    expect(modes).to_have_count(4)
    expect(page.get_by_test_id("permission-sandbox")).to_contain_text("bubblewrap")
    page.locator('[data-testid="permission-mode"][data-mode="danger-full-access"]').click()
    confirm = page.get_by_test_id("full-access-confirm")
    expect(confirm).to_contain_text("turns the sandbox off and never asks")
    page.get_by_test_id("permissions-dialog").screenshot(path=str(tmp_path / "full-access-confirm.png"))
    page.get_by_test_id("full-access-no").click()
    expect(confirm).to_be_hidden()
    expect(badge).to_have_text(AUTO)  # nothing changed

    page.locator('[data-testid="permission-mode"][data-mode="danger-full-access"]').click()
    page.get_by_test_id("full-access-yes").click()
    expect(badge).to_contain_text("Full access — no sandbox, never asks")
    expect(page.get_by_test_id("permission-network")).to_be_disabled()

    page.locator('[data-testid="permission-mode"][data-mode="auto"]').click()
    expect(badge).to_have_text(AUTO)
    page.get_by_test_id("permission-network").check()
    expect(badge).to_contain_text("Network allowed.")
    page.get_by_test_id("permissions-dialog").screenshot(path=str(tmp_path / "modes.png"))
    page.get_by_test_id("permissions-close").click()
    snap(page, tmp_path / "header.png")  # looked at by a person (docs/decisions.md)


def test_full_access_as_the_default_shows_its_consequence_before_it_is_saved(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url), "full-default")
    page = contexts.warm_page(server.url)
    dialog = open_settings(page)
    section = dialog.get_by_test_id("settings-ns-permission")
    section.get_by_test_id("setting-permission-defaultPreset-danger-full-access").check()
    save = section.get_by_test_id("settings-save-permission")
    save.click()
    confirm = page.get_by_test_id("loosen-confirm")
    expect(confirm).to_contain_text("turns the sandbox off")
    expect(dialog.get_by_test_id("settings-message")).not_to_have_text("Saved.")
    stored = server.data_dir / "settings.json"
    assert not stored.exists() or "danger-full-access" not in stored.read_text()  # nothing saved yet
    confirm.get_by_test_id("loosen-confirm-ok").click()  # the person confirms
    expect(dialog.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert "danger-full-access" in stored.read_text()
