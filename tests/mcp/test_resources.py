"""MCP resources in the `@` finder, with real servers: server-everything's static documents and
faulty.py's paged, binary, failing and hung listings. Found with the files, attached to a prompt
(read at send time, capped, named when binary), refused with a typed error when unreadable, and
never offered from a folder that is not trusted (docs/architecture.md, "The @ finder")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from contract.finder import ATTACH_CAP_BYTES
from contract.methods import FINDER_FIND, MCP_LIST, SESSION_HISTORY, SESSION_PROMPT
from tests.api.conftest import Host
from tests.api.support import err, event, ok, page_events, prompt
from tests.mcp.conftest import EVERYTHING, needs_everything, write_servers
from tests.mcp.test_everything import run_call
from tests.mcp.test_faults import faulty, server_in
from tests.support.scripted_llm import Reply, ScriptedLlmServer

WAIT = 60.0
DOCS = EVERYTHING.resolve().parent.parent / "dist" / "docs"


async def find(client: Any, sid: str, query: str, limit: int = 30) -> Any:
    return await ok(client, FINDER_FIND, {"sessionId": sid, "query": query, "limit": limit})


def resources(found: Any) -> dict[str, Any]:
    return {m.path: m for m in found.matches if m.kind == "resource"}


async def find_with(client: Any, sid: str, query: str, label: str) -> Any:
    """finder.find until `label` is among the resources (a first listing may outlast the 1.5 s
    a search waits for it on a loaded machine; bounded generously)."""
    for _ in range(1200):
        found = await find(client, sid, query)
        if label in resources(found):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"{label} never reached the finder: {found}")


async def sent_user_text(client: Any, mux: Any, llm: ScriptedLlmServer, sid: str) -> str:
    await mux.next(event("turn/end", sid), within=WAIT)
    said = llm.requests[-1]["messages"][-1]
    assert said["role"] == "user"
    return str(said["content"])


async def user_messages(client: Any, sid: str) -> list[dict[str, Any]]:
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    return [dict(e.data) for e in page_events(history) if e.type == "user/message"]


async def attached_of_last(client: Any, sid: str) -> list[dict[str, Any]]:
    """The `attached` of the last user message's text parts (wire JSON)."""
    content = (await user_messages(client, sid))[-1]["content"]
    return [b["attached"] for b in content if b.get("type") == "text" and b.get("attached")]


def docs_dir() -> Path:
    if not DOCS.is_dir():  # the package's layout is what the test relies on: say so plainly
        pytest.skip(f"server-everything's documents are not at {DOCS}")
    return DOCS


async def test_everything_resources_are_found_with_the_files_and_attached(
    host: Host, llm: ScriptedLlmServer, user_servers: Any
) -> None:
    needs_everything()
    architecture = (docs_dir() / "architecture.md").read_text(encoding="utf-8")
    (host.workdir / "architecture_notes.txt").write_text("mine\n")
    user_servers({"everything": {"command": str(EVERYTHING), "args": ["stdio"]}})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await server_in(client, sid, "everything", {"ready"})
    found = await find_with(client, sid, "architecture", "everything:architecture.md")
    paths = [m.path for m in found.matches]
    assert "architecture_notes.txt" in paths  # the files answer beside the resources
    doc = resources(found)["everything:architecture.md"]
    assert doc.resource.server == "everything"
    assert doc.resource.uri == "demo://resource/static/document/architecture.md"
    assert doc.resource.mime_type == "text/markdown"
    assert doc.hits and all(doc.path[h].lower() in "architecture" for h in doc.hits)
    assert found.resource_problems == []
    # fuzzy, like the files: letters in order across the label
    assert "everything:features.md" in resources(await find(client, sid, "evfeat"))
    # an empty query shows the top of the folder, then a few resources
    top = await find(client, sid, "")
    assert top.matches[0].kind != "resource" and resources(top)

    llm.enqueue(Reply(text="read it"))
    attach = [{"server": "everything", "uri": doc.resource.uri}]
    await prompt(client, sid, "summarize", attach=attach)
    said = await sent_user_text(client, mux, llm, sid)
    head = "Contents of the MCP resource `everything:architecture.md` (demo://resource/static/document/"
    assert said.startswith(f"summarize\n\n{head}")
    assert architecture.strip().splitlines()[0] in said
    (meta,) = await attached_of_last(host.client(), sid)  # a new client: what a reload reads
    assert (meta["kind"], meta["server"]) == ("resource", "everything")
    assert meta["path"] == "everything:architecture.md"
    assert meta["uri"] == doc.resource.uri and meta["mimeType"] == "text/markdown"
    assert meta["size"] == len(architecture.encode()) and not meta.get("truncated")


async def test_pages_blobs_the_cap_a_failed_read_and_list_changed(
    host: Host, llm: ScriptedLlmServer, user_servers: Any, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough: the wire is the same as above")
    user_servers({"faulty": faulty("resources")})
    (host.workdir / "r_x_e_a_d_m_e.txt").write_text("x\n")
    (host.workdir / "readme.txt").write_text("x\n")
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await server_in(client, sid, "faulty", {"ready"})
    offered = resources(await find_with(client, sid, "faulty", "faulty:brokenthing"))
    # both pages of resources/list (the second reached through nextCursor)
    assert {"faulty:readme", "faulty:bigdoc", "faulty:dotpicture", "faulty:brokenthing"} <= set(offered)
    assert offered["faulty:readme"].resource.title == "The read-me"
    # ranked with the files by one matcher: the label holding the word beats letters spread
    order = [m.path for m in (await find(client, sid, "readme")).matches]
    assert order.index("readme.txt") < order.index("faulty:readme") < order.index("r_x_e_a_d_m_e.txt"), order

    llm.enqueue(Reply(text="ok"))
    attach = [{"server": "faulty", "uri": u} for u in ("faulty://notes/big", "faulty://pics/dot.png")]
    await prompt(client, sid, "look", attach=attach)
    said = await sent_user_text(client, mux, llm, sid)
    assert f"(its first {ATTACH_CAP_BYTES:,} of {100 * 1024:,} bytes)" in said
    assert "b" * ATTACH_CAP_BYTES in said and "b" * (ATTACH_CAP_BYTES + 1) not in said
    assert "A binary part (image/png, 304 bytes) of `faulty://pics/dot.png` is not attached." in said
    assert "iVBOR" not in said and "UE5H" not in said  # the blob itself never reaches the model
    metas = await attached_of_last(client, sid)
    assert [(m["path"], m.get("truncated", False), m.get("binary", False)) for m in metas] == [
        ("faulty:bigdoc", True, False),
        ("faulty:dotpicture", False, True),
    ]

    # a resource that cannot be read: a typed error, and nothing is sent or logged
    asked = len(llm.requests)
    before = len(await user_messages(client, sid))
    payload = {
        "sessionId": sid,
        "mode": "queue",
        "content": [{"type": "text", "text": "this one fails"}],
        "attach": [
            {"server": "faulty", "uri": "faulty://notes/readme"},
            {"server": "faulty", "uri": "faulty://broken"},
        ],
    }
    failed = await err(client, SESSION_PROMPT, payload, "attachment-error")
    assert "faulty: faulty://broken could not be read: no such resource: faulty://broken" in failed.message
    logged = await user_messages(client, sid)
    assert len(logged) == before and "this one fails" not in json.dumps(logged)
    assert len(llm.requests) == asked
    missing = dict(payload, attach=[{"server": "nosuch", "uri": "x://y"}])
    gone = await err(client, SESSION_PROMPT, missing, "attachment-error")
    assert "'nosuch' is not one of this session's servers" in gone.message
    await err(client, SESSION_PROMPT, dict(payload, attach=[{"server": "faulty"}]), "bad-request")
    both = [{"path": "a.txt", "server": "faulty", "uri": "faulty://broken"}]
    await err(client, SESSION_PROMPT, dict(payload, attach=both), "bad-request")

    # the server adds one and says so (notifications/resources/list_changed): the finder lists again
    assert "faulty:laterone" not in resources(await find(client, sid, "later"))
    await run_call(client, mux, llm, sid, "mcp__faulty__poke", {})
    await find_with(client, sid, "later", "faulty:laterone")


async def test_a_hung_listing_costs_its_bound_and_never_hides_the_files(
    host: Host, user_servers: Any, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    (host.workdir / "hanging_notes.md").write_text("x\n")
    user_servers({"stuck": faulty("reshang"), "good": faulty("resources")})
    client = host.client()
    sid = await host.create()
    await server_in(client, sid, "stuck", {"ready"})
    await server_in(client, sid, "good", {"ready"})
    first = await find(client, sid, "hanging")
    assert [m.path for m in first.matches][:1] == ["hanging_notes.md"]
    assert any(p.startswith("stuck: ") for p in first.resource_problems), first.resource_problems
    again = await find_with(client, sid, "readme", "good:readme")  # later ones do not wait for it
    assert any(p.startswith("stuck: ") for p in again.resource_problems)


async def test_a_folder_that_is_not_trusted_offers_no_resources(host: Host, tmp_path: Path) -> None:
    repo = tmp_path / "cloned"
    repo.mkdir()
    (repo / "readme_here.txt").write_text("x\n")
    write_servers(repo / ".mcp.json", {"proj": faulty("resources")})
    client = host.client()
    sid = await host.create(cwd=repo)
    found = await find(client, sid, "readme")
    assert [m.path for m in found.matches] == ["readme_here.txt"]
    listed = await ok(client, MCP_LIST, {"sessionId": sid})
    assert [s.state for s in listed.servers] == ["needs-trust"]
    payload = {
        "sessionId": sid,
        "mode": "queue",
        "content": [{"type": "text", "text": "read it"}],
        "attach": [{"server": "proj", "uri": "faulty://notes/readme"}],
    }
    refused = await err(client, SESSION_PROMPT, payload, "attachment-error")
    assert "'proj' is needs-trust" in refused.message


async def test_a_server_added_later_reaches_the_finder_without_a_turn(
    host: Host, user_servers: Any, carrier: str
) -> None:
    if carrier != "inprocess":
        pytest.skip("one carrier is enough")
    client = host.client()
    sid = await host.create()
    assert resources(await find(client, sid, "readme")) == {}
    user_servers({"late": faulty("resources")})  # the config is read again in the background
    await find_with(client, sid, "readme", "late:readme")
