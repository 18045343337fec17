"""Credentials by reference: the process environment over `<data dir>/credentials.json`.

A reference is an environment-variable name (`DEEPSEEK_API_KEY`). The process environment wins
and is read-only (set/unset of a ref it supplies is refused: the change could never take
effect); the file (mode 0600) is the writable layer. An empty value counts as unset. Values are
never logged, returned or announced: `host/credentials-changed` names the ref only.

A file that cannot be used (not UTF-8, not JSON, the wrong shape, not a regular file) is never
written over: `problem` names it and `set`/`unset` answer `credential-rejected` with that
sentence until it is fixed by hand (watched) or `reset()` sets it aside
(docs/decisions.md, "Configuration files that cannot be read").
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from contract.credentials import CredentialView
from host.engine.errors import CredentialRejected
from host.engine.sandbox import secret_values
from host.engine.settings.files import CREDENTIALS_FILE, credential_values, credentials_document
from host.engine.settings.watch import POLL_INTERVAL, FileWatch, WatchedFile, tell

RefListener = Callable[[str], None]
FileListener = Callable[[str | None], None]


class CredentialStore:
    def __init__(
        self,
        data_dir: Path,
        environ: Mapping[str, str] | None = None,
        *,
        poll_interval: float = POLL_INTERVAL,
    ) -> None:
        self._environ = environ if environ is not None else os.environ
        self._listeners: list[RefListener] = []
        self.file = WatchedFile(
            Path(data_dir) / CREDENTIALS_FILE,
            read=credential_values,
            document=credentials_document,
            edited=self._edited,
            poll_interval=poll_interval,
        )
        self.path = self.file.path
        secret_values.remember(*(v for v in self.file.value.values() if v))

    @property
    def watch(self) -> FileWatch:
        return self.file.watch

    @property
    def problem(self) -> str | None:
        """Why credentials.json cannot be used (one sentence naming it); None when it can."""
        return self.file.problem

    def __repr__(self) -> str:
        return f"CredentialStore(path={str(self.path)!r}, refs={len(self.file.value)})"

    def on_change(self, listener: RefListener) -> None:
        self._listeners.append(listener)

    def on_file_change(self, listener: FileListener) -> None:
        self.file.on_file_change(listener)

    # ---- reading ------------------------------------------------------------------------------

    def value(self, ref: str | None) -> str | None:
        """The secret for `ref` (environment first, then the file). Never log the result."""
        if not ref:
            return None
        env = self._environ.get(ref)
        if env and env.strip():
            secret_values.remember(env)
            return env.strip()
        stored = self.file.value.get(ref)
        return stored.strip() if stored and stored.strip() else None

    def view(self, ref: str) -> CredentialView:
        env = self._environ.get(ref)
        if env and env.strip():
            return CredentialView(configured=True, source="env", writable=False)
        writable = self.file.writable
        if self.file.value.get(ref, "").strip():
            return CredentialView(configured=True, source="file", writable=writable)
        return CredentialView(configured=False, writable=writable)

    # ---- writing ------------------------------------------------------------------------------

    async def set(self, ref: str, value: str) -> None:
        if not value.strip():
            raise CredentialRejected(ref, "the value is blank")
        self._refuse_env(ref, "over the stored value")

        def put(values: dict[str, str]) -> bool:
            secret_values.remember(value)
            values[ref] = value
            return True

        await self._save(ref, [ref], put)

    async def unset(self, ref: str) -> None:
        self._refuse_env(ref, "over the stored value")
        # unsetting what is not set succeeds and changes nothing
        await self._save(ref, [ref], lambda values: values.pop(ref, None) is not None)

    async def move(self, ref: str, to: str) -> None:
        """Move the file's value of `ref` to `to` in one write (nothing stored: nothing to do).
        Refused when the environment sets either name, or `to` already holds a key."""
        for name in (ref, to):
            self._refuse_env(name)

        def rename(values: dict[str, str]) -> bool:
            if ref == to or not (values.get(ref) or "").strip():
                return False
            if (values.get(to) or "").strip():
                raise CredentialRejected(to, f"{to} already holds another key; nothing was moved")
            values[to] = values.pop(ref)
            return True

        await self._save(ref, [ref, to], rename)

    def _refuse_env(self, ref: str, over: str = "") -> None:
        if (self._environ.get(ref) or "").strip():
            wins = f"which wins {over}" if over else "which wins"
            raise CredentialRejected(ref, f"{ref} is set in the host's environment, {wins}")

    async def _save(self, ref: str, refs: list[str], edit: Callable[[dict[str, str]], bool]) -> None:
        """The one write path of set, unset and move: re-read a hand edit the poll has not seen
        yet (it is never written over), refuse while the file cannot be used, then `edit` a copy
        of the values the host holds (False: nothing to change, nothing written) and write them
        only if the file on disk is still the one read; `refs` are announced after a write."""

        def refused(why: str) -> CredentialRejected:
            return CredentialRejected(ref, why)

        def edited(values: dict[str, str]) -> dict[str, str] | None:
            copy = dict(values)
            return copy if edit(copy) else None

        await self.file.ready(refused)
        if await self.file.write(edited, refused):
            self._announce(refs)

    def _announce(self, refs: list[str]) -> None:
        for ref in refs:
            tell(self._listeners, ref, about="credentials")

    # ---- outside edits and reset ---------------------------------------------------------------

    def _edited(self, old: dict[str, str], fresh: dict[str, str]) -> None:
        secret_values.remember(*(v for v in fresh.values() if v))
        self._announce(sorted(r for r in {*fresh, *old} if fresh.get(r) != old.get(r)))

    async def reset(self) -> str | None:
        """Set an unusable credentials.json aside (`credentials.json.broken-<time>`) and write
        the keys the host holds now in its place; the kept file's name, or None when the file
        was usable (nothing done)."""
        return await self.file.reset()
