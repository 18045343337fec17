"""Scoped grants cannot widen (issue 24, item 6; docs/decisions.md, "Grants cannot widen").

Red-team finding: "Allow always" on `find . -name '*.txt'` stored `find …`, and afterwards
`find . -exec touch M {} +` ran unasked; likewise `git --no-pager log -1` → `git -c alias.x='!touch
M' x` and `sed -n 1p a.txt` → `sed -n '1e touch M' a.txt`. Here the escapes run end to end against
a real host with the scripted provider and a real marker file; the scoping itself is checked with
generated command pairs (hypothesis), and our reading of a command's words against real bash.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.engine.tools.permissions.scope import covers, option_key, scope_for
from host.engine.tools.permissions.shellwords import simple_words
from tests.api.conftest import Host
from tests.api.support import Frames, event, ftype, prompt
from tests.support.scripted_llm import Reply, ScriptedLlmServer

HERE = Path(".")


def grant(command: str) -> str:
    return scope_for("bash", {"command": command}, HERE, False)


def covered(scope: str, command: str) -> bool:
    return covers(scope, "bash", {"command": command}, HERE, False)


# ---- generated command pairs --------------------------------------------------------------------

PROGRAMS = ["npm", "cargo", "ls", "grep", "cat", "rm", "head", "sed", "find", "make", "pytest", "go"]
SUBCOMMANDS = ["test", "build", "run", "status", "log", "install", "x1", "src"]
OPTIONS = ["-n", "-name", "-r", "-rf", "-i", "-q", "-v", "-1", "--watch", "--force", "--ci", "-type"]
VALUED = ["--output", "--format", "--jobs"]
OPERANDS = ["./a.txt", "/tmp/x", "./src", "../b", "./1p", "/etc/hosts", "./README.md"]


@st.composite
def commands(draw: st.DrawFn) -> tuple[str, tuple[str, str | None, frozenset[str]]]:
    """A benign command and what a grant may compare: (program, subcommand, option set)."""
    program = draw(st.sampled_from(PROGRAMS))
    sub = draw(st.none() | st.sampled_from(SUBCOMMANDS))
    flags = draw(st.lists(st.sampled_from(OPTIONS), max_size=3))
    valued = [
        f"{o}={draw(st.sampled_from(['a', 'b', 'json']))}"
        for o in draw(st.lists(st.sampled_from(VALUED), max_size=2))
    ]
    operands = draw(st.lists(st.sampled_from(OPERANDS), max_size=3))
    rest = draw(st.permutations([*flags, *valued, *operands]))
    words = [program, *([sub] if sub else []), *rest]
    if program == "sed":  # a sed script without e/w/W, so the command itself is not code
        words.insert(1 if not sub else 2, "1p")
    shape = (program, sub, frozenset(option_key(o) for o in (*flags, *valued)))
    return " ".join(shlex.quote(w) for w in words), shape


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands(), commands())
def test_a_grant_never_covers_another_program_subcommand_or_option_shape(
    a: tuple[str, tuple[Any, ...]], b: tuple[str, tuple[Any, ...]]
) -> None:
    (first, shape_a), (second, shape_b) = a, b
    scope = grant(first)
    assert covered(scope, first), first  # a grant covers the call it was given for
    if covered(scope, second):
        assert shape_a == shape_b, (first, second, scope)
    both_shapes = scope.startswith("shape:") and grant(second).startswith("shape:")
    if both_shapes and shape_a[0] != "sed":  # (sed's script is an operand the shape keeps)
        assert covered(scope, second) == (shape_a == shape_b), (first, second, scope)


ESCAPES = [
    "{p} -exec touch M {} +",
    "{p} -execdir touch M ;",
    "{p} -ok touch M",
    "{p} -okdir touch M",
    "{p} -delete",
    "{p} ; touch M",
    "{p} && touch M",
    "{p} || touch M",
    "{p} | sh",
    "{p} & touch M",
    "{p} > M",
    "{p} < /etc/passwd",
    "{p} $(touch M)",
    "{p} `touch M`",
    "{p} ${IFS}-delete",
    "{p} $IFS-exec",
    '{p} "$(touch M)"',
    "{p} *",
    "{p} -*",
    "{p} {a,-delete}",
    "{p}\ntouch M",
    "{p} \\\ntouch M",
    "{p} # comment",
]
"""Appended to a benign command: a compound, a substitution, an expansion bash re-reads, or a
find action that runs or deletes — none may ride on the benign command's grant."""

RUNNERS = [
    "xargs touch M",
    "env touch M",
    "nice touch M",
    "nohup touch M",
    "timeout 5 touch M",
    "time touch M",
    "sudo touch M",
    "doas touch M",
    "git -c alias.x='!touch M' x",
    "git --exec-path=/tmp x",
    "git x",
    "git -C /tmp status",
    "git rebase --exec 'touch M' HEAD",
    "git config core.pager 'touch M'",
    "sed -n '1e touch M' a.txt",
    "sed 's/a/b/e' a.txt",
    "sed -n '1w M' a.txt",
    "sed -n 1W\\ M a.txt",
    "sed -e 1p -e '1e touch M' a.txt",
    "sed --expression='1e touch M' a.txt",
    "sed -f script.sed a.txt",
    "awk 'BEGIN{system(\"touch M\")}'",
    "gawk -f x.awk",
    "perl -e 'system q(touch M)'",
    'python -c \'open("M","w")\'',
    'python3 -c \'open("M","w")\'',
    "python -W ignore script.py",
    "python -X dev script.py",
    'ruby -e \'File.write("M","")\'',
    'node -e \'require("fs").writeFileSync("M","")\'',
    "bash -c 'touch M'",
    "sh -c 'touch M'",
    "zsh -c 'touch M'",
    "npx touch-cli M",
    "pnpm dlx touch-cli M",
    "uvx touch-cli M",
    "tar --to-command='touch M' -xf a.tar",
    "tar -xf a.tar --checkpoint=1 --checkpoint-action=exec='touch M'",
    "ssh localhost touch M",
    "docker run alpine touch M",
    "docker exec box touch M",
    "podman run alpine touch M",
    "podman exec box touch M",
    "FOO=1 touch M",
]
"""Commands that run their arguments as code: exact-only, never covered by a shape."""


@pytest.mark.parametrize("command", RUNNERS)
def test_programs_that_run_their_arguments_get_only_the_exact_command(command: str) -> None:
    scope = grant(command)
    assert scope == "exact:" + command
    assert covered(scope, command) and not covered(scope, command + " x")


@settings(max_examples=400, deadline=None)
@given(commands(), st.sampled_from(ESCAPES + [f"{{p}} && {r}" for r in RUNNERS]), st.sampled_from(RUNNERS))
def test_no_grant_covers_a_compound_an_expansion_or_a_code_runner(
    a: tuple[str, Any], escape: str, runner: str
) -> None:
    benign = a[0]
    scope = grant(benign)
    assert not covered(scope, escape.replace("{p}", benign)), (scope, escape)
    assert not covered(scope, runner), (scope, runner)
    for other in (benign + " -exec touch M {} +", benign + " ; touch M"):
        assert not covered(grant(other), benign + " -exec rm -rf / {} +")


WORDISH = st.text(alphabet="ab -'\"\\*?;|&<>#~=.", min_size=1, max_size=14)


@settings(max_examples=300, deadline=None)
@given(WORDISH)
def test_every_command_we_read_as_simple_has_the_words_bash_gives_it(tail: str) -> None:
    """Our reading is what a grant compares: it must be bash's. Whatever `simple_words` accepts
    is run through real bash's `printf` in an empty folder (nothing can expand to a file)."""
    words = simple_words("printf '%s\\0' " + tail)
    if words is None:
        return
    out = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "printf '%s\\0' " + tail],
        cwd=EMPTY,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert out.returncode == 0, (tail, out.stderr)
    bash_words = out.stdout.decode().split("\0")[:-1]
    assert words[2:] == bash_words or (len(words) == 2 and bash_words == [""]), (tail, words, bash_words)


EMPTY = Path(__file__).resolve().parent / "__grants_empty__"


@pytest.fixture(autouse=True, scope="module")
def _empty_folder() -> Any:
    EMPTY.mkdir(exist_ok=True)
    yield
    EMPTY.rmdir()


def test_the_card_names_the_scope_in_words() -> None:
    from host.engine.tools.permissions.scope import always_words

    assert always_words("bash", grant("npm test")).text == "Always allow `npm test …` in this session"
    assert (
        always_words("bash", grant("find . -name '*.txt'")).text
        == "Always allow `find -name …` in this session"
    )
    exact = always_words("bash", grant("find . -exec touch M {} +"))
    assert (exact.button, exact.text, exact.exact) == (
        "Allow this exact command always",
        "Always allow exactly this command",
        True,
    )


# ---- end to end: the red team's escapes against a real host -------------------------------------


def bash_call(call_id: str, command: str) -> Reply:
    return Reply(tool_calls=[(call_id, "bash", json.dumps({"command": command}))])


async def answer(host: Host, mux: Frames, sid: str, outcome: str) -> Any:
    rpc_id, frame = await mux.next(ftype("approval/requested", sid))
    value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": outcome}
    receipt = await host.client().respond(rpc_id, {"ok": True, "value": value})
    assert receipt.accepted, receipt
    return frame


ESCAPE_PAIRS = [
    ("find . -name '*.txt'", "find . -name '*.md'", "find . -exec touch M {} +"),
    ("git --no-pager log -1", "git --no-pager log -1 HEAD", "git -c alias.x='!touch M' x"),
    ("sed -n 1p a.txt", "sed -n 2p a.txt", "sed -n '1e touch M' a.txt"),
]


@pytest.mark.parametrize(("benign", "same_shape", "escape"), ESCAPE_PAIRS)
async def test_allow_always_on_the_benign_form_still_asks_for_the_escape(
    host: Host, llm: ScriptedLlmServer, benign: str, same_shape: str, escape: str
) -> None:
    work = host.workdir
    (work / "a.txt").write_text("one\ntwo\n")
    await asyncio.to_thread(subprocess.run, ["git", "init", "-q", str(work)], check=True, timeout=60)
    marker = work / "M"
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create(work)

    llm.enqueue(bash_call("c1", benign), Reply(text="ran it"))
    await prompt(client, sid, "the benign one")
    asked = await answer(host, mux, sid, "allowed-always")
    assert asked.always is not None and not asked.always.exact
    assert asked.always.text.startswith("Always allow `") and asked.always.text.endswith("…` in this session")
    await mux.next(event("turn/end", sid))

    llm.enqueue(bash_call("c2", same_shape), Reply(text="ran it too"))  # the grant works
    await prompt(client, sid, "the same shape")
    await mux.next(event("turn/end", sid))
    asked_again = [
        f for f in mux.frames if f.type == "approval/requested" and f.approval_id != asked.approval_id
    ]
    assert not asked_again, asked_again

    llm.enqueue(bash_call("c3", escape), Reply(text="refused"))
    await prompt(client, sid, "the escape")
    frame = await answer(host, mux, sid, "rejected")
    assert frame.arguments == {"command": escape}
    assert frame.always is not None and frame.always.exact
    assert (frame.always.button, frame.always.text) == (
        "Allow this exact command always",
        "Always allow exactly this command",
    )
    await mux.next(event("turn/end", sid))
    assert not marker.exists(), f"{escape!r} ran unasked"
