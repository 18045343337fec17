"""The words bash would run for a command, or None when the text is more than one simple command.

A scoped grant is only as narrow as our reading of the command is faithful to bash's
(docs/decisions.md, "Grants cannot widen"). So we read a deliberately small language: words,
single and double quotes, backslash escapes. Everything bash would change after we read it —
chaining, pipes, redirections, substitutions, parameter, tilde and brace expansion, comments, a
glob that could expand to a word starting with `-` — makes the command "not simple": its only
rule is the exact command.
"""

from __future__ import annotations

METACHARACTERS = frozenset(";&|<>()\n\r`")
"""Unquoted, these make the text more than one program with arguments."""
GLOB = frozenset("*?[")
BRACES = frozenset("{}")


def simple_words(command: str) -> list[str] | None:
    """The words of `command` as bash would pass them to the program, or None when bash could
    see other words, or more than one command (see the module docstring)."""
    words: list[str] = []
    word: list[str] = []
    started = False  # the current word exists (an empty '' is a word)
    first_literal: str | None = None  # the word's first character, if it came literally
    globbed = False
    i, n = 0, len(command)

    def begin(literal: str) -> None:
        """The word exists; `literal` is its next character ("" for an empty quote, "*" for a
        glob character): the first one decides whether a glob in the word is safe."""
        nonlocal started, first_literal
        started = True
        if first_literal is None and literal:
            first_literal = literal

    while i < n:
        c = command[i]
        if c == "$" or c == "`":
            return None  # parameter, arithmetic or command substitution, ANSI-C quoting
        if c in " \t":
            if started:
                if globbed and not _glob_safe(first_literal):
                    return None
                words.append("".join(word))
            word, started, first_literal, globbed = [], False, None, False
            i += 1
            continue
        if c in METACHARACTERS or c in BRACES or (c == "#" and not started):
            return None
        if c == "~" and (not started or (word and word[-1] in "=:")):
            return None  # tilde expansion (`~`, `--dir=~`): bash would pass another word
        if c == "\\":
            if i + 1 >= n or command[i + 1] in "\n\r":
                return None  # a line continuation joins lines: not one plain line
            begin(command[i + 1])
            word.append(command[i + 1])
            i += 2
            continue
        if c == "'":
            end = command.find("'", i + 1)
            if end < 0:
                return None
            begin(command[i + 1 : i + 2] if end > i + 1 else "")
            word.append(command[i + 1 : end])
            i = end + 1
            continue
        if c == '"':
            j = i + 1
            piece: list[str] = []
            while j < n and command[j] != '"':
                if command[j] in "$`":
                    return None
                if command[j] == "\\" and j + 1 < n and command[j + 1] in '"\\':
                    piece.append(command[j + 1])
                    j += 2
                    continue
                piece.append(command[j])
                j += 1
            if j >= n:
                return None
            begin(piece[0] if piece else "")
            word.append("".join(piece))
            i = j + 1
            continue
        if c in GLOB:
            globbed = True
            begin("*")
        else:
            begin(c)
        word.append(c)
        i += 1
    if started:
        if globbed and not _glob_safe(first_literal):
            return None
        words.append("".join(word))
    return words


def _glob_safe(first: str | None) -> bool:
    """A glob word bash may expand into file names: safe only when every name it can expand to
    starts with the same literal, non-dash character (`src/*.py`, never `*` or `-*`)."""
    return first is not None and first != "-" and first not in GLOB
