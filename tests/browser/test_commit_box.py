"""The commit box in the page (issue 42, items 3 and 4; docs/decisions/commit-and-push.md): a real
`harnessdesk serve` on a folder that is a git repository, the real page in Chromium, the
scripted provider, real git and a bare repository over file:// as the remote. The agent writes a
file in a turn; with it staged, the box lists it, Draft fills the message from the model, the
person edits it and commits (as themselves; the untrusted folder's hooks do not run and the box
says so); the log row appears with a link to the turn; Push sends the branch and sets its
upstream; without `gh`, Open pull request opens the hosting site's compare page with the
edited title; a push the diverged remote refuses is one sentence with git's output behind a
disclosure."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.support import (
    Contexts,
    HarnessServer,
    allow,
    click_through_redraw,
    new_session,
    openai_args,
    send,
    shoot,
    tool_call,
    turn_ends,
    wait_idle,
)
from tests.support.git_repos import git, make_repo
from tests.support.scripted_llm import Reply, ScriptedLlmServer

pytestmark = pytest.mark.browser

PERSON = ("Pat Person", "pat@example.invalid")


@pytest.fixture
def place() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="harnessdesk-commit-", dir="/var/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def repo_server(place: Path, llm: ScriptedLlmServer) -> Iterator[HarnessServer]:
    """The host's folder is a repository with an `origin` (a bare repository over file://); the
    person's identity is in their HOME (under /var/tmp, where the sandbox sees it)."""
    home = place / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[user]\n\tname = {PERSON[0]}\n\temail = {PERSON[1]}\n")
    server = HarnessServer(place / "server", openai_args(llm.base_url), env={"HOME": str(home)})
    repo = make_repo(server.workdir)
    git(repo, "config", "--unset", "user.name")
    git(repo, "config", "--unset", "user.email")
    remote = place / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True, timeout=60)
    git(repo, "remote", "add", "origin", remote.as_uri())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_draft_edit_commit_push_from_the_commit_box(
    repo_server: HarnessServer, contexts: Contexts, llm: ScriptedLlmServer, place: Path
) -> None:
    repo = repo_server.workdir
    remote = place / "remote.git"
    page = contexts.warm_page(repo_server.url)
    new_session(page)
    llm.enqueue(
        Reply(tool_calls=[tool_call("w1", "write_file", path="notes.md", content="# Notes\n")]),
        Reply(text="Wrote the notes."),
    )
    send(page, "Start a notes file")
    allow(page, "write_file")
    turn_ends(page)
    wait_idle(page)

    page.get_by_test_id("changes-toggle").click()
    box = page.get_by_test_id("commit-box")
    expect(box.get_by_test_id("commit-staged-none")).to_be_visible()
    expect(box.get_by_test_id("commit-commit")).to_be_disabled()
    git(repo, "add", "notes.md")  # staged by the person (the review pane's Stage comes later)
    page.get_by_test_id("changes-close").click()
    page.get_by_test_id("changes-toggle").click()  # opening the view reads again
    expect(box.get_by_test_id("commit-staged").locator("li")).to_have_text(["notes.md"])

    llm.enqueue(Reply(text="Add a notes file\n\nThe agent started it."))
    box.get_by_test_id("commit-draft").click()
    message = box.get_by_test_id("commit-message")
    expect(message).to_have_value("Add a notes file\n\nThe agent started it.")
    assert "notes.md" in str(llm.requests[-1]["messages"]), "the model saw the staged diff"
    assert git(repo, "log", "--format=%s") == "start", "a draft commits nothing"
    message.fill("Start the notes\n\nEdited by the person.")
    # the box read again between the press and the release (an agent's edit): Commit still lands
    redraw = "() => window.harnessdesk.app.changesPanel.commit.render()"
    click_through_redraw(page, box.get_by_test_id("commit-commit"), redraw)
    note = box.get_by_test_id("commit-note")
    expect(note).to_contain_text("Committed")
    expect(note).to_contain_text("not trusted, so its hooks did not run")
    sha = git(repo, "rev-parse", "HEAD")
    assert (
        git(repo, "log", "-1", "--format=%an <%ae>|%B")
        == f"{PERSON[0]} <{PERSON[1]}>|Start the notes\n\nEdited by the person."
    )
    rows = box.get_by_test_id("commit-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_have_attribute("data-sha", sha)
    expect(rows.nth(0)).to_contain_text("Start the notes")
    link = rows.nth(0).get_by_test_id("commit-turn")
    expect(link).to_have_text("turn 1")
    expect(rows.nth(1).get_by_test_id("commit-turn")).to_have_count(0)
    expect(box.get_by_test_id("commit-staged-none")).to_be_visible()
    link.click()
    expect(page.get_by_test_id("turn-end")).to_be_in_viewport()

    box.get_by_test_id("commit-push").click()
    expect(note).to_have_text("Pushed main to origin and set it as the upstream.")
    assert git(remote, "rev-parse", "main") == sha
    shoot(page, "commit-box-pushed")

    # without gh, the pull request is the hosting site's page, opened in the browser
    git(repo, "config", "remote.origin.pushurl", "git@github.com:octo/widgets.git")
    page.context.route("https://github.com/**", lambda route: route.fulfill(body="the site"))
    box.get_by_test_id("commit-pr-open").click()
    title = box.get_by_test_id("commit-pr-title")
    expect(title).to_be_focused()
    expect(title).to_have_value("Start a notes file")  # the session's title
    expect(box.get_by_test_id("commit-pr-body")).to_have_value("- Start the notes\n- start")
    title.fill("Notes, started")
    with page.expect_popup() as popup:
        box.get_by_test_id("commit-pr-create").click()
    site = popup.value
    assert site.url.startswith("https://github.com/octo/widgets/compare/main...main?")
    assert "title=Notes%2C+started" in site.url
    site.close()
    expect(note).to_contain_text("Finish the pull request on the site")
    expect(box.get_by_test_id("commit-pr-link")).to_have_attribute("href", site.url)
    git(repo, "config", "--unset", "remote.origin.pushurl")
    assert git(repo, "rev-parse", "--abbrev-ref", "main@{upstream}") == "origin/main"

    other = place / "other"
    subprocess.run(["git", "clone", "-q", remote.as_uri(), str(other)], check=True, timeout=60)
    (other / "theirs.txt").write_text("theirs\n")
    git(other, "add", "theirs.txt")
    git(other, "-c", "user.name=O", "-c", "user.email=o@example.invalid", "commit", "-q", "-m", "theirs")
    git(other, "push", "-q", "origin", "main")
    (repo / "mine.txt").write_text("mine\n")
    git(repo, "add", "mine.txt")
    page.get_by_test_id("changes-close").click()
    page.get_by_test_id("changes-toggle").click()
    expect(box.get_by_test_id("commit-staged").locator("li")).to_have_text(["mine.txt"])
    message.fill("Mine")
    box.get_by_test_id("commit-commit").click()
    expect(note).to_contain_text("Committed")
    box.get_by_test_id("commit-push").click()
    error = box.get_by_test_id("commit-error")
    expect(error).to_have_text("The remote refused the push: it has commits this branch does not have.")
    output = box.get_by_test_id("commit-error-output")
    expect(output.locator("pre")).to_be_hidden()
    output.locator("summary").click()
    expect(output.locator("pre")).to_contain_text("rejected")
    shoot(page, "commit-box-rejected")
