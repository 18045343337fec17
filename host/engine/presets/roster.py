"""The preset roster: the shipped presets (trust `system`) and the user's (trust `user`).

Roots are scanned in order and the first root to supply an id wins; inside a root presets sort
by `order` (absent last), then id. Everything here touches the disk: callers run it off the
event loop. See docs/architecture.md, "Agent presets".
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from contract.presets import AgentPresetEntry, Trust
from host.engine.errors import AgentPresetInvalid, AgentPresetNotFound, AgentPresetReadOnly
from host.engine.presets.authoring import CopyRefused, copy_tree
from host.engine.presets.spec import PRESET_FILE, PresetSpec, read_preset, valid_id

SHIPPED_ROOT = Path(__file__).resolve().parent / "shipped"
FALLBACK_DEFAULT = "standard"
"""The shipped default; also what a session runs when its recorded preset is gone."""


@dataclass(frozen=True)
class PresetRoot:
    path: Path
    trust: Trust


class PresetRoster:
    def __init__(
        self,
        roots: list[PresetRoot],
        known_tools: Callable[[], Collection[str]],
        configured_default: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.roots = roots
        self._known_tools = known_tools
        self._configured_default = configured_default

    @classmethod
    def for_data_dir(
        cls,
        data_dir: Path,
        known_tools: Callable[[], Collection[str]],
        configured_default: Callable[[], str | None] = lambda: None,
    ) -> PresetRoster:
        roots = [PresetRoot(SHIPPED_ROOT, "system"), PresetRoot(Path(data_dir) / "agent-presets", "user")]
        return cls(roots, known_tools, configured_default)

    @property
    def user_root(self) -> Path | None:
        return next((r.path for r in self.roots if r.trust == "user"), None)

    # ---- reading ---------------------------------------------------------------------------

    def scan(self) -> list[PresetSpec]:
        """Every preset, root blocks in precedence order; an id only once (the first root's)."""
        seen: set[str] = set()
        out: list[PresetSpec] = []
        known = self._known_tools()
        for root in self.roots:
            block = []
            for directory in _subdirs(root.path):
                if directory.name in seen or not valid_id(directory.name):
                    continue
                seen.add(directory.name)
                block.append(read_preset(directory, root.trust, known))
            block.sort(key=lambda p: (p.order is None, p.order or 0.0, p.id))
            out += block
        return out

    def get(self, pid: str) -> PresetSpec | None:
        if not valid_id(pid):
            return None
        for root in self.roots:
            directory = root.path / pid
            if directory.is_dir():
                return read_preset(directory, root.trust, self._known_tools())
        return None

    def require(self, pid: str) -> PresetSpec:
        """The preset, or `agent-preset-not-found` listing the ids that exist."""
        spec = self.get(pid)
        if spec is None:
            raise AgentPresetNotFound(pid, [p.id for p in self.scan()])
        return spec

    def runnable(self, pid: str) -> PresetSpec:
        """A preset a session can run: `agent-preset-invalid` when it is broken."""
        spec = self.require(pid)
        if spec.broken is not None:
            raise AgentPresetInvalid(pid, spec.broken)
        return spec

    def default_id(self) -> str:
        """The configured default when it exists and runs, else the shipped one."""
        configured = self._configured_default()
        if configured:
            spec = self.get(configured)
            if spec is not None and spec.broken is None:
                return spec.id
        return FALLBACK_DEFAULT

    def entries(self) -> list[AgentPresetEntry]:
        default = self.default_id()
        return [
            AgentPresetEntry(
                id=p.id,
                trust=p.trust,
                is_default=p.id == default,
                name=p.name,
                description=p.description,
                broken=p.broken,
            )
            for p in self.scan()
        ]

    def read(self, pid: str) -> tuple[PresetSpec, str]:
        """The preset and its preset.toml text exactly as stored ("" when there is none)."""
        spec = self.require(pid)
        try:
            content = spec.file.read_bytes()[: 1024 * 1024].decode("utf-8", errors="replace")
        except OSError:
            content = ""
        return spec, content

    # ---- authoring -------------------------------------------------------------------------

    def copy(self, source: str, new_id: str, name: str | None) -> str:
        """Copy `source` (any trust) into the user root as `new_id`; all or nothing."""
        if not valid_id(new_id):
            raise AgentPresetInvalid(
                new_id, "an id is lowercase letters, digits and dashes, starting with a letter or digit"
            )
        spec = self.require(source)
        user_root = self.user_root
        if user_root is None:
            raise AgentPresetReadOnly(new_id, "this host has no folder for your own presets")
        if self.get(new_id) is not None or (user_root / new_id).exists():
            raise AgentPresetInvalid(new_id, f"the id {new_id!r} is already taken")
        user_root.mkdir(mode=0o700, parents=True, exist_ok=True)
        staging = user_root / f".copy-{new_id}-{secrets.token_hex(4)}"
        try:
            copy_tree(spec.directory, staging, name)
            os.rename(staging, user_root / new_id)  # one step: the id appears whole or not at all
        except CopyRefused as exc:
            raise AgentPresetInvalid(new_id, str(exc)) from exc
        except OSError as exc:
            if isinstance(exc, FileExistsError) or exc.errno == errno.ENOTEMPTY:
                raise AgentPresetInvalid(new_id, f"the id {new_id!r} is already taken") from exc
            raise AgentPresetInvalid(new_id, f"the copy failed: {exc.strerror or exc}") from exc
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        return new_id

    def writable_directory(self, pid: str) -> PresetSpec:
        """A preset the user may change (remove, open); shipped ones are read-only."""
        spec = self.require(pid)
        user_root = self.user_root
        if spec.trust != "user" or user_root is None or spec.directory.parent != user_root:
            raise AgentPresetReadOnly(pid, "shipped presets are read-only: copy one to make your own")
        return spec

    def remove(self, pid: str) -> None:
        """Delete a user preset's folder (moved aside first, so it vanishes in one step)."""
        spec = self.writable_directory(pid)
        trash = spec.directory.parent / f".removing-{pid}-{secrets.token_hex(4)}"
        try:
            os.rename(spec.directory, trash)
        except OSError as exc:
            raise AgentPresetReadOnly(pid, f"the folder cannot be removed: {exc.strerror or exc}") from exc
        shutil.rmtree(trash, ignore_errors=True)


def _subdirs(root: Path) -> list[Path]:
    try:
        return sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return []


__all__ = ["FALLBACK_DEFAULT", "PRESET_FILE", "SHIPPED_ROOT", "PresetRoot", "PresetRoster"]
