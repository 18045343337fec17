"""The words of the command line and the window's shell in Simplified Chinese and English
(docs/decisions.md, "Languages"; docs/architecture.md, "Languages").

One catalogue per language with the same keys (`en.py`, `zh_cn.py`; tests/desktop/test_cli_language.py
keeps them honest). `t(key, **params)` fills `{name}` placeholders; an English message may be a
`{"one": …, "other": …}` pair chosen by `count` (Chinese has no plural). The language is the
`ui-appearance` setting `language` when it names one, else the system's (LANGUAGE, LC_ALL,
LC_MESSAGES, LANG, as gettext reads them). Product names, paths, commands and the host's own
words are not translated. Machine-read lines (`HarnessDesk listening on URL`, JSON, ids, the
`revert` table) stay as they are.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop.i18n import en, zh_cn

LANGUAGES = ("zh-CN", "en")
CATALOGUES: dict[str, dict[str, Any]] = {"en": en.MESSAGES, "zh-CN": zh_cn.MESSAGES}
SETTINGS_FILE = "settings.json"

_current = "en"


def from_tag(tag: str) -> str | None:
    """The catalogue a locale or language tag asks for (`zh_CN.UTF-8`, `zh-TW`, `en_GB`), or None."""
    name = tag.strip().split(".", 1)[0].split("@", 1)[0].lower()
    if name == "zh" or name.startswith(("zh_", "zh-")):
        return "zh-CN"  # the one Chinese catalogue
    if name == "en" or name.startswith(("en_", "en-")):
        return "en"
    return None


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """The system locale's language, as gettext picks it: LANGUAGE (a list; ignored under the C
    locale), then the first of LC_ALL, LC_MESSAGES, LANG that is set. English by default."""
    env = os.environ if environ is None else environ
    locale = next((env[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)), "")
    if locale and locale not in ("C", "POSIX") and not locale.startswith("C."):
        for tag in env.get("LANGUAGE", "").split(":"):
            if tag and (found := from_tag(tag)):
                return found
    return from_tag(locale) or "en"


def setting_language(data_dir: Path) -> str | None:
    """`ui-appearance.language` of the data dir's settings.json when it names a language (None:
    "system", no file, or a file the host cannot use either; docs/architecture.md, "Settings").
    Read with the standard library only: the command line chooses its words before it imports
    the host."""
    try:
        doc = json.loads((data_dir / SETTINGS_FILE).read_text(encoding="utf-8"))
        value = doc["namespaces"]["ui-appearance"]["language"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return value if value in LANGUAGES else None


def choose(data_dir: Path | None, environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: the setting when it names one, else the system's."""
    chosen = setting_language(data_dir) if data_dir is not None else None
    return use(chosen or system_language(environ))


def use(language: str) -> str:
    global _current
    _current = language if language in CATALOGUES else "en"
    return _current


def language() -> str:
    return _current


def t(key: str, **params: Any) -> str:
    """The message `key` in the language in use, its `{name}` placeholders filled."""
    message = CATALOGUES[_current].get(key, CATALOGUES["en"][key])
    if isinstance(message, dict):
        message = message["one" if params.get("count") == 1 else "other"]
    return str(message).format_map(params) if params else str(message)
