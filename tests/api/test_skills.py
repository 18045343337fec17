"""Skills over both carriers: discovery and `skill.list`, the `/name` gesture, the `skill` tool and
the catalogue the model reads; project instructions (AGENTS.md / CLAUDE.md) in the prompt."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from contract.methods import AGENT_PRESET_COPY, SESSION_CREATE, SESSION_HISTORY, SKILL_LIST
from tests.api.conftest import Host
from tests.api.support import err, events_of, ok, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def skill(root: Path, name: str, description: str, body: str = "Do the thing.", **flags: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    extra = "".join(f"{k}: {v}\n" for k, v in flags.items())
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}\n")
    return folder


def project(host: Host) -> Path:
    """The session folder is a subfolder of a git project: skills and AGENTS.md live at its root."""
    (host.workdir / ".git").mkdir(exist_ok=True)
    sub = host.workdir / "src"
    sub.mkdir(exist_ok=True)
    return sub


def user_texts(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "user"]


async def test_skill_list_discovers_ranks_and_warns(host: Host) -> None:
    cwd = project(host)
    agents = host.workdir / ".agents" / "skills"
    skill(agents, "pdf", "Fill PDF forms", whenToUse="a PDF is involved")
    skill(agents, "hidden", "Only for the model", **{"user-invocable": "false"})
    skill(agents, "manual", "Only by hand", **{"disable-model-invocation": "yes"})
    skill(agents, "camel", "Bad flag", disableModelInvocation="true")
    skill(agents, "flag", "Bad value", **{"user-invocable": "sometimes"})
    skill(host.workdir / ".harnessdesk" / "skills", "pdf", "The project's own pdf skill wins")
    (agents / "notes.md").write_text("no frontmatter here\n")
    (agents / "broken").mkdir()
    (agents / "broken" / "SKILL.md").write_text("---\nname: broken\ndescription: [unclosed\n---\nx\n")
    (agents / "flat.md").write_text("---\nname: flat\ndescription: A single-file skill\n---\nBody\n")
    client = host.client()
    sid = await host.create(cwd)
    listed = await ok(client, SKILL_LIST, {"sessionId": sid})  # a cold (never attached) session
    assert [s.name for s in listed.skills] == ["flat", "manual", "pdf"]
    by_name = {s.name: s for s in listed.skills}
    assert by_name["pdf"].description == "The project's own pdf skill wins"
    assert by_name["manual"].model_invocable is False and by_name["flat"].model_invocable is True
    warned = {w.location: w for w in listed.warnings}
    assert set(warned) == {"camel/SKILL.md", "flag/SKILL.md", "notes.md", "broken/SKILL.md"}
    assert "disableModelInvocation" in warned["camel/SKILL.md"].message
    assert "user-invocable must be true or false" in warned["flag/SKILL.md"].message
    assert "not valid YAML" in warned["broken/SKILL.md"].message
    assert all(w.source == "project-agents" for w in listed.warnings)
    assert str(host.workdir) not in json.dumps([w.model_dump() for w in listed.warnings])  # no host path
    gone = await err(client, SKILL_LIST, {"sessionId": "s-unknown"}, "session-not-found")
    assert gone.details == {"sessionId": "s-unknown"}


async def test_a_slash_token_puts_the_skill_into_the_next_request(host: Host, llm: ScriptedLlmServer) -> None:
    cwd = project(host)
    pdf = skill(host.workdir / ".agents" / "skills", "pdf", "Fill PDF forms", body="Use pdftk to fill forms.")
    skill(host.workdir / ".agents" / "skills", "secret", "Not for people", **{"user-invocable": "no"})
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create(cwd)
    words = "please /pdf the file in /usr/bin, then /pdf again /secret /nope 5/8"
    events = await run_turn(client, mux, sid, words)
    texts = user_texts(llm.requests[-1])
    invoked = [t for t in texts if t.startswith("<skill_content")]
    assert len(invoked) == 1  # de-duplicated; unknown and not user-invocable names stay prose
    assert invoked[0].startswith('<skill_content name="pdf">')
    assert f"Base directory for this skill: {pdf}" in invoked[0]
    assert "<skill_instructions>\nUse pdftk to fill forms.\n</skill_instructions>" in invoked[0]
    assert texts[-1] == invoked[0]  # the material to act on comes last, after the catalogue
    assert texts.index(invoked[0]) > texts.index(next(t for t in texts if "please /pdf" in t))
    sources = [e.data["source"] for e in events if e.type == "user/message"]
    invocations = [s for s in sources if s["kind"] == "skill-invocation"]
    assert invocations == [{"kind": "skill-invocation", "name": "pdf", "form": "instructions"}]
    await run_turn(client, mux, sid, "no gesture this time")
    assert sum(t.startswith("<skill_content") for t in user_texts(llm.requests[-1])) == 1  # not repeated


async def test_the_model_sees_a_catalogue_and_can_load_a_skill(host: Host, llm: ScriptedLlmServer) -> None:
    cwd = project(host)
    root = host.workdir / ".agents" / "skills"
    skill(root, "deploy", "x" * 700, body="Run make deploy.")
    skill(root, "manual", "Only by hand", **{"disable-model-invocation": "true"})
    call = ("call-1", "skill", json.dumps({"name": "deploy"}))
    llm.enqueue(Reply(tool_calls=[call]), Reply(text="done"), Reply(text="again"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create(cwd)
    events = await run_turn(client, mux, sid, "ship it")
    first = llm.requests[-2]
    assert "skill" in {t["function"]["name"] for t in first["tools"]}
    catalogue = next(t for t in user_texts(first) if t.startswith("<system-reminder>"))
    assert f"- `deploy`: {'x' * 499}…" in catalogue and "x" * 500 not in catalogue  # capped at 500
    assert "manual" not in catalogue
    result = next(e for e in events if e.type == "tool/result")
    assert result.data["message"]["content"][0]["content"].startswith('<skill_content name="deploy">')
    assert "Run make deploy." in result.data["message"]["content"][0]["content"]
    await run_turn(client, mux, sid, "and again")
    reminders = [t for t in user_texts(llm.requests[-1]) if t.startswith("<system-reminder>")]
    assert reminders == [catalogue]  # sent once; a replacement only when the set changes
    skill(root, "lint", "Run the linters")
    await run_turn(client, mux, sid, "once more")
    reminders = [t for t in user_texts(llm.requests[-1]) if t.startswith("<system-reminder>")]
    assert len(reminders) == 2 and "`lint`" in reminders[-1]


async def test_a_preset_sees_its_own_skills_first(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    await ok(client, AGENT_PRESET_COPY, {"from": "standard", "agentPreset": "mine"})
    skill(host.data_dir / "agent-presets" / "mine" / "skills", "pdf", "The preset's pdf", body="Preset way.")
    skill(host.workdir / ".agents" / "skills", "pdf", "The project's pdf", body="Project way.")
    plain = await host.create()
    mine = (await ok(client, SESSION_CREATE, {"cwd": str(host.workdir), "agentPreset": "mine"})).session_id
    assert (await ok(client, SKILL_LIST, {"sessionId": plain})).skills[0].description == "The project's pdf"
    assert (await ok(client, SKILL_LIST, {"sessionId": mine})).skills[0].description == "The preset's pdf"
    mux = await host.mux(client)
    await run_turn(client, mux, mine, "/pdf")
    assert "Preset way." in user_texts(llm.requests[-1])[-1]


async def test_agents_md_joins_the_prompt_and_is_reread(host: Host, llm: ScriptedLlmServer) -> None:
    cwd = project(host)
    (host.workdir / "CLAUDE.md").write_text("Claude rules: tabs.\n")
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create(cwd)
    await run_turn(client, mux, sid, "one")
    assert "Claude rules: tabs." in llm.requests[-1]["messages"][0]["content"]
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    assert history.projections is not None
    assert history.projections.values["instructions"] == {
        "name": "CLAUDE.md",
        "path": str(host.workdir / "CLAUDE.md"),
        "truncated": False,
    }
    agents = host.workdir / "AGENTS.md"
    agents.write_text("Agents rules: run make check before you finish.\n")
    start = len(mux.items)
    await run_turn(client, mux, sid, "two")
    system = llm.requests[-1]["messages"][0]["content"]
    assert "Agents rules: run make check" in system and "Claude rules" not in system  # AGENTS.md wins
    projected = [f for f in mux.since(start) if f.type == "session/projection" and f.key == "instructions"]
    assert projected and projected[-1].value["name"] == "AGENTS.md"
    agents.write_text("Agents rules, edited: use ruff.\n")
    os.utime(agents, (1, 1))  # a new mtime even on a coarse clock
    await run_turn(client, mux, sid, "three")
    assert "Agents rules, edited: use ruff." in llm.requests[-1]["messages"][0]["content"]
    logged = [json.dumps(e.data) for e in events_of(mux.frames, sid) if e.type == "user/message"]
    assert not [m for m in logged if "Agents rules" in m]  # in the prompt, never in the log
