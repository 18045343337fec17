"""A model without tools, asked to act, says it cannot — and the page says so plainly (issue 46,
item 1): the built-in model answered "No, I created todo.md…" while nothing was created. The
host tells the model in the same turn (a `no-tools` context message) and the page shows a row
that nothing was done and what would work; a plain question gets no such row."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from contract.methods import AGENT_PRESET_SELECT
from tests.browser.support import fresh_session, rpc, send, snap, turn_ends, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def test_asking_a_chat_only_model_to_act_says_it_cannot(page: Page, llm: ScriptedLlmServer) -> None:
    sid = fresh_session(page)
    rpc(page, AGENT_PRESET_SELECT, {"sessionId": sid, "agentPreset": "chat"})  # no tools at all
    llm.enqueue(Reply(text="Paris."), Reply(text="Yes, I created todo.md for you."))
    send(page, "What is the capital of France?")
    turn_ends(page, 1)
    expect(page.get_by_test_id("no-tools-row")).to_have_count(0)
    send(page, "Create a file called todo.md with my list")
    turn_ends(page, 2)
    wait_idle(page)
    row = page.get_by_test_id("no-tools-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("This model cannot act: it only chats.")
    expect(row).to_contain_text("did not read, create, change or run anything")
    sent = [m for m in llm.requests[-1]["messages"] if m["role"] == "user"]
    assert "you have no tools" in str(sent[-1]["content"])  # the model was told, in that turn
    snap(page, "/tmp/offline-no-tools-row.png")
