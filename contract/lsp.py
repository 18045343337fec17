"""`lsp.*`: the language servers Settings lists (docs/decisions.md, "Language servers"). Turning one
off is a settings write (`lsp.disabled`); this domain only reports."""

from __future__ import annotations

from contract._base import WireModel


class LspStatusRequest(WireModel):
    pass


class LanguageServerView(WireModel):
    id: str
    """`pylsp`, `pyright`, `typescript-language-server`, `gopls`, `rust-analyzer`, `clangd`."""
    command: str | None = None
    """Where it was found on PATH (absent: not installed)."""
    languages: list[str]
    enabled: bool
    """False: turned off in Settings (it never starts)."""
    folders: list[str]
    """The folders it runs for now."""
    problem: str | None = None
    """Why it did not start last time."""


class LspStatusValue(WireModel):
    servers: list[LanguageServerView]
    sandboxed: bool
    """Language servers start only inside the sandbox: False where this machine has none."""
