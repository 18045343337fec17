"""`finder.find` and session.prompt's `attach`: `@` in the composer over a real folder, through
both carriers, down to what the scripted provider receives (docs/architecture.md, "The @ finder")."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from contract.finder import ATTACH_CAP_BYTES, LISTING_CAP
from contract.methods import FINDER_FIND, SESSION_HISTORY, SESSION_PROMPT
from tests.api.conftest import Host
from tests.api.support import err, event, ok, text
from tests.support.scripted_llm import ScriptedLlmServer


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return root


async def paths(host: Host, sid: str, query: str, limit: int = 30) -> list[str]:
    value = await ok(host.client(), FINDER_FIND, {"sessionId": sid, "query": query, "limit": limit})
    return [m.path for m in value.matches]


async def test_ranking_puts_the_name_first_then_prefixes_then_spread(host: Host, tmp_path: Path) -> None:
    root = tree(
        tmp_path / "proj",
        {
            "webui/js/views/composer.js": "",
            "webui/js/views/composer-help.js": "",
            "docs/composing-notes.md": "",
            "tests/browser/test_composer_keys.py": "",
            "moc/po.txt": "",
            "composer.js": "",
            "src/CompactViewer.ts": "",
        },
    )
    sid = await host.create(root)
    found = await paths(host, sid, "composer.js")
    assert found[:2] == ["composer.js", "webui/js/views/composer.js"]  # the exact name, shortest first
    found = await paths(host, sid, "compo")
    assert found.index("composer.js") < found.index("docs/composing-notes.md")
    assert "moc/po.txt" not in found  # letters out of order: no match
    # letters at word starts: CompactViewer for "cv"
    assert (await paths(host, sid, "cv"))[0] == "src/CompactViewer.ts"
    # a path query (with a slash) matches across folders
    assert (await paths(host, sid, "views/comp"))[0] == "webui/js/views/composer.js"
    value = await ok(host.client(), FINDER_FIND, {"sessionId": sid, "query": "CMPSR"})
    top = value.matches[0]
    assert (top.path, top.kind, top.size) == ("composer.js", "file", 0)
    assert [top.path[i] for i in top.hits] == list("cmpsr")  # the letters it matched, for highlighting
    assert value.attach_cap_bytes == ATTACH_CAP_BYTES
    # folders are entries too
    folders = await ok(host.client(), FINDER_FIND, {"sessionId": sid, "query": "views"})
    assert (folders.matches[0].path, folders.matches[0].kind) == ("webui/js/views", "folder")


async def test_gitignore_at_every_level_and_the_git_folder_are_left_out(host: Host, tmp_path: Path) -> None:
    root = tree(
        tmp_path / "repo",
        {
            ".gitignore": "*.log\n/build/\nnode_modules/\n!keep.log\n",
            "app/.gitignore": "secret*\n!secret-ok.txt\n",
            "app/secret-key.txt": "",
            "app/secret-ok.txt": "",
            "app/main.py": "",
            "app/debug.log": "",
            "keep.log": "",
            "build/out.js": "",
            "src/build/real.js": "",  # "/build/" is anchored to the root
            "node_modules/lib/index.js": "",
            ".git/config": "",
            ".github/workflows/ci.yml": "",
        },
    )
    sid = await host.create(root)
    every = await ok(host.client(), FINDER_FIND, {"sessionId": sid, "query": "", "limit": 100})
    listed = {m.path for m in every.matches}
    assert {"app/main.py", "app/secret-ok.txt", "keep.log", "src/build/real.js"} <= listed
    assert ".github/workflows/ci.yml" in listed  # hidden files are offered (docs/decisions.md)
    assert not listed & {"app/secret-key.txt", "app/debug.log", "build", "build/out.js", "node_modules"}
    assert not [p for p in listed if p == ".git" or p.startswith(".git/")]
    assert every.indexed == len(listed) and every.partial is False


async def test_a_new_file_shows_up_and_a_gone_one_goes(host: Host, tmp_path: Path, monkeypatch: Any) -> None:
    from host.engine.services import finder as service

    monkeypatch.setattr(service, "CHECK_S", 0.0)  # check on every search (the real bound is seconds)
    root = tree(tmp_path / "live", {"old_name.py": ""})
    sid = await host.create(root)
    assert await paths(host, sid, "oldname") == ["old_name.py"]
    (root / "old_name.py").rename(root / "fresh_name.py")
    # the check and rebuild run in the background: an answer after them shows the change
    for _ in range(3000):  # a generous bound for a loaded machine, not a timing
        if await paths(host, sid, "freshname") == ["fresh_name.py"]:
            break
        await asyncio.sleep(0.02)
    assert await paths(host, sid, "freshname") == ["fresh_name.py"]
    assert await paths(host, sid, "oldname") == []


async def test_symlinks_never_lead_outside_the_folder(host: Host, tmp_path: Path) -> None:
    outside = tree(tmp_path / "outside", {"passwords.txt": "hunter2\n", "dir/inner.txt": ""})
    root = tree(tmp_path / "proj", {"real.txt": "inside\n"})
    os.symlink(outside / "passwords.txt", root / "leak.txt")
    os.symlink(outside / "dir", root / "leakdir")
    os.symlink(root / "real.txt", root / "alias.txt")
    sid = await host.create(root)
    client = host.client()
    listed = await paths(host, sid, "", 100)
    assert "alias.txt" in listed and "real.txt" in listed
    assert not [p for p in listed if p.startswith("leak")]
    for bad in ("leak.txt", "leakdir/inner.txt", "../outside/passwords.txt", str(outside / "passwords.txt")):
        payload = {"sessionId": sid, "mode": "queue", "content": text("x"), "attach": [{"path": bad}]}
        error = await err(client, SESSION_PROMPT, payload, "attachment-error")
        assert "hunter2" not in error.message
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    assert history.events == []  # a refused prompt changed nothing


async def test_bad_input_is_refused(host: Host, tmp_path: Path) -> None:
    client = host.client()
    sid = await host.create(tree(tmp_path / "p", {"a.txt": ""}))
    for payload in (
        {},
        {"sessionId": sid, "limit": 0},
        {"sessionId": sid, "limit": 101},
        {"sessionId": sid, "query": "x" * 201},
        {"sessionId": sid, "query": 3},
        {"sessionId": sid, "extra": True},
    ):
        await err(client, FINDER_FIND, payload, "bad-request")
    await err(client, FINDER_FIND, {"sessionId": "nope"}, "session-not-found")
    base = {"sessionId": sid, "mode": "queue", "content": text("x")}
    await err(client, SESSION_PROMPT, {**base, "attach": [{"path": ""}]}, "bad-request")
    await err(client, SESSION_PROMPT, {**base, "attach": [{"path": "a.txt"}] * 21}, "bad-request")
    await err(client, SESSION_PROMPT, {**base, "attach": [{"path": "missing.txt"}]}, "attachment-error")
    os.mkfifo(tmp_path / "p" / "pipe")
    await err(client, SESSION_PROMPT, {**base, "attach": [{"path": "pipe"}]}, "attachment-error")


async def test_attached_files_and_folders_reach_the_model_capped(
    host: Host, tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    big = "".join(f"line {i:06d}\n" for i in range(ATTACH_CAP_BYTES // 12 + 500))
    files = {"src/small.py": "print('hi')\n", "src/big.txt": big, "blob.bin": "ab\0cd"}
    files.update({f"many/f{i:04d}.txt": "" for i in range(LISTING_CAP + 5)})
    root = tree(tmp_path / "proj", files)
    client = host.client()
    sid = await host.create(root)
    mux = await host.mux()
    payload = {
        "sessionId": sid,
        "mode": "queue",
        "content": text("look at these"),
        "attach": [{"path": p} for p in ("src/small.py", "src/big.txt", "src", "blob.bin", "many/")],
    }
    await ok(client, SESSION_PROMPT, payload)
    _, frame = await mux.next(event("user/message", sid))
    blocks = frame.event.data["content"]
    assert blocks[0] == {"type": "text", "text": "look at these"}
    meta = [b["attached"] for b in blocks[1:]]
    assert meta == [
        {"kind": "file", "path": "src/small.py", "size": 12, "truncated": False, "binary": False},
        {"kind": "file", "path": "src/big.txt", "size": len(big), "truncated": True, "binary": False},
        {"kind": "folder", "path": "src", "size": 2, "truncated": False, "binary": False},
        {"kind": "file", "path": "blob.bin", "size": 5, "truncated": False, "binary": True},
        {"kind": "folder", "path": "many", "size": LISTING_CAP + 5, "truncated": True, "binary": False},
    ]
    await mux.next(event("turn/end", sid))
    _, titled = await mux.next(event("session/title", sid))
    assert titled.event.data["title"] == "look at these"  # the person's words, not the files
    said = llm.requests[-1]["messages"][-1]
    assert said["role"] == "user"
    content = said["content"]
    assert content.startswith("look at these\n\nContents of `src/small.py`:\n```\nprint('hi')\n\n```")
    assert f"Contents of `src/big.txt` (its first {ATTACH_CAP_BYTES:,} of {len(big):,} bytes):" in content
    assert "line 000000" in content and big.splitlines()[-1] not in content  # cut at the cap
    assert "Listing of `src/` (2 entries; ignored files left out):\nsrc/big.txt\nsrc/small.py" in content
    assert "`blob.bin` is a binary file (5 bytes)" in content and "ab\0cd" not in content
    assert f"Listing of `many/` ({LISTING_CAP + 5:,} entries, the first {LISTING_CAP:,} shown" in content
    assert f"many/f{LISTING_CAP - 1:04d}.txt" in content and f"many/f{LISTING_CAP:04d}.txt" not in content
    # after a reload the chips are still there: history carries the same parts
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    user = next(e.event for e in history.events if e.event.type == "user/message")
    assert [b.get("attached") for b in user.data["content"]][1:] == meta
