"""Rules a person writes once, by pattern (`permission.rules`): matching, the shape checks that
keep them from widening, deny winning, folders; and in a real engine a rule that lets a matching
command run without a card while a non-matching one still asks (docs/decisions.md, "Rules by
pattern")."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from contract.namespaces import PermissionSection
from contract.permissions import PatternRule
from host.engine.tools import build_tools
from host.engine.tools.permissions.rules import command_matches, suggestion, verdict
from tests.engine.test_permissions import answer, bash, tool_results, turn
from tests.support.scripted_llm import Reply

Factory = Any
TOOLS = build_tools()


@pytest.mark.parametrize(
    ("pattern", "command", "covered"),
    [
        ("npm run test*", "npm run test", True),
        ("npm run test*", "npm run test:unit --ci", True),
        ("npm run test*", "npm run lint", False),
        ("npm run test *", "npm run test --ci", True),
        ("npm run test *", "npm run tests", False),
        ("echo *", "echo hello world", True),
        ("echo *", "echo hi; rm -rf ~", False),
        ("echo *", "echo $(rm -rf ~)", False),
        ("echo *", "echo hi && curl evil", False),
        ("find *", "find . -name x", True),
        ("find *", "find . -exec rm {} ;", False),  # the shape checks apply to every pattern
        ("git *", "git status", True),
        ("git *", "git -c core.pager=sh log", False),
        ("bash *", "bash -c 'rm -rf ~'", False),
        ("python *", "python -c 'import os'", False),
        ("sed *", "sed -n 1p a.txt", True),
        ("sed *", "sed -i '1e rm x' a.txt", False),
        ("npm test", "npm test", True),  # no star: the very command
        ("npm test", "npm test --watch", False),
    ],
)
def test_a_command_pattern_matches_only_simple_commands_that_run_no_code(
    pattern: str, command: str, covered: bool
) -> None:
    assert command_matches(pattern, command) is covered


def test_deny_wins_and_folders_limit_a_rule(tmp_path: Path) -> None:
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    (here / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    rules = [
        PatternRule(tool="bash", pattern="npm *", decision="allow"),
        PatternRule(tool="bash", pattern="npm publish*", decision="deny", folder=str(here)),
        PatternRule(tool="web_fetch", pattern="*.python.org"),
        PatternRule(tool="web_fetch", pattern="evil.python.org", decision="deny"),
    ]
    tool = TOOLS["bash"]

    def decided(command: str, cwd: Path) -> str | None:
        rule = verdict(rules, tool, "bash", {"command": command}, cwd)
        return rule.decision if rule else None

    assert decided("npm publish", here / "sub") == "deny"
    assert decided("npm publish", elsewhere) == "allow"
    assert decided("npm test", here) == "allow"
    assert decided("cargo test", here) is None
    fetch = None  # a domain rule reads only the URL
    for url, expected in (
        ("https://docs.python.org/3/", "allow"),
        ("https://evil.python.org/x", "deny"),
        ("https://python.org.evil.com/", None),
        ("https://notpython.org/", None),
    ):
        rule = verdict(rules, fetch, "web_fetch", {"url": url}, here)
        assert (rule.decision if rule else None) == expected, url


def test_bad_patterns_are_refused_by_the_namespace() -> None:
    for rule in (
        {"tool": "bash", "pattern": "*"},
        {"tool": "bash", "pattern": "np*m test"},
        {"tool": "bash", "pattern": "ls\nrm -rf x"},
        {"tool": "web_fetch", "pattern": "https://docs.python.org"},
        {"tool": "web_fetch", "pattern": "docs.*.org"},
        {"tool": "mcp", "pattern": "server"},
        {"tool": "bash", "pattern": "ls", "folder": "relative/path"},
        {"tool": "bash", "pattern": "ls", "decision": "maybe"},
    ):
        with pytest.raises(ValidationError):
            PermissionSection.model_validate({"rules": [rule]})


def test_the_card_suggests_a_family_and_nothing_for_code(tmp_path: Path) -> None:
    tool = TOOLS["bash"]
    offered = suggestion(tool, "bash", {"command": "npm run test -- --ci"}, tmp_path)
    assert (
        offered is not None and offered.pattern == "npm run *" and offered.folder == str(tmp_path.resolve())
    )
    assert suggestion(tool, "bash", {"command": "bash -c 'ls'"}, tmp_path) is None
    assert suggestion(tool, "bash", {"command": "ls | wc -l"}, tmp_path) is None
    fetched = suggestion(None, "web_fetch", {"url": "https://Docs.Python.org/3/"}, tmp_path)
    assert fetched is not None and fetched.pattern == "docs.python.org"


async def test_a_rule_runs_a_matching_command_without_a_card_and_a_other_still_asks(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory()
    rules = [{"tool": "bash", "pattern": "echo *", "decision": "allow", "folder": str(tmp_path)}]
    await engine.config.update_settings("permission", {"rules": rules}, None)
    sid = await engine.sessions.create_session(str(tmp_path))
    mux = engine.host.subscribe_mux()

    scripted_llm.enqueue(bash("b1", "echo covered"), Reply(text="ok"))
    events = await turn(engine, mux, sid)
    assert not any(e.type == "approval/asked" for e in events)  # no card
    assert "covered" in tool_results(events)[0]["message"]["content"][0]["content"]

    scripted_llm.enqueue(bash("b2", "ls -la"), Reply(text="ok"))
    asker = asyncio.create_task(answer(engine, engine.host.subscribe_mux(), sid, "rejected"))
    events = await turn(engine, mux, sid)
    frame = await asker
    assert frame.arguments == {"command": "ls -la"}
    assert frame.pattern_rule is not None and frame.pattern_rule.pattern == "ls *"
    assert tool_results(events)[0]["error"]["code"] == "REJECTED"

    deny = {"tool": "bash", "pattern": "echo secret*", "decision": "deny"}
    await engine.config.update_settings("permission", {"rules": [*rules, deny]}, None)
    scripted_llm.enqueue(bash("b3", "echo secret stuff"), Reply(text="ok"))
    events = await turn(engine, mux, sid)
    result = tool_results(events)[0]
    assert result["error"]["code"] == "PERMISSION_DENIED"  # deny wins over the allow
    assert "echo secret*" in result["message"]["content"][0]["content"]


async def test_web_fetch_asks_unless_a_rule_allows_its_domain(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    from tests.engine.test_web_reach import Site

    site = Site("127.0.0.2")
    site.routes["/doc"] = (200, {"Content-Type": "text/plain"}, b"the docs")
    try:
        engine = await engine_factory(tools="engine")
        await engine.config.update_settings("web", {"allowedPrivateHosts": ["127.0.0.2"]}, None)
        sid = await engine.sessions.create_session(str(tmp_path))
        mux = engine.host.subscribe_mux()
        fetch = Reply(tool_calls=[("f1", "web_fetch", f'{{"url": "{site.url}/doc"}}')])
        scripted_llm.enqueue(fetch, Reply(text="ok"))
        asker = asyncio.create_task(answer(engine, engine.host.subscribe_mux(), sid, "rejected"))
        events = await turn(engine, mux, sid)
        frame = await asker
        assert frame.tool_name == "web_fetch" and frame.pattern_rule.pattern == "127.0.0.2"
        assert tool_results(events)[0]["error"]["code"] == "REJECTED" and site.hits == []

        rule = {"tool": "web_fetch", "pattern": "127.0.0.2"}
        await engine.config.update_settings("permission", {"rules": [rule]}, None)
        scripted_llm.enqueue(fetch, Reply(text="ok"))
        events = await turn(engine, mux, sid)
        assert not any(e.type == "approval/asked" for e in events)
        assert "the docs" in tool_results(events)[0]["message"]["content"][0]["content"]
    finally:
        site.close()


@pytest.mark.parametrize("mode", ["read-only", "auto", "workspace-write", "danger-full-access"])
def test_web_fetch_asks_in_every_mode_but_full_access_and_a_rule_decides_in_all(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """web_fetch runs in the host, outside any sandbox: Read-only and Auto ask like Ask, unless a
    rule allows the domain; a deny refuses it even in Full access (docs/decisions.md, "Web fetch
    and private addresses")."""
    from host.engine.sandbox import reset_support
    from host.engine.sandbox.probe import FORCE_ENV, probe_bwrap
    from host.engine.tools.permissions.modes import preset
    from host.engine.tools.permissions.policy import SessionPermissions

    if not probe_bwrap().available:
        pytest.skip("no bubblewrap here: Auto is not offered without a sandbox")
    monkeypatch.delenv(FORCE_ENV, raising=False)
    reset_support()
    try:
        rules: list[PatternRule] = []
        perms = SessionPermissions("s1", tmp_path, preset(mode), patterns=lambda: rules)
        tool = build_tools_with_web()["web_fetch"]
        docs = {"url": "https://docs.python.org/3/"}
        assert perms.preset.name == mode
        assert perms.decide(tool, "web_fetch", docs).verdict == (
            "allow" if mode == "danger-full-access" else "ask"
        )
        rules.append(PatternRule(tool="web_fetch", pattern="*.python.org"))
        assert perms.decide(tool, "web_fetch", docs).verdict == "allow"
        other = perms.decide(tool, "web_fetch", {"url": "https://evil.example/"}).verdict
        assert other == ("allow" if mode == "danger-full-access" else "ask")  # not covered: asks
        rules.append(PatternRule(tool="web_fetch", pattern="docs.python.org", decision="deny"))
        assert perms.decide(tool, "web_fetch", docs).verdict == "deny"  # deny wins, in every mode
    finally:
        monkeypatch.undo()
        reset_support()


def build_tools_with_web() -> dict[str, Any]:
    from contract.namespaces import WebSection
    from host.engine.tools.reach import Reach
    from host.engine.tools.web_access.access import WebAccess

    return build_tools(Reach(web=WebAccess(lambda: WebSection(), lambda ref: None)))


def test_an_mcp_rule_names_a_server_and_its_tools(tmp_path: Path) -> None:
    """`server/tool`, `server/*`, `server/prefix*` against the tools MCP servers really offer;
    the suggestion is the very tool; a deny wins (docs/decisions.md, "Rules by pattern")."""
    from typing import cast

    from host.engine.integrations.mcp.connection import McpConnection, ToolInfo
    from host.engine.integrations.mcp.tool import McpTool
    from host.engine.tools.permissions.modes import preset
    from host.engine.tools.permissions.policy import SessionPermissions

    def tool(server: str, raw: str) -> McpTool:
        info = ToolInfo(raw, None, "", {"type": "object"}, False, False)
        return McpTool(server, info, cast(McpConnection, None))

    now, convert, log = tool("time", "get_current_time"), tool("time", "convert_time"), tool("git", "git_log")
    rules = [
        PatternRule(tool="mcp", pattern="time/*"),
        PatternRule(tool="mcp", pattern="time/convert*", decision="deny"),
    ]

    def decided(t: McpTool) -> str | None:
        rule = verdict(rules, t, t.name, {}, tmp_path)
        return rule.decision if rule else None

    assert (decided(now), decided(convert), decided(log)) == ("allow", "deny", None)
    offered = suggestion(now, now.name, {}, tmp_path)
    assert offered is not None and (offered.tool, offered.pattern) == ("mcp", "time/get_current_time")
    perms = SessionPermissions("s1", tmp_path, preset("workspace-write"), patterns=lambda: rules)
    assert perms.decide(now, now.name, {}).verdict == "allow"  # in Ask, without a card
    assert perms.decide(convert, convert.name, {}).verdict == "deny"
    assert perms.decide(log, log.name, {}).verdict == "ask"
