"""The Changes view's hunks (host/engine/files/hunks.py): headers as `diff -u` writes them, each hunk's
revert leaves every other line as it is now (line endings included), and the limits."""

from __future__ import annotations

import difflib

from host.engine.files.hunks import NO_EOL, compare, unapply

OLD = b"".join(b"line %d\r\n" % i for i in range(1, 21))
NEW = OLD.replace(b"line 2\r\n", b"line two\r\n").replace(b"line 19\r\n", b"line nineteen\r\nextra\r\n")


def test_headers_and_lines_match_unified_diff() -> None:
    found = compare(OLD, NEW, "f.txt")
    expected = list(
        difflib.unified_diff(OLD.decode().splitlines(), NEW.decode().splitlines(), lineterm="", n=3)
    )[2:]
    assert "\n".join(h.diff for h in found.hunks).splitlines() == expected
    assert [(h.added, h.removed) for h in found.hunks] == [(1, 1), (2, 1)]
    assert len({h.id for h in found.hunks}) == 2


def test_reverting_one_hunk_keeps_the_other_and_the_line_endings() -> None:
    first, second = compare(OLD, NEW, "f.txt").hunks
    assert unapply(OLD, NEW, second) == OLD.replace(b"line 2\r\n", b"line two\r\n")
    assert unapply(OLD, NEW, first) == OLD.replace(b"line 19\r\n", b"line nineteen\r\nextra\r\n")
    assert unapply(OLD, unapply(OLD, NEW, first), compare(OLD, unapply(OLD, NEW, first), "f").hunks[0]) == OLD


def test_added_deleted_and_a_missing_final_newline() -> None:
    [added] = compare(None, b"a\nb", "n").hunks
    assert added.diff.splitlines() == ["@@ -0,0 +1,2 @@", "+a", "+b", NO_EOL]
    [gone] = compare(b"x\n", None, "n").hunks
    assert gone.diff.splitlines() == ["@@ -1 +0,0 @@", "-x"]
    [eol] = compare(b"x\n", b"x", "n").hunks
    assert eol.diff.splitlines() == ["@@ -1 +1 @@", "-x", "+x", NO_EOL]
    assert unapply(b"x\n", b"x", eol) == b"x\n"


def test_binary_and_big_files_have_no_hunks() -> None:
    assert compare(b"\x00\x01", b"\x00\x02", "b").binary
    big = compare(b"a\n" * 1_100_000, b"b\n", "big")
    assert big.too_big and big.hunks == [] and "too large" in (big.note or "")
