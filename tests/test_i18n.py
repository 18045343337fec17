"""Every string a person reads comes from the catalogues (docs/decisions.md, "Languages").

- A static scan of the web UI's views and state modules: a string literal that reads as English
  words (outside a t() key, an import, a class list, a key comparison, …) fails, unless it is in
  `NOT_WORDS` with the reason it is not shown or not ours to translate. The browser test
  (tests/browser/test_i18n.py) is the other half: what a Chinese screen shows.
- The host's settings fields the Settings page shows, and the scope kinds the host words an
  approval with, have catalogue messages; the English catalogue says what the host says.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, get_args

import pytest

from contract.approvals import ScopeKind
from contract.namespaces import EXPOSED, SECTIONS, UI_ONBOARDING
from host.engine.llm.local import MODEL_ID, MODEL_LABEL
from host.engine.tools.permissions.scope import always_words, label, scope_words

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "webui" / "js"
SCANNED = ("views", "state", "main.js")
"""The page's own words live here; client/ speaks only in protocol diagnostics, shown as the
detail of the catalogue's "The host did not answer." (state/problems.js)."""

NOT_WORDS: dict[str, set[str]] = {
    "*": {"HarnessDesk", "DeepSeek"},  # product names
    "state/answers.js": {
        # answerProblems(): the reasons an answer set is incomplete; the card only counts them
        " answers, got ",
        "answer id ",
        " does not match a question",
        ": duplicate selections",
        ": unknown labels ",
        ": custom text is blank",
        ": single-select takes one selection or custom text",
        ": nothing selected",
    },
    "state/ask-user.js": {"The user answered:"},  # the host's tool result, parsed, never shown
    "state/session-manager.js": {"dismissed by the user"},  # sent to the host with `cancelled`
    "state/remote-hosts.js": {"dismissed by the user"},  # sent to the host with `cancelled`
    "state/session.js": {"older page does not join at seq "},  # an error's detail (code history-gap)
    "state/connection.js": {"reconnect requested"},  # a reason in the log
    "views/app-wiring.js": {"rebuild failed: ", "a remote host came back"},  # reasons in the log
    "views/bidi.js": {  # Unicode's names of the marks, in a mark's title beside its code point
        "ARABIC LETTER MARK",
        "LEFT-TO-RIGHT MARK",
        "RIGHT-TO-LEFT MARK",
        "LEFT-TO-RIGHT EMBEDDING",
        "RIGHT-TO-LEFT EMBEDDING",
        "POP DIRECTIONAL FORMATTING",
        "LEFT-TO-RIGHT OVERRIDE",
        "RIGHT-TO-LEFT OVERRIDE",
        "LEFT-TO-RIGHT ISOLATE",
        "RIGHT-TO-LEFT ISOLATE",
        "FIRST STRONG ISOLATE",
        "POP DIRECTIONAL ISOLATE",
    },
    "views/composer.js": {"Enter", "Shift"},  # key caps in <kbd>
    "views/worktree-panel.js": {"npm ci"},  # a command, the setup field's example (translate="no")
    "views/terminal-pane.js": {"Backquote"},  # a KeyboardEvent.code, never shown
}
"""File → literals that read as words but are not the page's words to translate."""

NOT_SHOWN_BEFORE = re.compile(
    r"""(?:\b(?:t|tr|tOr|has|tNodes)\(\s*|"""  # a catalogue key
    r"""\bkey\s*[!=]==?\s*|\.code\s*[!=]==?\s*|\bincludes\(\s*|"""  # key names, codes, types
    r"""\bclass:\s*\[?\s*|\bicon\([^)]*,\s*|\bclassName\s*=\s*|classList\.\w+\(\s*|"""  # classes
    r"""\b(?:querySelector(?:All)?|closest|matchMedia|getElementById|addEventListener)\(\s*|"""
    r"""\bsetAttribute\(\s*|\bsetAttribute\("\w+",\s*|"""
    r"""\bnew Error\(\s*|\bthrow new Error\(\s*|\bconsole\.\w+\(\s*|\blog\.\w+\(\s*|"""  # diagnostics
    r"""\bimport\s[^;]*?from\s*|\bimport\(\s*)`?$""",
    re.S,
)
"""What a literal follows when it is a key, a class, a selector or a diagnostic, never words."""


def literals(source: str) -> list[tuple[int, str, str]]:
    """(line, text, code before it) for each string literal and each template literal's text
    parts, skipping comments and regular expressions."""
    out: list[tuple[int, str, str]] = []
    stack: list[list[int]] = []  # open `${` of templates: [braces nested in it, the backquote's place]
    i, n, last = 0, len(source), ""

    def add(text: str, at: int) -> None:
        out.append((source.count("\n", 0, at) + 1, text, source[max(0, at - 60) : at]))

    def template(i: int, opened: int) -> int:
        """Read a template's text from `i` to its end or next `${`; its parts all count as
        following the code before the template's backquote (`opened`)."""
        buf: list[str] = []
        while i < n:
            c = source[i]
            if c == "\\":
                buf.append(source[i : i + 2])
                i += 2
            elif c == "`":
                add("".join(buf), opened)
                return i + 1
            elif source.startswith("${", i):
                add("".join(buf), opened)
                stack.append([0, opened])
                return i + 2
            else:
                buf.append(c)
                i += 1
        return i

    while i < n:
        c = source[i]
        if stack and c == "}" and stack[-1][0] == 0:
            opened = stack.pop()[1]
            i, last = template(i + 1, opened), "`"
            continue
        if stack and c in "{}":
            stack[-1][0] += 1 if c == "{" else -1
        if source.startswith("//", i):
            i = source.find("\n", i) if "\n" in source[i:] else n
            continue
        if source.startswith("/*", i):
            i = source.find("*/", i + 2) + 2
            continue
        if c in "\"'":
            j, buf = i + 1, []
            while j < n and source[j] != c:
                buf.append(source[j : j + 2] if source[j] == "\\" else source[j])
                j += 2 if source[j] == "\\" else 1
            add("".join(buf), i)
            i, last = j + 1, c
            continue
        if c == "`":
            i, last = template(i + 1, i), "`"
            continue
        if c == "/" and (last == "" or last in "(,=:[!&|?{};+-*%<>~^"):
            j, in_class = i + 1, False
            while j < n and source[j] != "\n":
                if source[j] == "\\":
                    j += 2
                    continue
                if source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                elif source[j] == "/" and not in_class:
                    break
                j += 1
            i, last = j + 1, "/"
            continue
        if not c.isspace():
            last = c
        i += 1
    return out


def reads_as_words(text: str) -> bool:
    """English words a person would read: two words, a capitalised word, or a sentence's end."""
    s = text.strip()
    if not re.search(r"[A-Za-z]{2,}", s) or "<" in s:  # no word, or markup (markdown's own)
        return False
    if re.fullmatch(r"[\w$.:/#@*=\[\]()>~+,-]+", s) and not re.fullmatch(r"[A-Z][a-z]+", s):
        return False  # ids, keys, selectors, paths, prefixes (a capitalised word is a word: "Save")
    if re.fullmatch(r"[a-z][a-z0-9-]*(?: +[a-z][a-z0-9-]*)+", s) and "-" in s:
        return False  # a class list
    return bool(
        re.search(r"[A-Za-z]{2,} +[A-Za-z]{2,}", s)
        or re.match(r"[A-Z][a-z]{2,}", s)
        or re.search(r"[a-z]{2,}[.…?!:]$", s)
    )


def untranslated(path: Path) -> list[str]:
    rel = path.relative_to(JS).as_posix()
    allowed = NOT_WORDS["*"] | NOT_WORDS.get(rel, set())
    found = []
    for line, text, before in literals(path.read_text(encoding="utf-8")):
        if reads_as_words(text) and text not in allowed and not NOT_SHOWN_BEFORE.search(before):
            found.append(f"{rel}:{line}: {text!r}")
    return found


def scanned() -> list[Path]:
    files = [p for d in SCANNED for p in ((JS / d).rglob("*.js") if (JS / d).is_dir() else [JS / d])]
    return sorted(files)


def test_the_scan_reads_the_literals_it_must() -> None:
    code = 'x = t("a.b"); y = h("p", { class: "muted small" }, `Say ${n} words`); // "No"\nz = /"q"/;'
    assert [(text, reads_as_words(text)) for _, text, _ in literals(code)] == [
        ("a.b", False),
        ("p", False),
        ("muted small", True),  # words, but a class list by where it stands
        ("Say ", True),
        (" words", False),
    ]
    assert untranslated_text('h("button", {}, "Save")') == ["'Save'"]
    assert untranslated_text('h("button", { title: "Stop the turn" }, t("composer.stop"))') == [
        "'Stop the turn'"
    ]
    assert untranslated_text("el.textContent = `${n} files changed`;") == ["' files changed'"]
    assert untranslated_text('if (e.key === "Escape") el.classList.add("is-open")') == []
    assert untranslated_text('h("p", { class: "muted small" }, t("welcome.loading"))') == []


def untranslated_text(code: str) -> list[str]:
    return [
        repr(text)
        for _, text, before in literals(code)
        if reads_as_words(text) and not NOT_SHOWN_BEFORE.search(before)
    ]


@pytest.mark.parametrize("path", scanned(), ids=lambda p: p.relative_to(JS).as_posix())
def test_no_english_words_outside_the_catalogues(path: Path) -> None:
    assert untranslated(path) == []


def test_the_exceptions_still_exist() -> None:
    """An exception whose literal is gone is removed, so the list cannot hide a new string."""
    stale = []
    for rel, texts in NOT_WORDS.items():
        if rel == "*":
            continue
        found = {text for _, text, _ in literals((JS / rel).read_text(encoding="utf-8"))}
        stale += [f"{rel}: {t!r}" for t in texts - found]
    assert stale == []


# ---- the host's words -------------------------------------------------------------------------


def catalogue(lang: str) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (scripts/install.sh --dev installs it)")
    url = (JS / "i18n" / f"{lang}.js").as_uri()
    script = "import(process.argv[1]).then((m) => process.stdout.write(JSON.stringify(m.default)))"
    out = subprocess.run(
        [node, "--input-type=module", "-e", script, url],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return dict(json.loads(out.stdout))


def render(message: str, params: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: params.get(m.group(1), m.group(0)), message)


def shown_fields() -> list[tuple[str, str, dict[str, Any]]]:
    """(namespace, field, JSON Schema) of every field the Settings page builds from a schema: the
    plain namespaces' scalar fields, and the built-in model's two (views/provider-cards.js)."""
    out = []
    for ns in EXPOSED:
        if ns == UI_ONBOARDING or (ns.startswith("llm-") and ns != "llm-local"):
            continue
        schema = SECTIONS[ns].model_json_schema(by_alias=True)
        for name, prop in schema.get("properties", {}).items():
            if ns == "llm-local" and name not in ("threads", "contextSize"):
                continue
            if "$ref" in prop:
                prop = {**schema["$defs"][prop["$ref"].rsplit("/", 1)[1]], **prop}
            if prop.get("type") in ("array", "object"):
                continue
            out.append((ns, name, prop))
    return out


def test_every_settings_field_the_page_shows_has_its_words_in_both_languages() -> None:
    cats = {lang: catalogue(lang) for lang in ("en", "zh-CN")}
    fields = shown_fields()
    assert {(ns, name) for ns, name, _ in fields} >= {
        ("ui-appearance", "language"),
        ("permission", "defaultPreset"),
    }
    missing = []
    for ns, name, prop in fields:
        keys = [f"setting.{ns}.{name}"] + ([f"setting.{ns}.{name}.hint"] if prop.get("description") else [])
        for choice in prop.get("oneOf", []):
            keys.append(f"setting.{ns}.{name}.{choice['const']}")
            if choice.get("description"):
                keys.append(f"setting.{ns}.{name}.{choice['const']}.hint")
        missing += [f"{lang}: {k}" for lang, cat in cats.items() for k in keys if k not in cat]
    assert missing == []
    en = cats["en"]
    for ns, name, prop in fields:  # the English words are the host's (where the host has words)
        for choice in prop.get("oneOf", []):
            assert en[f"setting.{ns}.{name}.{choice['const']}"] == choice["title"], (ns, name, choice)


SCOPES = {
    "shape:" + json.dumps({"prefix": ["npm", "test"], "options": []}): "command",
    "exact:bash -c 'ls'": "exact-command",
    "workspace:/home/me/recipes": "folder",
    "project:/home/me/recipes": "project",
    "args:" + json.dumps({"q": 1}): "exact-arguments",
    "words:npm test": "legacy",
    "tool": "any",
}


def test_the_catalogue_words_every_scope_as_the_host_does() -> None:
    en, zh = catalogue("en"), catalogue("zh-CN")
    assert set(SCOPES.values()) == set(get_args(ScopeKind))
    for scope, kind in SCOPES.items():
        words = scope_words(scope)
        assert words.kind == kind, scope
        params = {"tool": "bash", "subject": words.subject}
        assert render(en[f"scope.{kind}"], params) == label("bash", scope), scope
        assert f"scope.{kind}" in zh
        always = always_words("bash", scope)
        if always.words is not None and always.words.kind in (
            "command",
            "exact-command",
            "folder",
            "exact-arguments",
        ):
            k = always.words.kind
            assert (
                render(en[f"always.{k}.text"], {"tool": "bash", "subject": always.words.subject})
                == always.text
            ), scope
            assert en[f"always.{k}.button"] == always.button, scope


def test_every_shipped_catalogue_model_has_its_words_in_both_languages_the_host_s_in_english() -> None:
    shipped = json.loads((ROOT / "host" / "engine" / "llm" / "localmodels" / "catalogue.json").read_text())
    entries = shipped["models"] if isinstance(shipped, dict) else shipped
    assert entries
    en, zh = catalogue("en"), catalogue("zh-CN")
    for entry in entries:
        key = f"library.entry.{entry['id']}"
        assert en.get(key) == entry["description"] and key in zh, key
        if entry.get("sha256Note"):
            assert en.get(f"{key}.note") == entry["sha256Note"] and f"{key}.note" in zh, key


def test_the_built_in_model_has_its_name_in_both_languages_the_host_s_in_english() -> None:
    """The model picker shows `model.<provider>.<id>` where the catalogue has it (host-words.js)."""
    en, zh = catalogue("en"), catalogue("zh-CN")
    key = f"model.local.{MODEL_ID}"
    assert en.get(key) == MODEL_LABEL and key in zh and zh[key] != MODEL_LABEL


def test_the_shipped_commands_have_their_words_in_both_languages_the_host_s_in_english() -> None:
    from host.engine.agent.commands.compact import COMPACT
    from host.engine.agent.commands.plan import PLAN

    en, zh = catalogue("en"), catalogue("zh-CN")
    source = (JS / "state" / "host-words.js").read_text(encoding="utf-8")
    listed = re.search(r"SHIPPED_COMMANDS = new Set\(\[([^\]]*)\]", source)
    assert listed is not None, "host-words.js lists its shipped commands"
    shipped = set(re.findall(r'"(\w+)"', listed.group(1)))
    assert shipped == {"compact", "permission", "plan", "goal"}
    host = {c.name: c.description for c in (COMPACT, PLAN)}
    for name in ("permission", "goal"):  # built per session: their words are in their modules
        module = (
            ROOT
            / "host"
            / "engine"
            / "agent"
            / ("commands/permission.py" if name == "permission" else "goals/command.py")
        )
        host[name] = re.search(rf'name="{name}",\s*description="([^"]+)"', module.read_text()).group(1)  # type: ignore[union-attr]
    for name, description in host.items():
        assert en[f"slashCmd.{name}"] == description and f"slashCmd.{name}" in zh, name
