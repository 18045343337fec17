"""Relays the built-in model's load state to `events.host` as `host/model-status` frames.

The model is shared by the process and loads on the first local turn (host/engine/llm/local.py);
the UI shows "loading" meanwhile. A subscriber that connects during the load gets `loading` in
its snapshot, so a page opened (or reconnected) mid-load shows it too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

from contract.frames import HostModelStatus
from host.engine.llm import local
from host.engine.sessions.bus import Bus, Item, push


class ModelStatusRelay:
    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        self.close = local.watch_model(self._changed)
        """Stop relaying (the engine is closing)."""

    def snapshot(self) -> Iterable[Item]:
        if local.model_state() == "loading":
            yield push(HostModelStatus(model=local.state_model(), state="loading"))

    def _changed(self, state: local.ModelState) -> None:
        """Called on the loop of whichever engine's turn loads the model (one process, one
        model): another engine's bus is only touched from its own loop."""
        if state == "idle":
            return
        frame = HostModelStatus(model=local.state_model(), state=state)
        running = None
        with contextlib.suppress(RuntimeError):
            running = asyncio.get_running_loop()
        if self._loop is None or running is self._loop:
            self._bus.publish("host", frame)
        elif not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._bus.publish, "host", frame)
