"""The terminal and the Files pane (docs/decisions.md, "Terminal and files")."""

from __future__ import annotations

from contract.errors import PathDetails, TerminalDetails, TooLargeDetails
from host.engine.errors.base import EngineError


class TerminalNotFound(EngineError[TerminalDetails]):
    """No terminal has that id (it was closed, or the host restarted since)."""

    code = "terminal-not-found"

    def __init__(self, terminal_id: str) -> None:
        super().__init__("That terminal is closed.", TerminalDetails(terminal_id=terminal_id))


class OutsideFolder(EngineError[PathDetails]):
    """A path that resolves outside the session's folder (`..`, a symlink leading out)."""

    code = "outside-folder"

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} is outside the session's folder.", PathDetails(path=path))


class TooLarge(EngineError[TooLargeDetails]):
    """A whole file over the read limit, or a range whose text is over the range limit."""

    code = "too-large"

    def __init__(self, path: str, size: int, limit: int) -> None:
        mb = limit / (1 << 20)
        text = f"{path} is too large to read at once ({size} bytes; the limit is {mb:g} MB): read a range."
        super().__init__(text, TooLargeDetails(path=path, size=size, limit=limit))


class NotAFile(EngineError[PathDetails]):
    """`files.read` of a folder, a pipe, a device or a socket."""

    code = "not-a-file"

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} is not a file.", PathDetails(path=path))
