"""`session.updateQueue` edits keep attached files as attachments (issue 31, uxfix round): the
edit names them in `attach`, read again at the edit like `session.prompt`'s; a path outside the
session's folder is an `attachment-error` and the queued message stays as it was."""

from __future__ import annotations

from contract.methods import SESSION_CANCEL, SESSION_UPDATE_QUEUE
from tests.api.conftest import Host
from tests.api.support import err, event, ok, prompt, text
from tests.support.scripted_llm import Reply, ScriptedLlmServer


async def test_an_edit_keeps_its_attached_files_and_a_bad_path_changes_nothing(
    host: Host, llm: ScriptedLlmServer
) -> None:
    (host.workdir / "notes.txt").write_text("kept as an attachment\n")
    llm.enqueue(Reply(text="streaming forever", hang_after=1))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, "first")
    await mux.next(event("assistant/chunk", sid))  # the turn is open: the next prompt queues
    await prompt(client, sid, "read this", attach=[{"path": "notes.txt"}])
    _, queued = await mux.next(lambda f: f.type == "session/queue" and len(f.items) == 1)
    item = queued.items[0]
    words, file = item.message.content
    assert words.text == "read this" and words.attached is None
    assert file.attached is not None and file.attached.path == "notes.txt"

    bad = {"kind": "edit", "content": text("read that"), "attach": [{"path": "../outside.txt"}]}
    await err(
        client,
        SESSION_UPDATE_QUEUE,
        {"sessionId": sid, "itemId": item.id, "action": bad},
        "attachment-error",
    )
    edit = {"kind": "edit", "content": text("read this, edited"), "attach": [{"path": "notes.txt"}]}
    await ok(client, SESSION_UPDATE_QUEUE, {"sessionId": sid, "itemId": item.id, "action": edit})
    _, edited = await mux.next(lambda f: f.type == "session/queue")
    (after,) = edited.items  # the refused edit changed nothing: the next snapshot is this one
    parts = after.message.content
    assert [p.text for p in parts if not p.attached] == ["read this, edited"]
    (attached,) = [p for p in parts if p.attached]
    assert attached.attached is not None and attached.attached.path == "notes.txt"
    assert "kept as an attachment" in attached.text
    await ok(client, SESSION_CANCEL, {"sessionId": sid, "clearQueue": True})
