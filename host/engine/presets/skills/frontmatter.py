"""SKILL.md frontmatter: the `---` block split off the body and read by PyYAML's safe loader.

`yaml.safe_load` builds only plain values (mappings, lists, strings, numbers, booleans, null,
dates; no tag that names Python code). Two things YAML allows are refused here, with the line:
a key given twice (YAML keeps the last silently; a skill whose `name` reads one way on top and
another below is never guessed at) and aliases (`*name`: a few lines can expand to a huge
value). The catalogue validates the fields it uses (docs/decisions.md, "Presets, skills and
commands").
"""

from __future__ import annotations

from typing import Any, Protocol

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode


class FrontmatterError(ValueError):
    """The frontmatter cannot be read; the message names the line (counted from the line after
    the opening `---`)."""


def split(text: str) -> tuple[str, str] | None:
    """(frontmatter, body) of a document that starts with a `---` line, else None."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n").rstrip() in ("---", "..."):
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    return None


def parse(source: str) -> dict[str, Any]:
    """The frontmatter as a dict (empty for an empty block); FrontmatterError when it is not
    YAML, not a mapping, repeats a key or uses an alias."""
    try:
        for event in yaml.parse(source, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise FrontmatterError(f"{_line(event.start_mark)}aliases (*name) are not supported")
        _no_duplicates(yaml.compose(source, Loader=yaml.SafeLoader))
        value = yaml.safe_load(source)
    except yaml.MarkedYAMLError as exc:
        raise FrontmatterError(_sentence(exc)) from None
    except yaml.YAMLError as exc:  # no position to name
        raise FrontmatterError(str(exc)) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else "a single value"
        raise FrontmatterError(f"line 1: expected `key: value` lines, not {kind}")
    return value


def _no_duplicates(node: Node | None) -> None:
    if isinstance(node, MappingNode):
        keys: set[tuple[str, object]] = set()
        for key, value in node.value:
            name = (key.tag, key.value if isinstance(key.value, str) else id(key))
            if name in keys:
                raise FrontmatterError(f"{_line(key.start_mark)}duplicate key {name[1]!r}")
            keys.add(name)
            _no_duplicates(value)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            _no_duplicates(item)


_HINTS = {
    "found character '\\t' that cannot start any token": "a tab where YAML needs spaces",
    "mapping values are not allowed here": (
        "a second ': ' on the line (quote a value that holds ': ') or a line indented too far"
    ),
}
"""PyYAML's words for the commonest hand-edit mistakes, said the way a person fixes them."""


def _sentence(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's words on one line: where, what, and what it was reading ("line 3: found
    unknown escape character 'q' (while scanning a double-quoted scalar from line 1)")."""
    where = _line(exc.problem_mark or exc.context_mark)
    if exc.problem in _HINTS:
        return where + _HINTS[exc.problem]
    text = exc.problem or exc.context or "not valid YAML"
    if exc.problem and exc.context:
        since = f" from line {exc.context_mark.line + 1}" if exc.context_mark is not None else ""
        text += f" ({exc.context}{since})"
    return where + text


class _Mark(Protocol):
    line: int
    """Counted from 0."""


def _line(mark: _Mark | None) -> str:
    """ "line N: " (counted from 1), or nothing without a mark."""
    return f"line {mark.line + 1}: " if mark is not None else ""
