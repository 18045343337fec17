"""kill -9 of the host in a crash window, then a restart, as the person sees it: a compaction
the crash interrupted says so (never a spinner), a background job the crash took is listed as
"stopped: the app closed" and noted in the conversation (docs/decisions.md "Crash windows")."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import expect

from tests.browser.support import (
    Contexts,
    HarnessServer,
    fresh_session,
    openai_args,
    send,
    shoot,
    tool_call,
    turn_ends,
    wait_for_call,
    wait_idle,
)
from tests.browser.test_reconnect import expect_reconnecting, expect_recovered
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser


def test_a_compaction_the_host_died_in_reads_interrupted_after_the_restart(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url))
    page = contexts.warm_page(server.url)
    fresh_session(page)
    llm.enqueue(Reply(text="Here is a first answer worth summarising."))
    send(page, "Tell me something")
    turn_ends(page)
    wait_idle(page)

    llm.enqueue(Reply(text="A summary that never finishes", hang_after=1))
    box = page.get_by_test_id("composer-input")
    box.fill("/compact ")  # typed whole: the slash menu's completion is tested elsewhere
    box.press("Enter")  # command.execute answers when /compact ends: it never does here
    expect(box).to_have_attribute("data-sending", "true")
    working = page.get_by_test_id("working-indicator")
    expect(working).to_have_attribute("data-state", "compacting")  # the summary request hangs

    server.kill()
    expect_reconnecting(page)
    server.start()
    expect_recovered(page)
    expect(page.get_by_text("Compaction interrupted")).to_be_visible()
    expect(working).to_be_hidden()
    command = page.get_by_test_id("command-row")
    expect(command).to_have_attribute("data-status", "interrupted")
    expect(command.get_by_test_id("command-status")).to_have_text("Interrupted")
    shoot(page, "compaction-interrupted")

    page.reload()  # a fresh page folds the repaired log the same way
    expect_recovered(page)
    expect(page.get_by_text("Compaction interrupted")).to_be_visible()
    expect(page.get_by_test_id("working-indicator")).to_be_hidden()


def test_a_job_the_host_died_with_is_listed_as_stopped_by_the_app_closing(
    contexts: Contexts, make_harness: Callable[..., HarnessServer], llm: ScriptedLlmServer
) -> None:
    server = make_harness(openai_args(llm.base_url))
    page = contexts.warm_page(server.url)
    sid = fresh_session(page)
    command = "echo watching files; sleep 1000"
    llm.enqueue(
        Reply(
            text="Starting it.",
            tool_calls=[tool_call("c-j", "bash", command=command, run_in_background=True)],
        ),
        Reply(text="It runs in the background."),
    )
    send(page, "Start the watcher")
    page.get_by_test_id("approval-card").get_by_test_id("approval-allow-once").click()
    turn_ends(page)
    expect(page.get_by_test_id("jobs-toggle").get_by_test_id("jobs-count")).to_have_text("1 running")
    wait_for_call(  # the job has printed before the host dies (a loaded machine is slow)
        page,
        """async (sid) => {
            const r = await window.harnessdesk.client.call("job.output", {sessionId: sid, jobId: "bash-1"});
            return r.ok && r.value.text.includes("watching files");
        }""",
        sid,
    )

    server.kill()
    expect_reconnecting(page)
    server.start()
    expect_recovered(page)
    expect(page.get_by_text(f"Background job bash-1 ({command}): stopped: the app closed")).to_be_visible()
    page.get_by_test_id("jobs-toggle").click()
    job = page.get_by_test_id("jobs-panel").get_by_test_id("job-item")
    expect(job).to_have_attribute("data-status", "killed")
    expect(job).to_contain_text("stopped: the app closed")
    expect(job.get_by_test_id("job-label")).to_have_text(command)
    expect(job.get_by_test_id("job-stop")).to_have_count(0)  # nothing left to stop
    # what it had printed, as the host answers it (once seen empty here: the folder then says why)
    kept = page.evaluate(
        """async (sid) => {
            const r = await window.harnessdesk.client.call("job.output", {sessionId: sid, jobId: "bash-1"});
            return r.ok ? r.value.text : JSON.stringify(r.error);
        }""",
        sid,
    )
    jobs_dir = server.data_dir / "jobs"
    listing = sorted((f.name, f.stat().st_size) for f in jobs_dir.iterdir()) if jobs_dir.is_dir() else None
    assert "watching files" in kept, (kept, listing)
    job.get_by_test_id("job-output-toggle").click()
    expect(job.get_by_test_id("job-output")).to_contain_text("watching files")  # and the panel shows it
    shoot(page, "job-lost")
