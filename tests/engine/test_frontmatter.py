"""The SKILL.md frontmatter reader: PyYAML's safe loader, and what it refuses (with the line)."""

from __future__ import annotations

import pytest

from host.engine.presets.skills.frontmatter import FrontmatterError, parse, split

DOC = """---
name: pdf-tools   # a trailing comment
description: >
  Fill PDF forms
  and extract text.

  Second paragraph.
whenToUse: "when the user says \\"pdf\\" \\u00e9"
disable-model-invocation: yes
user-invocable: false
allowed-tools: [Read, "Grep", 'Bash(git *)']
tags:
  - a
  - 'b c'
metadata:
  version: 2
  author:
    name: Me
long: this plain value
  folds over two lines
keep: |
  line 1
    indented
  line 3
strip: |-
  no final newline
empty:
url: https://example.com/a#b
---
# Body
"""


def test_the_frontmatter_reads_as_yaml() -> None:
    parts = split(DOC)
    assert parts is not None
    front, body = parts
    assert body == "# Body\n"
    assert parse(front) == {
        "name": "pdf-tools",
        "description": "Fill PDF forms and extract text.\nSecond paragraph.\n",
        "whenToUse": 'when the user says "pdf" é',
        "disable-model-invocation": True,  # YAML 1.1 (PyYAML): yes/no/on/off are booleans
        "user-invocable": False,
        "allowed-tools": ["Read", "Grep", "Bash(git *)"],
        "tags": ["a", "b c"],
        "metadata": {"version": 2, "author": {"name": "Me"}},
        "long": "this plain value folds over two lines",
        "keep": "line 1\n  indented\nline 3\n",
        "strip": "no final newline",
        "empty": None,
        "url": "https://example.com/a#b",
    }


def test_documents_without_frontmatter() -> None:
    assert split("# just markdown\n") is None
    assert split("---\nname: x\n") is None  # never closed
    assert split("\ufeff---\nname: x\n...\nbody") == ("name: x\n", "body")


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ("a: *x", 1, "aliases (*name) are not supported"),
        ("a: &x [1]\nb: [*x, *x]", 2, "aliases (*name) are not supported"),  # a few lines could expand hugely
        ("a: 1\nb: 2\na: 3", 3, "duplicate key 'a'"),
        ("a:\n  b: 1\n  b: 2", 3, "duplicate key 'b'"),  # nested mappings too
        ("a:\n\tb: 1", 2, "a tab where YAML needs spaces"),
        ("a: b: c", 1, "quote a value that holds ': '"),
        ("a: 1\n   b: 2", 2, "indented too far"),
        ("- a", 1, "expected `key: value` lines, not a list"),
        ("just words", 1, "expected `key: value` lines, not a single value"),
        ("a: [1, 2", 1, "expected ',' or ']'"),
        ('a: "\\q"', 1, "unknown escape character 'q' (while scanning a double-quoted scalar from line 1)"),
        ("a: !!python/object/apply:os.system ['true']", 1, "could not determine a constructor"),  # no code
        ("a: !custom 1", 1, "could not determine a constructor for the tag '!custom'"),
    ],
)
def test_what_cannot_be_read_is_refused_with_the_line(text: str, line: int, why: str) -> None:
    with pytest.raises(FrontmatterError) as info:
        parse(text)
    assert str(info.value).startswith(f"line {line}:") and why in str(info.value)


def test_yaml_that_the_old_subset_refused_now_reads() -> None:
    """Wider than the hand-written subset this replaced: what PyYAML reads safely is read."""
    assert parse("a: &x 1\nb: !!str 2\nc: {d: 1}\ne: 'x\n  y'\nf:\n  - g: h\n") == {
        "a": 1,
        "b": "2",
        "c": {"d": 1},
        "e": "x y",
        "f": [{"g": "h"}],
    }
    assert parse("") == {} and parse("# only a comment\n") == {}
