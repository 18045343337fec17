"""A strict reader for the YAML subset SKILL.md frontmatter uses (no YAML dependency).

Supported: block mappings (nested by indentation), block sequences of scalars, flow sequences
of scalars (`[a, "b"]`), plain / single-quoted / double-quoted scalars (a plain scalar may fold
over more-indented lines), block scalars (`|`, `>`, with `-`/`+`), comments, `true`/`false`,
`null`/`~` and integers. Anything else (anchors, aliases, tags, flow mappings, multi-line
quoted strings, tabs in indentation, duplicate keys) is refused with the line number: a skill
whose frontmatter this reader cannot read exactly is skipped, never guessed at. See
docs/decisions.md, "Presets, skills and commands".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_KEY = re.compile(r"""^(?P<key>[A-Za-z0-9_][A-Za-z0-9_.-]*|"[^"\\]*"|'[^']*')\s*:(?:\s+|$)(?P<rest>.*)$""")
_INT = re.compile(r"^[-+]?[0-9]+$")
_BLOCK = re.compile(r"^([|>])([+-]?)\s*(?:#.*)?$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "/": "/", "0": "\0", " ": " ", "e": "\x1b"}


class FrontmatterError(ValueError):
    """The text is not in the subset; the message names the line."""


@dataclass
class _Line:
    number: int
    indent: int
    text: str
    """Without the indentation (trailing whitespace kept for block scalars)."""


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
    """The frontmatter as a dict; FrontmatterError when it is outside the subset."""
    lines: list[_Line] = []
    for number, raw in enumerate(source.splitlines(), start=1):
        body = raw.lstrip(" ")
        if body.startswith("\t") or (body.strip() and "\t" in raw[: len(raw) - len(body)]):
            raise FrontmatterError(f"line {number}: tabs are not allowed in indentation")
        lines.append(_Line(number, len(raw) - len(body), body.rstrip("\r")))
    reader = _Reader(lines)
    reader.skip_blank()
    if reader.done():
        return {}
    value = reader.mapping(reader.peek().indent)
    reader.skip_blank()
    if not reader.done():
        line = reader.peek()
        raise FrontmatterError(f"line {line.number}: unexpected indentation")
    return value


class _Reader:
    def __init__(self, lines: list[_Line]) -> None:
        self.lines = lines
        self.i = 0

    def done(self) -> bool:
        return self.i >= len(self.lines)

    def peek(self) -> _Line:
        return self.lines[self.i]

    def skip_blank(self) -> None:
        while not self.done() and (not self.peek().text.strip() or self.peek().text.lstrip().startswith("#")):
            self.i += 1

    def mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while True:
            self.skip_blank()
            if self.done() or self.peek().indent < indent:
                return out
            line = self.peek()
            if line.indent > indent:
                raise FrontmatterError(f"line {line.number}: unexpected indentation")
            match = _KEY.match(line.text)
            if match is None:
                raise FrontmatterError(f"line {line.number}: expected `key: value`")
            key = match["key"]
            if key[0] in "\"'":
                key = key[1:-1]
            if key in out:
                raise FrontmatterError(f"line {line.number}: duplicate key {key!r}")
            self.i += 1
            out[key] = self.value(match["rest"], indent, line.number)

    def value(self, rest: str, indent: int, number: int) -> Any:
        rest = rest.strip()
        if rest == "" or rest.startswith("#"):
            self.skip_blank()
            if self.done():
                return None
            nxt = self.peek()
            if nxt.indent > indent:
                return self.sequence(nxt.indent) if nxt.text.startswith("-") else self.mapping(nxt.indent)
            if nxt.indent == indent and (nxt.text == "-" or nxt.text.startswith("- ")):
                return self.sequence(indent)
            return None
        block = _BLOCK.match(rest)
        if block:
            return self.block_scalar(block[1], block[2], indent)
        return self.scalar(rest, indent, number)

    def sequence(self, indent: int) -> list[Any]:
        out: list[Any] = []
        while True:
            self.skip_blank()
            if (
                self.done()
                or self.peek().indent != indent
                or not (self.peek().text == "-" or self.peek().text.startswith("- "))
            ):
                if not self.done() and self.peek().indent > indent:
                    raise FrontmatterError(f"line {self.peek().number}: unexpected indentation")
                return out
            line = self.peek()
            self.i += 1
            item = line.text[1:].strip()
            if _KEY.match(item):
                raise FrontmatterError(f"line {line.number}: mappings inside lists are not supported")
            out.append(None if not item else self.scalar(item, indent, line.number))

    def block_scalar(self, style: str, chomp: str, indent: int) -> str:
        raw: list[_Line] = []
        while not self.done():
            line = self.peek()
            if line.text.strip() and line.indent <= indent:
                break
            raw.append(line)
            self.i += 1
        content = [ln for ln in raw if ln.text.strip()]
        base = min((ln.indent for ln in content), default=indent + 1)
        texts = [(" " * (ln.indent - base) + ln.text) if ln.text.strip() else "" for ln in raw]
        while texts and not texts[-1] and chomp != "+":
            texts.pop()
        if style == "|":
            text = "\n".join(texts)
        else:
            text = _fold(texts)
        if chomp == "-":
            return text
        return text + "\n" if texts else ""

    def scalar(self, rest: str, indent: int, number: int) -> Any:
        first = rest[0]
        if first in "&*!{%@`|>":
            raise FrontmatterError(f"line {number}: {first!r} is not supported here")
        if first == '"':
            return _closed(_double(rest, number), rest, number)
        if first == "'":
            return _closed(_single(rest, number), rest, number)
        if first == "[":
            return _flow_sequence(rest, number)
        text = _strip_comment(rest, number)
        parts = [text]
        while not self.done():  # a plain scalar folds over more-indented continuation lines
            line = self.peek()
            if not line.text.strip() or line.indent <= indent or line.text.lstrip().startswith("#"):
                break
            if _KEY.match(line.text) or line.text.startswith("- "):
                raise FrontmatterError(f"line {line.number}: unexpected indentation")
            parts.append(_strip_comment(line.text.strip(), line.number))
            self.i += 1
        if len(parts) > 1:
            return " ".join(parts)
        return _typed(text)


def _fold(texts: list[str]) -> str:
    """`>` folding: single breaks between plain lines become spaces, n empty lines n breaks;
    more-indented lines keep their breaks."""
    out = ""
    last: str | None = None
    breaks = 0
    for text in texts:
        if not text:
            breaks += 1
            continue
        if last is None:
            out = "\n" * breaks + text
        else:
            literal = text.startswith(" ") or last.startswith(" ")
            out += ("\n" * (breaks + (1 if literal else 0))) if breaks else ("\n" if literal else " ")
            out += text
        last, breaks = text, 0
    return out + "\n" * breaks


def _strip_comment(text: str, number: int) -> str:
    cut = re.search(r"\s#", text)
    text = text[: cut.start()] if cut else text
    if ": " in text or text.endswith(":"):
        raise FrontmatterError(f"line {number}: a plain value may not contain ': ' (quote it)")
    return text.rstrip()


def _typed(text: str) -> Any:
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    if lowered in ("null", "~"):
        return None
    if _INT.match(text):
        return int(text)
    return text


def _double(rest: str, number: int) -> tuple[str, int]:
    out: list[str] = []
    i = 1
    while i < len(rest):
        ch = rest[i]
        if ch == '"':
            return "".join(out), i + 1
        if ch == "\\":
            nxt = rest[i + 1 : i + 2]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", rest[i + 2 : i + 6]):
                out.append(chr(int(rest[i + 2 : i + 6], 16)))
                i += 6
                continue
            raise FrontmatterError(f"line {number}: unsupported escape \\{nxt}")
        out.append(ch)
        i += 1
    raise FrontmatterError(f"line {number}: unterminated string (multi-line strings are not supported)")


def _single(rest: str, number: int) -> tuple[str, int]:
    out: list[str] = []
    i = 1
    while i < len(rest):
        if rest[i] == "'":
            if rest[i + 1 : i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), i + 1
        out.append(rest[i])
        i += 1
    raise FrontmatterError(f"line {number}: unterminated string (multi-line strings are not supported)")


def _closed(parsed: tuple[str, int], rest: str, number: int) -> str:
    value, end = parsed
    tail = rest[end:].strip()
    if tail and not tail.startswith("#"):
        raise FrontmatterError(f"line {number}: text after a quoted string")
    return value


def _flow_sequence(rest: str, number: int) -> list[Any]:
    body = rest.strip()
    close = body.rfind("]")
    if close < 0 or (body[close + 1 :].strip() and not body[close + 1 :].strip().startswith("#")):
        raise FrontmatterError(f"line {number}: a [list] must close on its line")
    inner = body[1:close].strip()
    out: list[Any] = []
    while inner:
        if inner[0] == '"':
            value, end = _double(inner, number)
        elif inner[0] == "'":
            value, end = _single(inner, number)
        else:
            end = inner.find(",") if "," in inner else len(inner)
            token = inner[:end].strip()
            if not token or token[0] in "[]{}&*!":
                raise FrontmatterError(f"line {number}: unsupported list item {token!r}")
            value = _typed(token)
        out.append(value)
        inner = inner[end:].strip()
        if inner.startswith(","):
            inner = inner[1:].strip()
        elif inner:
            raise FrontmatterError(f"line {number}: expected ',' in a [list]")
    return out
