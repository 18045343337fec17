"""The window ↔ host-process channel (desktop/windowlink.py) with both of its real ends joined by
a pipe-like line queue: the host's `ChannelPicker` asks, the window's `WindowSide` answers with
its own picker on its own loop; a cancelled ask closes the window's dialog; the window going
away ends every open ask with a typed error."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from desktop.windowlink import ChannelPicker, WindowSide
from host.engine.errors import HostActionFailed


class WindowLoop:
    """The window's small asyncio loop on a thread, as desktop/hostloop.py runs it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Ends the dialogs still open on it (the window's process would end them by exiting),
        then the loop."""

        async def end_open() -> None:
            open_ = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in open_:
                task.cancel()
            await asyncio.gather(*open_, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(end_open(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


def joined(dialog):
    """(host picker, window side, window loop) wired to each other through JSON lines."""
    host_loop = asyncio.get_running_loop()
    window = WindowLoop()
    side: WindowSide | None = None

    def to_window(line: str) -> None:
        assert side is not None
        side.hear(json.loads(line))

    picker = ChannelPicker(host_loop, to_window)

    def to_host(line: str) -> None:
        host_loop.call_soon_threadsafe(picker.hear, line.encode())

    side = WindowSide(window.loop, dialog, to_host)
    return picker, side, window


async def test_the_hosts_ask_is_answered_by_the_windows_picker() -> None:
    asked: list[str | None] = []

    async def dialog(file: str | None) -> str | None:
        asked.append(file)
        return "/home/me/project" if file is None else None

    picker, _, window = joined(dialog)
    try:
        assert await asyncio.wait_for(picker.pick(), 10) == "/home/me/project"
        assert await asyncio.wait_for(picker.pick("gguf"), 10) is None  # the person cancelled
        assert asked == [None, "gguf"]
    finally:
        window.close()


async def test_a_failing_dialog_is_a_typed_error_in_the_host() -> None:
    async def dialog(file: str | None) -> str | None:
        raise RuntimeError("the window is not open yet")

    picker, _, window = joined(dialog)
    try:
        with pytest.raises(HostActionFailed, match="the window is not open yet"):
            await asyncio.wait_for(picker.pick(), 10)
    finally:
        window.close()


async def test_a_cancelled_ask_closes_the_windows_dialog_and_the_window_going_ends_the_rest() -> None:
    opened = threading.Event()
    closed = threading.Event()

    async def dialog(file: str | None) -> str | None:
        opened.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            closed.set()
            raise
        return None

    picker, _, window = joined(dialog)
    try:
        ask = asyncio.ensure_future(picker.pick())
        assert await asyncio.to_thread(opened.wait, 10)
        ask.cancel()
        with pytest.raises(asyncio.CancelledError):
            await ask
        assert await asyncio.to_thread(closed.wait, 10)  # `unpick` reached the window's dialog

        opened.clear()
        other = asyncio.ensure_future(picker.pick())
        assert await asyncio.to_thread(opened.wait, 10)
        picker.window_gone()  # the window's end of the pipe closed
        with pytest.raises(HostActionFailed, match="the window is gone"):
            await asyncio.wait_for(other, 10)
        with pytest.raises(HostActionFailed, match="the window is gone"):
            await picker.pick()
    finally:
        window.close()
