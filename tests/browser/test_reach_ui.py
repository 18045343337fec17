"""The agent's reach in the window (issue 45): "Always allow commands like this" on a card saves an
edited pattern rule that lets the next matching command run without a card; Settings lists the
rule and removes it; "Rewind to here" folds the rewound turn and puts its text back in the
composer (docs/decisions.md, "Rules by pattern", "Rewind in place")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import ElementHandle, Page, expect

from contract.methods import SETTINGS_MUTATE
from tests.browser.support import (
    HarnessServer,
    fresh_session,
    rpc,
    send,
    shoot,
    tool_call,
    tool_messages,
    turn_ends,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def _namespace(server: HarnessServer, ns: str) -> dict[str, Any]:
    path = server.data_dir / "settings.json"
    if not path.exists():
        return {}
    found: dict[str, Any] = json.loads(path.read_text())["namespaces"].get(ns, {})
    return found


def _rules(server: HarnessServer) -> list[dict[str, object]]:
    rules: list[dict[str, object]] = _namespace(server, "permission").get("rules", [])
    return rules


def _redrawn(page: Page, before: ElementHandle) -> None:
    """A saved section is drawn again from what the host now holds (the dialog reloads)."""
    page.wait_for_function("(el) => !el.isConnected", arg=before)


def _tools(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def test_a_card_saves_an_edited_pattern_and_the_next_command_runs_unasked(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    llm.enqueue(Reply(tool_calls=[tool_call("b1", "bash", command="echo first")]), Reply(text="Said it."))
    send(page, "Say first")
    card = page.get_by_test_id("approval-card")
    editor = card.get_by_test_id("rule-editor")
    editor.locator("summary").click()
    pattern = editor.get_by_test_id("rule-pattern")
    expect(pattern).to_have_value("echo first *")  # program and subcommand, then *
    pattern.fill("*")  # every command: refused by the host, nothing saved, the card still waits
    editor.get_by_test_id("rule-save").click()
    expect(editor.locator(".card-error")).to_be_visible()
    expect(editor.locator(".card-error")).to_contain_text("name the program")
    assert _rules(harness) == []
    pattern.fill("echo f*")
    shoot(page, "approval-rule-editor")
    editor.get_by_test_id("rule-save").click()
    turn_ends(page)
    rules = _rules(harness)
    assert [(r["tool"], r["pattern"], r.get("decision")) for r in rules] == [("bash", "echo f*", "allow")]
    assert rules[0]["folder"] == str(harness.workdir.resolve())

    llm.enqueue(Reply(tool_calls=[tool_call("b2", "bash", command="echo fine")]), Reply(text="Again."))
    send(page, "Say fine")
    turn_ends(page, 2)
    expect(page.get_by_test_id("approval-card")).to_have_count(0)  # covered by the rule: no card

    llm.enqueue(Reply(tool_calls=[tool_call("b3", "bash", command="echo other")]), Reply(text="Asked."))
    send(page, "Say other")
    card = page.get_by_test_id("approval-card")  # not covered: asked
    expect(card).to_be_visible()
    card.get_by_test_id("approval-reject").click()
    turn_ends(page, 3)

    page.get_by_test_id("open-settings").click()
    settings = page.get_by_test_id("settings-dialog")
    block = settings.get_by_test_id("rules-block")
    expect(block.get_by_test_id("rule-item")).to_have_count(1)
    expect(block.get_by_test_id("rule-item")).to_contain_text("echo f*")
    shoot(page, "settings-rules")
    block.get_by_test_id("rule-remove").click()
    saving = block.element_handle()
    block.get_by_test_id("rules-save").click()
    _redrawn(page, saving)
    expect(settings.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert _rules(harness) == []
    settings.get_by_test_id("settings-close").click()


def test_rewind_to_here_folds_the_turn_and_gives_back_the_text(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(Reply(text="First answer."))
    send(page, "first question")
    turn_ends(page)
    llm.enqueue(Reply(text="Second answer."))
    send(page, "second question")
    turn_ends(page, 2)
    second = page.get_by_test_id("msg-user").filter(has_text="second question")
    second.hover()
    second.get_by_test_id("rewind-here").click()
    dialog = page.get_by_test_id("rewind-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_test_id("rewind-keep-files").click()
    row = page.get_by_test_id("rewound-row")
    expect(row).to_contain_text("Rewound: 2 messages taken back")
    expect(page.get_by_test_id("composer-input")).to_have_value("second question")
    expect(second).to_be_hidden()
    expect(page.get_by_test_id("msg-user").filter(has_text="first question")).to_be_visible()
    row.get_by_test_id("rewound-toggle").click()
    expect(second).to_be_visible()
    expect(second).to_have_attribute("data-rewound", "true")
    shoot(page, "rewound-shown")
    row.get_by_test_id("rewound-toggle").click()
    expect(second).to_be_hidden()

    llm.enqueue(Reply(text="Third answer."))
    page.get_by_test_id("composer-input").fill("second question, better")
    page.get_by_test_id("composer-input").press("Enter")
    turn_ends(page, 3)
    sent = [m.get("content") for m in llm.requests[-1]["messages"]]
    assert "first question" in sent and "second question" not in sent and "second question, better" in sent

    # the rewound turns can be restored: a new session through the last rewound turn
    page.get_by_test_id("rewound-row").get_by_test_id("rewound-restore").click()
    back = page.get_by_test_id("msg-user").filter(has_text="second question")
    expect(back).to_have_count(1)
    expect(back).to_be_visible()
    expect(back).not_to_have_attribute("data-rewound", "true")
    expect(page.get_by_text("Third answer.")).to_have_count(0)
    llm.enqueue(Reply(text="Fourth answer."))
    send(page, "and now?")
    turn_ends(page, 3)
    sent = [m.get("content") for m in llm.requests[-1]["messages"]]
    assert "second question" in sent and "second question, better" not in sent


def test_settings_set_the_search_provider_a_deny_rule_and_a_language_server_off(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    llm.enqueue(Reply(text="No search yet."))
    send(page, "before")
    turn_ends(page)
    assert "web_fetch" in _tools(llm.requests[-1]) and "web_search" not in _tools(llm.requests[-1])

    page.get_by_test_id("open-settings").click()
    settings = page.get_by_test_id("settings-dialog")
    web = settings.get_by_test_id("settings-ns-web")
    web.get_by_test_id("web-search-kind").select_option("searxng")
    web.get_by_test_id("web-search-url").fill("not a url")
    web.get_by_test_id("settings-save-web").click()  # bad input: refused, nothing written
    expect(settings.get_by_test_id("settings-message")).not_to_have_text("Saved.")
    expect(settings.get_by_test_id("settings-message")).not_to_be_empty()
    assert _namespace(harness, "web") == {}
    web.get_by_test_id("web-search-url").fill("http://127.0.0.1:9")  # a private provider is fine
    web.get_by_test_id("web-host-new").fill("10.0.0.0/8")
    web.get_by_test_id("web-host-add").click()
    saving = web.element_handle()
    web.get_by_test_id("settings-save-web").click()
    _redrawn(page, saving)
    expect(settings.get_by_test_id("settings-message")).to_have_text("Saved.")
    saved = _namespace(harness, "web")
    assert saved["searchProvider"] == {"kind": "searxng", "url": "http://127.0.0.1:9"}
    assert saved["allowedPrivateHosts"] == ["10.0.0.0/8"]

    block = settings.get_by_test_id("rules-block")
    block.get_by_test_id("rule-new-tool").select_option("bash")
    block.get_by_test_id("rule-new-pattern").fill("echo secret*")
    block.get_by_test_id("rule-new-decision").select_option("deny")
    block.get_by_test_id("rule-add").click()
    expect(block.get_by_test_id("rule-item")).to_have_count(1)
    saving = block.element_handle()
    block.get_by_test_id("rules-save").click()
    _redrawn(page, saving)
    expect(settings.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert _rules(harness) == [
        {"tool": "bash", "pattern": "echo secret*", "decision": "deny", "folder": None}
    ]

    servers = settings.get_by_test_id("settings-ns-lsp")
    expect(servers.get_by_test_id("lsp-server")).to_have_count(6)
    servers.scroll_into_view_if_needed()
    shoot(page, "settings-language-servers")
    saving = servers.element_handle()
    servers.get_by_test_id("lsp-enabled-clangd").uncheck()
    _redrawn(page, saving)  # saved, and drawn again from what the host holds
    expect(
        settings.get_by_test_id("settings-ns-lsp").get_by_test_id("lsp-enabled-clangd")
    ).not_to_be_checked()
    expect(settings.get_by_test_id("settings-message")).to_have_text("Saved.")
    assert _namespace(harness, "lsp") == {"disabled": ["clangd"]}
    settings.get_by_test_id("settings-close").click()

    llm.enqueue(
        Reply(tool_calls=[tool_call("d1", "bash", command="echo secret things")]), Reply(text="Denied.")
    )
    send(page, "after")
    turn_ends(page, 2)
    expect(page.get_by_test_id("approval-card")).to_have_count(0)  # a deny rule refuses unasked
    assert "web_search" in _tools(llm.requests[-1])
    refused = tool_messages(llm.requests[-1])[-1]["content"]
    assert "Refused by the user's rule" in refused and "echo secret*" in refused

    # clean up for the module's other tests
    rpc(page, SETTINGS_MUTATE, {"ns": "permission", "ops": [{"op": "set", "path": ["rules"], "value": []}]})


def _png() -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 4 for _ in range(3))
    header = struct.pack(">IIBBBBB", 4, 3, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def test_the_image_the_agent_looked_at_shows_in_its_tool_card(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    profile = {"id": "openai-compatible", "name": "Scripted", "baseURL": llm.base_url}
    models = [{"id": "scripted-small", "images": True}]  # this model reads images
    rpc(
        page,
        SETTINGS_MUTATE,
        {
            "ns": "llm-openai-compatible",
            "ops": [{"op": "set", "path": ["profiles"], "value": [{**profile, "models": models}]}],
        },
    )
    (harness.workdir / "shot.png").write_bytes(_png())
    try:
        fresh_session(page)
        llm.enqueue(
            Reply(tool_calls=[tool_call("i1", "read_image", path="shot.png")]), Reply(text="A red image.")
        )
        send(page, "look at shot.png")
        turn_ends(page)
        card = page.get_by_test_id("tool-card").filter(has_text="read_image")
        card.locator("summary").first.click()
        thumb = card.get_by_test_id("tool-images").get_by_test_id("image-thumb")
        expect(thumb).to_have_count(1)
        expect(thumb).not_to_have_class("thumb loading")
        expect(thumb).not_to_have_class("thumb failed")
        assert thumb.locator("img").evaluate("(img) => img.naturalWidth") == 4
        parts = [
            p for m in llm.requests[-1]["messages"] if isinstance(m["content"], list) for p in m["content"]
        ]
        assert any(p.get("type") == "image_url" for p in parts)  # the model was shown it
    finally:
        rpc(
            page,
            SETTINGS_MUTATE,
            {"ns": "llm-openai-compatible", "ops": [{"op": "set", "path": ["profiles"], "value": []}]},
        )
        (harness.workdir / "shot.png").unlink()
