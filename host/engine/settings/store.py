"""The settings store: namespaced user sections of `settings.json`, revisions, ordered writes.

- Each registered namespace resolves as model defaults < shipped base < the user's section.
- `revision` starts at 0 when the host starts and goes up by exactly 1 whenever the raw user
  section really changes: an RPC write or an edit of settings.json by hand (watched).
- Writes to one namespace run in call order (one asyncio lock each); the expected revision is
  checked when a write reaches the front. A candidate is validated before anything is written;
  the file is replaced atomically on a worker thread, one writer at a time.
- A section that does not validate (a bad hand edit) stays in the file untouched; the host
  resolves that namespace without it and says why in the log.
- A file that cannot be used at all (`FileProblem`: not UTF-8, not JSON, the wrong shape, not a
  regular file) is never written over: `problem` names it, every write answers
  `settings-rejected` with that sentence until a hand edit fixes the file (the watcher re-reads
  it) or `reset()` sets it aside as `settings.json.broken-<time>`.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from contract.settings import NS_PATTERN, SettingsNamespaceView
from host.engine.errors import SettingsConflict, SettingsNotExposed, SettingsRejected
from host.engine.sandbox import secret_values
from host.engine.settings.files import SETTINGS_FILE, settings_document, settings_sections
from host.engine.settings.sections import (
    Namespace,
    SectionError,
    dump,
    json_schema,
    redact,
    resolve,
    secrets_of,
)
from host.engine.settings.watch import POLL_INTERVAL, FileWatch, WatchedFile, tell

log = logging.getLogger(__name__)

SectionOp = Callable[[dict[str, Any]], dict[str, Any]]
"""A write: the stored user section in, the candidate section out (may raise SectionError)."""
ChangeListener = Callable[[str], None]
"""Called on the event loop with the namespace whose raw user section changed."""
FileListener = Callable[[str | None], None]
"""Called on the event loop with the file's new problem (None: usable again) when it changes."""


class SettingsStore:
    def __init__(
        self,
        data_dir: Path,
        namespaces: list[Namespace],
        *,
        is_exposed: Callable[[str], bool],
        poll_interval: float = POLL_INTERVAL,
        pinned: Mapping[str, dict[str, Any]] | None = None,
    ) -> None:
        """`pinned`: sections this launch was handed (a remote host serving another computer's
        model settings, docs/decisions.md "Remote hosts"): used instead of the file's, kept in
        memory only, never written."""
        self._pinned = {ns: dict(section) for ns, section in (pinned or {}).items()}
        self._spaces = {n.ns: n for n in namespaces}
        self._is_exposed = is_exposed
        self._revision: dict[str, int] = dict.fromkeys(self._spaces, 0)
        self._queues: dict[str, asyncio.Lock] = {}
        self._listeners: list[ChangeListener] = []
        self._reported: dict[str, str] = {}
        self.file = WatchedFile(
            Path(data_dir) / SETTINGS_FILE,
            read=settings_sections,
            document=settings_document,
            edited=self._edited,
            poll_interval=poll_interval,
        )
        """Its value: every section of the file, registered or not (unknown ones are kept)."""
        self.path = self.file.path
        for ns in self.file.value:
            self._remember_secrets(ns)
        for ns, section in self._pinned.items():
            if ns in self._spaces:
                secret_values.remember(*secrets_of(self._spaces[ns].model, section))

    @property
    def watch(self) -> FileWatch:
        return self.file.watch

    @property
    def problem(self) -> str | None:
        """Why settings.json cannot be used (one sentence naming it); None when it can."""
        return self.file.problem

    # ---- reading ------------------------------------------------------------------------------

    def on_change(self, listener: ChangeListener) -> None:
        self._listeners.append(listener)

    def on_file_change(self, listener: FileListener) -> None:
        self.file.on_file_change(listener)

    @property
    def writable(self) -> bool:
        return self.file.writable

    def refusal(self) -> str:
        """The answer to a write while the file cannot be used."""
        return self.file.refusal()

    def namespaces(self) -> list[str]:
        return list(self._spaces)

    def revision(self, ns: str) -> int:
        return self._revision.get(ns, 0)

    def stamp(self, ns: str) -> tuple[int, Any]:
        """What `section(ns)` is resolved from now: the namespace's revision and the person's
        section as held (the file's sections are replaced when they change, never edited in
        place). An equal stamp resolves to an equal section."""
        return self.revision(ns), self._pinned[ns] if ns in self._pinned else self.file.value.get(ns)

    def section(self, ns: str) -> Any:
        """The resolved section model for engine use (a bad user section falls back to base)."""
        space = self._spaces[ns]
        try:
            return resolve(space, self._pinned[ns] if ns in self._pinned else self.file.value.get(ns))
        except SectionError as exc:
            if self._reported.get(ns) != str(exc):
                self._reported[ns] = str(exc)
                log.warning("settings.json: ignoring the invalid section %s", exc)
            return resolve(space, None)

    def view(self, ns: str) -> SettingsNamespaceView:
        """The redacted wire view of one registered namespace."""
        space = self._spaces[ns]
        value, slots = redact(space.model, dump(self.section(ns)))
        user = self._pinned[ns] if ns in self._pinned else self.file.value.get(ns)
        base = space.base
        return SettingsNamespaceView(
            ns=ns,
            schema_=json_schema(space.model),
            value=value,
            base=redact(space.model, base)[0] if base is not None else None,
            user=redact(space.model, user)[0] if user is not None else None,
            applies=space.applies,
            secrets=slots,
            revision=self.revision(ns),
        )

    # ---- writing ------------------------------------------------------------------------------

    async def write(
        self, ns: str, op: SectionOp, expected_revision: int | None, *, internal: bool = False
    ) -> SettingsNamespaceView:
        """Apply `op` to the user section of `ns`, in call order; returns the new view.
        `internal` writes (the host's own, e.g. the default model) skip the exposure check."""
        if not re.match(NS_PATTERN, ns):
            raise SettingsRejected(ns, f"{ns!r} is not a namespace name (lowercase letters, digits, '-')")
        if not internal and not self._is_exposed(ns):
            raise SettingsNotExposed(ns)
        space = self._spaces.get(ns)
        if space is None:
            raise SettingsRejected(ns, f"no settings are registered under {ns!r}")
        if ns in self._pinned:
            raise SettingsRejected(
                ns, f"{ns} comes from the computer this host serves, for this launch: change it there"
            )

        def refused(why: str) -> SettingsRejected:
            return SettingsRejected(ns, why)

        async with self._queues.setdefault(ns, asyncio.Lock()):
            await self.file.ready(refused)
            if not self.writable:
                raise SettingsRejected(ns, f"settings are read-only: {self.path} cannot be written")
            actual = self.revision(ns)
            if expected_revision is not None and expected_revision != actual:
                raise SettingsConflict(ns, expected_revision, actual)
            current = copy.deepcopy(self.file.value.get(ns, {}))
            try:
                candidate = op(current)
                resolve(space, candidate)
                json.dumps(candidate, allow_nan=False)
            except SectionError as exc:
                raise SettingsRejected(ns, str(exc), exc.issues) from None
            except (TypeError, ValueError) as exc:
                raise SettingsRejected(ns, f"{ns}: not a JSON value ({exc})") from None
            if candidate != self.file.value.get(ns, {}):

                def put(sections: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
                    new = {**sections, ns: candidate}
                    if not candidate:
                        new.pop(ns)
                    return new

                await self.file.write(put, refused)
                self._reported.pop(ns, None)
                self._remember_secrets(ns)
                self._bump(ns)
            return self.view(ns)

    async def ensure_document(self) -> None:
        """Create settings.json from what the host holds, when it does not exist yet."""
        await self.file.create()

    async def reset(self) -> str | None:
        """Set an unusable settings.json aside (`settings.json.broken-<time>`) and write what
        the host runs with now in its place; the kept file's name, or None when the file was
        usable (nothing done: a fix may have landed since the person chose Reset)."""
        return await self.file.reset()

    def _bump(self, ns: str) -> None:
        self._revision[ns] = self.revision(ns) + 1
        tell(self._listeners, ns, about="settings")

    def _remember_secrets(self, ns: str) -> None:
        space = self._spaces.get(ns)
        if space is not None:
            secret_values.remember(*secrets_of(space.model, self.file.value.get(ns, {})))

    # ---- outside edits ------------------------------------------------------------------------

    def _edited(self, old: dict[str, dict[str, Any]], fresh: dict[str, dict[str, Any]]) -> None:
        """An outside edit was read: each namespace whose section changed, in registration
        order (then the unregistered ones), goes up one revision."""
        order = list(self._spaces)
        changed = [ns for ns in {*fresh, *old} if fresh.get(ns, {}) != old.get(ns, {})]
        for ns in changed:
            self._remember_secrets(ns)
        for ns in sorted(changed, key=lambda ns: order.index(ns) if ns in self._spaces else len(order)):
            self._bump(ns)
