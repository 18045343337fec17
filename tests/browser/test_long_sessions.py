"""Long sessions as a user sees them: Stop keeps the queue (Stop all clears it), the jobs panel,
the "Earlier conversation summarized" row and the context meter (with screenshots)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import HarnessServer, fresh_session, send, shoot, tool_call, turn_ends, wait_idle
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


APPLES = "Apples are pomaceous fruits; there are thousands of varieties. " * 1_600
"""~104,000 characters: an answer of about 26,000 tokens, most of a 32,768-token window."""


def usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def test_stop_keeps_the_queue_and_the_next_message_runs(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(text="Working on the first request at length " * 20, chunk_size=8, hang_after=4),
        Reply(text="Second request done."),
        Reply(text="Third request done."),
    )
    send(page, "First, take your time")
    expect(page.get_by_test_id("assistant-text")).to_contain_text("Working on the first")
    send(page, "Second, queued")
    send(page, "Third, queued")
    queue = page.get_by_test_id("queue")
    expect(queue.get_by_test_id("queue-item")).to_have_count(2)
    expect(queue.get_by_test_id("queue-stop-all")).to_be_visible()
    shoot(page, "queue-while-running")
    stop = page.get_by_test_id("composer-stop")
    expect(stop).to_have_attribute("title", re.compile("2 waiting messages run next"))
    stop.click()
    # only the turn stopped: the toast says so, and the queued messages run one after the other
    expect(page.get_by_test_id("toast").filter(has_text="2 waiting messages run next")).to_be_visible()
    expect(page.get_by_test_id("assistant-text").filter(has_text="Second request done.")).to_be_visible()
    expect(page.get_by_test_id("assistant-text").filter(has_text="Third request done.")).to_be_visible()
    ends = turn_ends(page, 3)
    expect(ends.nth(0)).to_have_attribute("data-reason", "aborted")
    expect(ends.nth(1)).to_have_attribute("data-reason", "completed")
    wait_idle(page)
    expect(queue).to_be_hidden()
    assert llm.wait_for_disconnects(1)

    # Stop all: the running turn ends and nothing that waited runs
    llm.enqueue(Reply(text="Another long answer " * 30, chunk_size=8, hang_after=4))
    send(page, "Fourth, long")
    expect(page.get_by_test_id("assistant-text").last).to_contain_text("Another long answer")
    send(page, "Fifth, never runs")
    expect(queue.get_by_test_id("queue-item")).to_have_count(1)
    queue.get_by_test_id("queue-stop-all").click()
    expect(turn_ends(page, 4).nth(3)).to_have_attribute("data-reason", "aborted")
    wait_idle(page)
    expect(queue).to_be_hidden()
    expect(page.get_by_test_id("msg-user").filter(has_text="Fifth, never runs")).to_have_count(0)
    assert len(llm.requests) == 4


def test_the_jobs_panel_shows_a_running_job_and_stops_it(
    page: Page, llm: ScriptedLlmServer, harness: HarnessServer
) -> None:
    fresh_session(page)
    command = "echo serving on port 8000; sleep 1000"
    llm.enqueue(
        Reply(
            text="Starting the server.",
            tool_calls=[tool_call("c-j", "bash", command=command, run_in_background=True)],
        ),
        Reply(text="The server runs in the background."),
    )
    send(page, "Start the dev server")
    page.get_by_test_id("approval-card").get_by_test_id("approval-allow-once").click()
    turn_ends(page)
    toggle = page.get_by_test_id("jobs-toggle")
    expect(toggle.get_by_test_id("jobs-count")).to_have_text("1 running")
    toggle.click()
    panel = page.get_by_test_id("jobs-panel")
    job = panel.get_by_test_id("job-item")
    expect(job).to_have_attribute("data-status", "running")
    expect(job.get_by_test_id("job-label")).to_have_text(command)
    expect(job.get_by_test_id("job-elapsed")).to_have_text(re.compile(r"^\d+ s$"))
    job.get_by_test_id("job-output-toggle").click()
    expect(job.get_by_test_id("job-output")).to_contain_text("serving on port 8000")
    shoot(page, "jobs-panel")
    job.get_by_test_id("job-stop").click()
    expect(job).to_have_attribute("data-status", "killed")
    expect(job).to_contain_text("stopped by the user")
    expect(toggle.get_by_test_id("jobs-count")).to_have_text("1")
    expect(job.get_by_test_id("job-stop")).to_have_count(0)


def test_earlier_conversation_summarized_and_the_context_meter(page: Page, llm: ScriptedLlmServer) -> None:
    fresh_session(page)
    llm.enqueue(
        Reply(text=APPLES, chunk_size=8_000, usage=usage(600, 26_000)),
        Reply(text="- The user asked about apples.\n- The answer named them pomaceous fruits."),
        Reply(text="Pears are close relatives of apples.", usage=usage(900, 40)),
    )
    send(page, "Tell me about apples")
    turn_ends(page)
    meter = page.get_by_test_id("context-meter")
    expect(meter).to_have_attribute("data-level", "full")
    expect(page.get_by_test_id("context-meter-text")).to_have_text(
        re.compile(r"26\.6K / 32\.8K", re.IGNORECASE)
    )
    shoot(page, "context-meter-full")
    # past 80 % of the window: the next request is preceded by a summary of what came before
    send(page, "And pears?")
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Pears are close relatives of apples.")
    wait_idle(page)
    row = page.get_by_test_id("summary-row")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("summary-toggle")).to_contain_text("Earlier conversation summarized")
    expect(row.get_by_test_id("summary-toggle")).to_contain_text("2 messages")
    # the summarized turn stays readable in place, marked as out of the model's context
    first = page.get_by_test_id("msg-user").filter(has_text="Tell me about apples")
    expect(first).to_have_attribute("data-out-of-context", "true")
    expect(page.get_by_test_id("msg-user").filter(has_text="And pears?")).not_to_have_attribute(
        "data-out-of-context", "true"
    )
    expect(page.locator("[data-out-of-context=true]")).to_have_count(3)  # question, answer, footer
    expect(meter).to_have_attribute("data-level", "ok")
    expect(page.get_by_test_id("context-meter-text")).to_have_text(re.compile(r"940 / 32\.8K", re.IGNORECASE))
    shoot(page, "summarized-row-collapsed")
    row.get_by_test_id("summary-toggle").click()
    expect(row.get_by_test_id("summary-text")).to_contain_text("The user asked about apples.")
    shoot(page, "summarized-row")
    sent = llm.requests[2]["messages"]
    assert "Tell me about apples" not in str(sent) and "The user asked about apples." in sent[1]["content"]


def test_compact_keeps_the_history_readable_and_the_meter_drops(page: Page, llm: ScriptedLlmServer) -> None:
    """`/compact`: the summary sits after the turns it covers, which stay visible (marked out of
    context), before the next turn; the meter falls from what it showed."""
    fresh_session(page)
    llm.enqueue(
        Reply(text="Plums are stone fruits. " * 400, usage=usage(9_000, 2_400)),
        Reply(text="Cherries are stone fruits too.", usage=usage(12_000, 30)),
        Reply(text="- Plums and cherries are stone fruits."),
        Reply(text="Peaches as well.", usage=usage(800, 10)),
    )
    send(page, "Tell me about plums")
    turn_ends(page)
    send(page, "And cherries?")
    turn_ends(page, 2)
    wait_idle(page)
    meter_text = page.get_by_test_id("context-meter-text")
    expect(meter_text).to_have_text(re.compile(r"^12K / "))
    box = page.get_by_test_id("composer-input")
    box.fill("/compact")
    # the menu opens after an async catalogue read: Enter completes the name only once it shows
    expect(page.get_by_test_id("slash-item").filter(has_text="/compact")).to_be_visible()
    box.press("Enter")  # the slash menu completes the name
    expect(box).to_have_value("/compact ")
    box.press("Enter")
    row = page.get_by_test_id("summary-row")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("summary-toggle")).to_contain_text("/compact")
    wait_idle(page)
    expect(page.locator("[data-out-of-context=true][data-testid=msg-user]")).to_have_count(2)
    for text in ("Tell me about plums", "And cherries?"):
        expect(page.get_by_test_id("msg-user").filter(has_text=text)).to_be_visible()
    expect(row.get_by_test_id("summary-note")).to_contain_text("no longer in the model's context")
    # the meter dropped below what it showed before /compact
    shown = meter_text.inner_text().split(" / ")[0]
    assert not shown.endswith("K") or float(shown[:-1]) < 12, shown
    # the summary sits where it happened: after the covered rows, before the next turn
    send(page, "And peaches?")
    # a generous bound: the turn after a compaction waits on the loaded machine's queue
    expect(page.get_by_test_id("assistant-text").last).to_have_text("Peaches as well.", timeout=30_000)
    wait_idle(page)
    order = page.locator("[data-testid=msg-user], [data-testid=summary-row]").evaluate_all(
        "els => els.map(e => e.dataset.testid === 'summary-row' ? 'summary' : e.textContent.trim())"
    )
    assert [o[:12] for o in order] == ["Tell me abou", "And cherries", "summary", "And peaches?"], order
    expect(page.get_by_test_id("msg-user").filter(has_text="And peaches?")).not_to_have_attribute(
        "data-out-of-context", "true"
    )
    page.get_by_test_id("msg-user").filter(has_text="And cherries?").scroll_into_view_if_needed()
    shoot(page, "compact-history-readable")
    sent = llm.requests[3]["messages"]
    assert "Tell me about plums" not in str(sent) and "Plums and cherries are stone fruits." in str(sent)
