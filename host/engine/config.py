"""Settings and credentials on disk (docs/architecture.md, "Data on disk").

`settings.json` is the user layer over built-in defaults (provider `local`) with a revision
counter; CLI flags form a non-persisted top layer. `credentials.json` (mode 0600) holds API keys;
`HARNESSDESK_API_KEY` is the fallback for the selected remote provider. No secret is ever logged,
returned by a describe call, or shown by a repr.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contract.settings import CredentialView, LlmSettings
from host.engine import secret_values
from host.engine.errors import CredentialRejected, SettingsConflict, SettingsRejected
from host.engine.llm.catalogue import NAMES, REMOTE

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
CREDENTIALS_FILE = "credentials.json"
ENV_KEY = "HARNESSDESK_API_KEY"
FIELDS = ("provider", "baseUrl", "model", "reasoningEffort")
DEFAULTS = LlmSettings(provider="local")


class Secret:
    """A string that never shows itself in repr/str/logs."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value
        secret_values.remember(value)  # so tools can keep it out of child processes and their output

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True)
class RuntimeOverrides:
    """CLI flags (`--provider/--base-url/--model`): a top layer that is never persisted."""

    provider: str | None = None
    base_url: str | None = None
    model: str | None = None

    def values(self) -> dict[str, str]:
        out = {"provider": self.provider, "baseUrl": self.base_url, "model": self.model}
        return {k: v for k, v in out.items() if v is not None}


def _write_private(path: Path, text: str, mode: int) -> None:
    """Atomically replace `path` with `text`, created with `mode` from the start."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    os.chmod(path, mode)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable %s: %s", path.name, type(exc).__name__)
        return {}
    return data if isinstance(data, dict) else {}


class Config:
    """Layered LLM settings (defaults < settings.json < CLI overrides) and the credential store."""

    def __init__(
        self,
        data_dir: Path,
        overrides: RuntimeOverrides | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.overrides = overrides or RuntimeOverrides()
        self._environ = environ if environ is not None else os.environ
        self._lock = threading.Lock()
        raw = _read_json(self.settings_path)
        self.revision = int(raw.get("revision", 0)) if isinstance(raw.get("revision"), int) else 0
        llm = raw.get("llm", {})
        self._user: dict[str, Any] = {k: v for k, v in llm.items() if k in FIELDS and v is not None}
        try:
            LlmSettings.model_validate({**DEFAULTS.dump(), **self._user})
        except ValidationError:
            log.warning("ignoring invalid llm settings in %s", SETTINGS_FILE)
            self._user = {}
        creds = _read_json(self.credentials_path)
        self._keys: dict[str, Secret] = {
            k: Secret(v) for k, v in creds.items() if k in NAMES and isinstance(v, str) and v
        }
        secret_values.remember(self._environ.get(ENV_KEY))

    @property
    def settings_path(self) -> Path:
        return self.data_dir / SETTINGS_FILE

    @property
    def credentials_path(self) -> Path:
        return self.data_dir / CREDENTIALS_FILE

    # ---- settings -------------------------------------------------------------------------

    def llm(self) -> LlmSettings:
        """The effective settings: defaults, then the user layer, then runtime overrides."""
        merged = {**DEFAULTS.dump(), **self._user, **self.overrides.values()}
        return LlmSettings.model_validate(merged)

    def user_fields(self) -> list[str]:
        return [f for f in FIELDS if f in self._user]

    def update(
        self,
        values: Mapping[str, Any],
        unset: list[str] | tuple[str, ...] = (),
        expected_revision: int | None = None,
    ) -> LlmSettings:
        """Write the user layer (camelCase keys); bumps the revision. Raises SettingsConflict."""
        with self._lock:
            if expected_revision is not None and expected_revision != self.revision:
                raise SettingsConflict(expected_revision, self.revision)
            user = dict(self._user)
            for key in unset:
                user.pop(key, None)
            for key, value in values.items():
                if key not in FIELDS:
                    raise SettingsRejected(f"unknown setting {key!r}", [key])
                if value is None:
                    user.pop(key, None)
                else:
                    user[key] = str(value)
            try:
                LlmSettings.model_validate({**DEFAULTS.dump(), **user})
            except ValidationError as exc:
                raise SettingsRejected("invalid settings value", list(values)) from exc
            body = {"revision": self.revision + 1, "llm": user}
            try:
                _write_private(self.settings_path, json.dumps(body, indent=2) + "\n", 0o644)
            except OSError as exc:
                raise SettingsRejected(
                    f"cannot save the settings: {exc.strerror or exc}", list(values)
                ) from exc
            self._user = user
            self.revision += 1
        return self.llm()

    # ---- credentials ----------------------------------------------------------------------

    def key_for(self, provider: str) -> str | None:
        """The API key for a provider: the credential file, else the env fallback when
        that provider is the selected remote one. Never log the result."""
        secret = self._keys.get(provider)
        if secret is not None:
            return secret.reveal()
        if provider in REMOTE and provider == self.llm().provider:
            env = self._environ.get(ENV_KEY)
            if env:
                return env
        return None

    def set_credential(self, ref: str, value: str) -> CredentialView:
        """Store a key in credentials.json (0600). Raises CredentialRejected."""
        if ref not in NAMES:
            raise CredentialRejected(ref, f"unknown credential ref {ref!r}")
        if not value or not value.strip():
            raise CredentialRejected(ref, "credential value is blank")
        with self._lock:
            keys = {**self._keys, ref: Secret(value)}
            self._save_keys(ref, keys)
        return self.credential_view(ref)

    def unset_credential(self, ref: str) -> CredentialView:
        """Forget a stored key; unsetting a key that is not stored succeeds."""
        if ref not in NAMES:
            raise CredentialRejected(ref, f"unknown credential ref {ref!r}")
        with self._lock:
            keys = {k: v for k, v in self._keys.items() if k != ref}
            self._save_keys(ref, keys)
        return self.credential_view(ref)

    def credential_view(self, ref: str) -> CredentialView:
        """Whether a key is configured and where from; `writable` is whether a write can be
        saved (the environment never shadows the file: a stored key wins over the variable)."""
        writable = self._credentials_writable()
        if ref in self._keys:
            return CredentialView(ref=ref, configured=True, source="file", writable=writable)
        if ref in REMOTE and ref == self.llm().provider and self._environ.get(ENV_KEY):
            return CredentialView(ref=ref, configured=True, source="env", writable=writable)
        return CredentialView(ref=ref, configured=False, source="none", writable=writable)

    def _credentials_writable(self) -> bool:
        """Whether credentials.json can be replaced (a temp file in its folder, then a rename)."""
        path = self.credentials_path
        if path.exists():
            return path.is_file() and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
        ancestor = next((p for p in path.parents if p.exists()), None)
        return ancestor is not None and ancestor.is_dir() and os.access(ancestor, os.W_OK)

    def describe_credentials(self) -> list[CredentialView]:
        """Views without values, one per provider that takes a key."""
        return [self.credential_view(ref) for ref in REMOTE]

    def _save_keys(self, ref: str, keys: dict[str, Secret]) -> None:
        """Write `keys` to disk, then adopt them; a failed write changes nothing."""
        body = {name: secret.reveal() for name, secret in keys.items()}
        try:
            _write_private(self.credentials_path, json.dumps(body, indent=2) + "\n", 0o600)
        except OSError as exc:
            raise CredentialRejected(ref, f"cannot save the credential: {exc.strerror or exc}") from exc
        self._keys = keys

    def __repr__(self) -> str:
        return f"Config(data_dir={str(self.data_dir)!r}, keys={sorted(self._keys)})"


def read_llm_settings(data_dir: Path, overrides: RuntimeOverrides | None = None) -> tuple[LlmSettings, bool]:
    """A data dir's effective LLM settings and whether their provider has a key, read without
    opening the engine (for `doctor`: another instance may own the data dir)."""
    config = Config(data_dir, overrides)
    settings = config.llm()
    return settings, config.key_for(settings.provider) is not None
