"""read_image (and read_file on an image): the image reaches a model that reads images as an image
part of the next request; a model that does not is told so (docs/decisions.md, "Images the agent
reads"). Real engine, real SQLite, the scripted endpoint at the network edge."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

from tests.engine.test_permissions import tool_results, turn
from tests.support.scripted_llm import Reply

Factory = Any


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


async def setup(engine_factory: Factory, scripted_llm: Any, tmp_path: Path, images: bool) -> tuple[Any, str]:
    engine = await engine_factory(tools="engine")
    profile = {"id": "openai-compatible", "name": "Scripted", "baseURL": scripted_llm.base_url}
    models = [{"id": "scripted-small", "images": images}]
    await engine.config.update_settings(
        "llm-openai-compatible", {"profiles": [{**profile, "models": models}]}, None
    )
    await engine.config.update_settings("permission", {"defaultPreset": "danger-full-access"}, None)
    work = tmp_path / "work"
    work.mkdir()
    (work / "shot.png").write_bytes(png(3, 2))
    return engine, await engine.sessions.create_session(str(work))


async def test_a_model_that_reads_images_gets_the_image(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine, sid = await setup(engine_factory, scripted_llm, tmp_path, True)
    calls = [
        ("i1", "read_image", json.dumps({"path": "shot.png"})),
        ("i2", "read_file", json.dumps({"path": "shot.png"})),
    ]
    scripted_llm.enqueue(Reply(tool_calls=calls), Reply(text="a red image"))
    events = await turn(engine, engine.host.subscribe_mux(), sid, "look at shot.png")
    results = tool_results(events)
    assert [r.get("error") for r in results] == [None, None]
    assert "The image shot.png (image/png, 3x2) follows." in results[0]["message"]["content"][0]["content"]
    assert results[0]["message"]["content"][1]["type"] == "image"
    last = scripted_llm.requests[-1]["messages"]
    roles = [m["role"] for m in last]
    assert roles[-3:] == ["tool", "tool", "user"]  # the images after the run of tool results
    parts = last[-1]["content"]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert len(urls) == 2 and all(u.startswith("data:image/png;base64,") for u in urls)


async def test_a_model_without_images_is_told_so(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine, sid = await setup(engine_factory, scripted_llm, tmp_path, False)
    scripted_llm.enqueue(
        Reply(tool_calls=[("i1", "read_image", json.dumps({"path": "shot.png"}))]), Reply(text="ok")
    )
    events = await turn(engine, engine.host.subscribe_mux(), sid, "look at shot.png")
    result = tool_results(events)[0]
    assert result["error"]["code"] == "IMAGES_UNSUPPORTED"
    assert "does not read images" in result["message"]["content"][0]["content"]
    assert all(
        p.get("type") != "image_url"
        for m in scripted_llm.requests[-1]["messages"]
        for p in (m["content"] if isinstance(m["content"], list) else [])
    )
