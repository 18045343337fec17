"""The language servers the host knows: how to start each, which files it serves (docs/decisions.md,
"Language servers"). Found on PATH only; never downloaded."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ServerSpec:
    id: str
    """The name Settings shows and `lsp.disabled` lists."""
    argv: tuple[str, ...]
    languages: dict[str, str]
    """File suffix → the LSP languageId."""


SPECS: tuple[ServerSpec, ...] = (
    ServerSpec("pyright", ("pyright-langserver", "--stdio"), {".py": "python", ".pyi": "python"}),
    ServerSpec("pylsp", ("pylsp",), {".py": "python", ".pyi": "python"}),
    ServerSpec(
        "typescript-language-server",
        ("typescript-language-server", "--stdio"),
        {
            ".ts": "typescript",
            ".tsx": "typescriptreact",
            ".js": "javascript",
            ".jsx": "javascriptreact",
            ".mjs": "javascript",
            ".cjs": "javascript",
        },
    ),
    ServerSpec("gopls", ("gopls",), {".go": "go"}),
    ServerSpec("rust-analyzer", ("rust-analyzer",), {".rs": "rust"}),
    ServerSpec(
        "clangd",
        ("clangd",),
        {".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp"},
    ),
)
"""In order of preference for a language (pyright before pylsp)."""


def find(spec: ServerSpec, path_env: str | None = None) -> str | None:
    """The server's program on PATH (None: not installed)."""
    return shutil.which(spec.argv[0], path=path_env if path_env is not None else os.environ.get("PATH"))


def for_file(
    path: Path, disabled: frozenset[str], path_env: str | None = None
) -> tuple[ServerSpec, str] | None:
    """The first installed, enabled server for this file's language, with its program."""
    suffix = path.suffix.lower()
    for spec in SPECS:
        if suffix in spec.languages and spec.id not in disabled:
            found = find(spec, path_env)
            if found is not None:
                return spec, found
    return None
