"""The "Adding a unary method" checklist of docs/architecture.md, walked for real: in a copy of
the repository, `probe.touch` (privileged, subagent-fenced, with a new error code) is added by
exactly the checklist's steps, the derived files are regenerated, and the fence, registry, map,
docs and JS tests run against the copy (a subprocess with the copy first on sys.path).

Each step below edits the copy as a person following the page would; the anchors are lines of
today's code (the `Engine` step's anchor is where the engine keeps its door methods).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from contract.methods import METHODS

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("contract", "host", "desktop", "webui", "tests", "docs", "docs_tools", "pyproject.toml")


def insert(path: Path, anchor: str, text: str, *, before: bool = False) -> None:
    """Put `text` right after (or before) the one occurrence of `anchor` in `path`."""
    source = path.read_text(encoding="utf-8")
    assert source.count(anchor) == 1, f"{path}: the anchor {anchor!r} is not there exactly once"
    at = source.index(anchor) + (0 if before else len(anchor))
    path.write_text(source[:at] + text + source[at:], encoding="utf-8")


def models(repo: Path) -> None:
    (repo / "contract" / "probe.py").write_text(
        '"""probe.*: the checklist walk\'s method."""\n\n'
        "from __future__ import annotations\n\n"
        "from pydantic import Field\n\n"
        "from contract._base import WireModel\n\n\n"
        "class TouchRequest(WireModel):\n"
        "    session_id: str = Field(min_length=1, max_length=200)\n\n\n"
        "class TouchValue(WireModel):\n"
        "    touched: bool\n",
        encoding="utf-8",
    )


def error_codes(repo: Path) -> None:
    insert(
        repo / "contract/errors.py",
        '    "privilege-required": PrivilegeDetails,\n',
        '    "probe-refused": SessionDetails,\n',
    )
    insert(
        repo / "contract/error_when.py",
        "\n}\n",
        '\n    "probe-refused": "`probe.touch` of a session that does not exist",',
        before=True,
    )
    with (repo / "host/engine/errors/sessions.py").open("a", encoding="utf-8") as f:
        f.write(
            "\n\nclass ProbeRefused(EngineError[SessionDetails]):\n"
            '    code = "probe-refused"\n\n'
            "    def __init__(self, session_id: str) -> None:\n"
            '        message = f"nothing to touch: no session {session_id}"\n'
            "        super().__init__(message, SessionDetails(session_id=session_id))\n"
        )
    package = repo / "host/engine/errors/__init__.py"
    insert(package, "from host.engine.errors.sessions import (\n", "    ProbeRefused,\n")
    insert(package, "__all__ = [\n", '    "ProbeRefused",\n')
    insert(repo / "webui/js/state/problems.js", 'const CODES = ["session-not-found", ', '"probe-refused", ')
    catalogues = {  # the code's sentence in both catalogues (docs/architecture.md, "Languages")
        "en": ("This session no longer exists.", "There is no such session to touch."),
        "zh-CN": ("这个会话已不存在。", "没有可以触碰的会话。"),
    }
    for lang, (anchor, sentence) in catalogues.items():
        insert(
            repo / f"webui/js/i18n/{lang}.js",
            f'  "error.session-not-found": "{anchor}",\n',
            f'  "error.probe-refused": "{sentence}",\n',
        )


def the_row(repo: Path) -> None:
    methods = repo / "contract/methods.py"
    insert(methods, "    presets,\n", "    probe,\n")
    row = (
        'PROBE_TOUCH = Method(\n    "probe.touch", probe.TouchRequest, probe.TouchValue,\n'
        '    privileged=True, session="changes", subagent_fenced=True,\n)\n'
    )
    insert(methods, "\n\ndef _collect(", "\n" + row, before=True)


def engine(repo: Path) -> None:
    (repo / "host/engine/sessions/touching.py").write_text(
        '"""The checklist walk\'s concern: a small class built from the part it needs."""\n\n'
        "from __future__ import annotations\n\n"
        "from collections.abc import Awaitable, Callable\n\n"
        "from host.engine.errors import ProbeRefused\n\n\n"
        "class SessionToucher:\n"
        "    def __init__(self, has_session: Callable[[str], Awaitable[bool]]) -> None:\n"
        "        self._has_session = has_session\n\n"
        "    async def touch(self, session_id: str) -> bool:\n"
        "        if not await self._has_session(session_id):\n"
        "            raise ProbeRefused(session_id)\n"
        "        return True\n",
        encoding="utf-8",
    )
    door = repo / "host/engine/services/sessions.py"  # the service that owns the concern
    insert(
        door,
        "from __future__ import annotations\n",
        "\nfrom host.engine.sessions.touching import SessionToucher\n",
    )
    insert(
        door,
        "    async def has_session(self, session_id: str) -> bool:\n",
        "    async def touch_probe(self, session_id: str) -> bool:\n"
        "        return await SessionToucher(self.has_session).touch(session_id)\n\n",
        before=True,
    )


def implementation(repo: Path) -> None:
    (repo / "host/api/probe.py").write_text(
        '"""`probe.*`."""\n\n'
        "from __future__ import annotations\n\n"
        "from contract import probe as pr\n"
        "from contract.methods import PROBE_TOUCH\n"
        "from host.api.registry import implements\n"
        "from host.engine.engine import Engine\n\n\n"
        "@implements(PROBE_TOUCH)\n"
        "async def touch(engine: Engine, p: pr.TouchRequest) -> pr.TouchValue:\n"
        "    return pr.TouchValue(touched=await engine.sessions.touch_probe(p.session_id))\n",
        encoding="utf-8",
    )
    proxy = repo / "host/api/proxy.py"
    insert(proxy, "from host.api import (\n", "    probe,\n")
    insert(proxy, "    hooks,\n)\n", "    probe,\n", before=True)


def fence_samples(repo: Path) -> None:
    insert(
        repo / "tests/api/test_fence.py",
        '        "files.freeSpace": {},\n',
        '        "probe.touch": {"sessionId": "s-unknown"},\n',
    )
    insert(
        repo / "tests/api/test_subagent_methods.py",
        '        "goal.clear": {"sessionId": child, "ref": {"id": "goal-x", "revision": 1}},\n',
        '        "probe.touch": {"sessionId": child},\n',
    )


def regenerate(repo: Path) -> None:
    stale = run(repo, "-m", "contract", "--check")
    assert (
        stale.returncode == 1
        and "contract.gen.js is stale" in stale.stderr
        and "architecture.md is stale" in stale.stderr
    )
    done = run(repo, "-m", "contract", "--out", str(repo.parent / "schema-out"))
    assert done.returncode == 0, done.stderr
    assert (
        '"probe.touch": {"privileged":true,"userPaced":false,"request":"TouchRequest","value":"TouchValue"},'
        in (repo / "webui/js/contract.gen.js").read_text()
    )
    done = run(repo, "-m", "docs_tools")  # the domains table gains the new module
    assert done.returncode == 0, done.stderr
    page = (repo / "docs/architecture.md").read_text(encoding="utf-8")
    assert "| `probe.touch` | `TouchRequest` → `TouchValue` | yes |  | changes | fenced |" in page
    assert "| `probe-refused` | `{sessionId}` | `probe.touch` of a session that does not exist |" in page
    assert "| `probe` | `host/api/probe.py` | `touch` |" in page


def a_test(repo: Path) -> None:
    (repo / "tests/api/test_probe.py").write_text(
        '"""probe.touch over both carriers."""\n\n'
        "from __future__ import annotations\n\n"
        "from contract.methods import PROBE_TOUCH\n"
        "from contract.probe import TouchRequest\n"
        "from contract.rpc import RpcOk\n"
        "from tests.api.conftest import Host\n"
        "from tests.api.support import err\n\n\n"
        "async def test_touch_and_its_error(host: Host) -> None:\n"
        "    client = host.client()\n"
        "    session_id = await host.create()\n"
        "    touched = await client.call(PROBE_TOUCH, TouchRequest(session_id=session_id))\n"
        "    assert isinstance(touched.result, RpcOk) and touched.result.value.touched is True\n"
        '    error = await err(client, PROBE_TOUCH, {"sessionId": "s-none"}, "probe-refused")\n'
        '    assert error.details == {"sessionId": "s-none"}\n',
        encoding="utf-8",
    )


STEPS: dict[str, Callable[[Path], None]] = {
    "Models": models,
    "Error codes": error_codes,
    "The row": the_row,
    "Engine": engine,
    "Implementation": implementation,
    "Fence samples": fence_samples,
    "Regenerate": regenerate,
    "Test": a_test,
}


def checklist_titles() -> list[str]:
    page = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    section = page.split("## Adding a unary method (checklist)", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- \[ \] \*\*(.+?)\.?\*\*", section, re.M)


def run(repo: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """The copy's own Python code first on sys.path, run from the copy."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # no outer run's options
    env.update(PYTHONPATH=str(repo))  # bytecode goes to the suite's cache (tests/conftest.py)
    return subprocess.run(
        [sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=timeout
    )


@contextlib.contextmanager
def fresh_copy() -> Iterator[Path]:
    """A fresh copy of the repository at a path of its own that is the same at every run (per user
    and checkout): the suite's bytecode cache is keyed by source path, mtime and size, so the
    copy's unchanged modules (copied with their mtimes) load compiled code from an earlier run
    instead of being compiled again by each of the copy's processes' first imports; the modules
    the walk edits are recompiled. A lock keeps two runs of one checkout from sharing the copy."""
    key = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    home = Path(tempfile.gettempdir()) / f"harnessdesk-checklist-{os.getuid()}-{key}"
    home.mkdir(mode=0o700, exist_ok=True)
    with open(home / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        repo = home / "repo"
        shutil.rmtree(repo, ignore_errors=True)  # what a killed run left
        shutil.rmtree(home / "schema-out", ignore_errors=True)
        try:
            for name in COPIED:
                source = ROOT / name
                if source.is_dir():
                    ignore = shutil.ignore_patterns("__pycache__", "screenshots")
                    shutil.copytree(source, repo / name, ignore=ignore)
                else:
                    shutil.copy2(source, repo / name)
            yield repo
        finally:
            shutil.rmtree(repo, ignore_errors=True)
            shutil.rmtree(home / "schema-out", ignore_errors=True)


def test_the_walk_covers_every_step_of_the_checklist_in_order() -> None:
    assert checklist_titles() == list(STEPS)


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the web client's tests")
def test_a_method_added_by_the_checklist_passes_the_fence_and_registry_tests() -> None:
    with fresh_copy() as repo:
        walk(repo)


def walk(repo: Path) -> None:
    where = run(
        repo, "-c", "import contract, host, tests; print(contract.__file__, host.__file__, tests.__file__)"
    )
    assert where.stdout.split() == [str(repo / p / "__init__.py") for p in ("contract", "host", "tests")], (
        where
    )
    for title in checklist_titles():
        STEPS[title](repo)
    suites = run(
        repo,
        "-m",
        "pytest",
        "-q",
        "-x",
        "-p",
        "no:cacheprovider",
        "tests/api/test_probe.py",
        "tests/api/test_fence.py",
        "tests/api/test_registry.py",
        "tests/foundation/test_method_map.py",
        "tests/foundation/test_docgen.py",
        "tests/test_layering.py",
        "tests/api/test_subagent_methods.py::test_a_subagent_refuses_direct_input_and_serves_reads",
    )
    assert suites.returncode == 0, suites.stdout[-4000:] + suites.stderr[-2000:]
    assert re.search(r"\d+ passed", suites.stdout)
    assert "probe.touch" not in METHODS and not (ROOT / "contract/probe.py").exists(), "only the copy changed"
    js = subprocess.run(
        ["node", "--test", "tests/js/problems.test.mjs", "tests/js/contract.test.mjs"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert js.returncode == 0, js.stdout[-3000:] + js.stderr[-1000:]
    assert run(repo, "-m", "contract", "--check").returncode == 0
