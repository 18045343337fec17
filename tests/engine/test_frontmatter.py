"""The SKILL.md frontmatter reader: the YAML subset it reads, and what it refuses (with the line)."""

from __future__ import annotations

import pytest

from host.engine.skills.frontmatter import FrontmatterError, parse, split

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


def test_the_subset_reads_as_yaml_would() -> None:
    parts = split(DOC)
    assert parts is not None
    front, body = parts
    assert body == "# Body\n"
    assert parse(front) == {
        "name": "pdf-tools",
        "description": "Fill PDF forms and extract text.\nSecond paragraph.\n",
        "whenToUse": 'when the user says "pdf" é',
        "disable-model-invocation": "yes",
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
        ("a: &x 1", 1, "'&' is not supported"),
        ("a: *x", 1, "'*' is not supported"),
        ("a: !!str 1", 1, "'!' is not supported"),
        ("a: {b: 1}", 1, "'{' is not supported"),
        ("a: 'x\n  y'", 1, "multi-line strings"),
        ("a: 1\nb: 2\na: 3", 3, "duplicate key 'a'"),
        ("a:\n\tb: 1", 2, "tabs"),
        ("a: b: c", 1, "': '"),
        ("- a", 1, "expected `key: value`"),
        ("a:\n  - b: c", 2, "mappings inside lists"),
        ("a: [1, 2", 1, "must close"),
        ('a: "\\q"', 1, "unsupported escape"),
        ("a: 1\n   b: 2", 2, "unexpected indentation"),
    ],
)
def test_outside_the_subset_is_refused_with_the_line(text: str, line: int, why: str) -> None:
    with pytest.raises(FrontmatterError) as info:
        parse(text)
    assert str(info.value).startswith(f"line {line}:") and why in str(info.value)
