"""The page's own git refresh runs nothing a received folder defines (issue 40, item 10;
docs/decisions.md, "The host's git"): a real `harnessdesk serve` with bubblewrap on, the real page
in Chromium. The folder's `.git/config` names a filter that leaves a marker outside the folder
whenever it runs; the page asks for the header's git line when the session opens and after each
turn, and the marker never appears. The header shows the branch, read from the files, and says
why the changed files are not counted until the folder is trusted."""

from __future__ import annotations

import functools
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import Contexts, HarnessServer, openai_args, send, turn_ends, wait_idle
from tests.security.sandboxing import needs_sandbox, sandbox_on
from tests.support.git_repos import IDENTITY
from tests.support.git_repos import git as git_in
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = [pytest.mark.browser, needs_sandbox]
__all__ = ["sandbox_on"]


git = functools.partial(git_in, config=IDENTITY)


def test_the_pages_refresh_after_a_turn_runs_no_planted_filter(
    contexts: Contexts,
    make_harness: Callable[..., HarnessServer],
    llm: ScriptedLlmServer,
    sandbox_on: None,
    tmp_path: Path,
) -> None:
    marker = tmp_path / "FILTER-RAN"
    program = tmp_path / "filter.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexec cat\n")
    program.chmod(0o755)
    server = make_harness(openai_args(llm.base_url))
    repo = server.workdir  # the host's folder: the page's new session works there
    git(repo, "init", "-q", "-b", "received")
    (repo / "notes.txt").write_text("one\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-q", "-m", "start")
    with open(repo / ".git" / "config", "a") as f:
        f.write(f'[filter "x"]\n\tclean = {program}\n')
    (repo / ".gitattributes").write_text("* filter=x\n")
    (repo / "notes.txt").write_text("two\n")  # git must re-hash it: the filter would run

    page: Page = contexts.warm_page(server.url)
    llm.enqueue(Reply(text="Hello."))
    send(page, "hello")
    turn_ends(page)
    wait_idle(page)
    header = page.get_by_test_id("git-status")
    expect(header.get_by_test_id("git-branch")).to_have_text("received")
    expect(header).to_have_attribute("data-withheld", "untrusted-config")
    expect(header.get_by_test_id("git-changed")).to_have_text("?")
    expect(header).to_have_attribute("title", re.compile(r"not counted.*not trusted.*filter\.x\.clean"))
    llm.enqueue(Reply(text="Again."))
    send(page, "again")
    turn_ends(page, 2)
    wait_idle(page)
    assert not marker.exists()
    subprocess.run(["git", "-C", str(repo), "status"], capture_output=True, check=True)
    assert marker.exists()  # the same git, run unsandboxed by the person, does run it
