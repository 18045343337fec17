"""The command line and folders: `harnessdesk prompt --cwd PATH`, and `harnessdesk PATH` handed to
the instance already running on the data dir (here a `harnessdesk serve`; the window's side is
in tests/desktop/test_window_folders.py)."""

from __future__ import annotations

import os
from pathlib import Path

from contract.methods import SESSION_LIST, WORKSPACE_LIST
from host.api import open_host
from host.fetch import HttpApiClient, InProcessApiClient
from tests.api.support import Frames, ftype, ok, run_cli, run_main, start_serve
from tests.api.test_cli import one_line_error, provider_flags
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def real(path: Path) -> str:
    return os.path.realpath(path)


async def test_prompt_cwd_runs_the_new_session_in_that_folder(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="done"))
    project = tmp_path / "project"
    project.mkdir()
    data = tmp_path / "data"
    ran = run_cli(
        "prompt", "hi", "--cwd", "project", "--data-dir", str(data), *provider_flags(llm), cwd=tmp_path
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "done\n"
    assert real(project) in llm.requests[0]["messages"][0]["content"]  # the agent was told where it works
    runtime = await open_host(data)
    try:
        client = InProcessApiClient(runtime.app)
        [summary] = (await ok(client, SESSION_LIST)).items
        assert summary.cwd == real(project)
        assert (await ok(client, WORKSPACE_LIST)).items == []  # a cwd alone stays Ungrouped
    finally:
        await runtime.close()


def test_prompt_cwd_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    for args, needle in (
        (["--cwd", str(tmp_path / "missing")], "not an existing folder"),
        (["--cwd", str(tmp_path), "--session", "s-x"], "--cwd is for a new session"),
    ):
        ran = run_main("prompt", "hi", *args, "--data-dir", data)
        assert ran.returncode == 2, ran
        assert needle in one_line_error(ran.stderr)


def test_a_path_that_is_not_a_folder_exits_2(tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for path in (str(tmp_path / "missing"), str(a_file)):
        ran = run_main(path, "--data-dir", str(tmp_path / "data"))
        assert ran.returncode == 2 and path in one_line_error(ran.stderr)
    ran = run_main(str(tmp_path), "serve", "--data-dir", str(tmp_path / "data"))
    assert ran.returncode == 2 and "does not go with" in one_line_error(ran.stderr)


async def test_a_path_is_handed_to_the_running_instance(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    project = tmp_path / "project"
    project.mkdir()
    data = tmp_path / "data"
    served = start_serve(data, *provider_flags(llm), cwd=tmp_path)
    try:
        async with (
            HttpApiClient(served.base_url, served.token) as client,
            Frames(client.stream("events.host")) as hosts,
        ):
            ran = run_cli("project", "--data-dir", str(data), cwd=tmp_path, timeout=60)  # no display needed
            assert ran.returncode == 0, ran.stderr
            assert f"handed it {real(project)}" in ran.stdout
            listed = await ok(client, WORKSPACE_LIST)
            [workspace] = listed.items
            assert workspace.path == real(project) and len(workspace.session_ids) == 1
            [summary] = (await ok(client, SESSION_LIST)).items
            assert summary.session_id == workspace.session_ids[0] and summary.cwd == real(project)
            await hosts.seen(ftype("host/session-added"))  # open tabs saw it arrive
            await hosts.seen(ftype("host/workspace-changed"))
            again = run_cli(str(project), "--data-dir", str(data), cwd=tmp_path, timeout=60)
            assert again.returncode == 0, again.stderr
            assert (await ok(client, WORKSPACE_LIST)) == listed  # its blank session is reused
    finally:
        served.stop()
