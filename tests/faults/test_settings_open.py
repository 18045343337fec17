"""Reading the settings at start is bounded like opening the database: a settings.json that
never answers (a FIFO in its place stands for a stuck disk) stops the start with one sentence
naming the folder instead of hanging it, and the start works again once the file is fixed."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

from host.engine.engine import Engine
from host.engine.store import StoreTimeout

WAIT = 30.0


def release(fifo: Path) -> None:
    """Give the reader stuck on the FIFO a writer and an empty object, so its thread ends."""
    with fifo.open("w", encoding="utf-8") as writer:
        writer.write("{}")


async def test_a_settings_file_that_never_answers_bounds_the_start(tmp_path: Path) -> None:
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    try:
        try:
            await asyncio.wait_for(Engine.open(tmp_path, settings_timeout=0.5), WAIT)
        except StoreTimeout as exc:
            message = str(exc)
        else:
            raise AssertionError("the engine opened although settings.json never answered")
    finally:
        releaser = threading.Thread(target=release, args=(fifo,), daemon=True)
        releaser.start()
        await asyncio.to_thread(releaser.join, WAIT)
    assert message.startswith(f"the settings in {tmp_path} were not read within 0.5s")
    assert "settings.json" in message and "\n" not in message
    assert not await asyncio.to_thread(lambda: list(tmp_path.glob("*.db")))  # stopped before the database

    fifo.unlink()
    engine = await asyncio.wait_for(Engine.open(tmp_path), WAIT)
    try:
        assert await engine.list_sessions() == []
    finally:
        await engine.close()
