"""todo_write and ask_user: the two tools that go through the engine's callbacks."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from contract.events import TodoWrite
from contract.questions import AnswerItem, AnswerSet, Question, answer_problems
from host.engine.sessions.events import NewEvent
from host.engine.tools import ToolContext, build_tools

TOOLS = build_tools()


class Engine:
    """Records what tools send to the engine and answers questions from a script."""

    def __init__(self, answers: AnswerSet | None = None) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.asked: list[list[Question]] = []
        self.answers = answers
        self.release = asyncio.Event()
        self.waiting = asyncio.Event()

    async def emit(self, new: NewEvent[Any]) -> None:
        self.events.append((new.type, new.data.dump()))

    async def ask_user(self, questions: list[Question]) -> AnswerSet:
        self.asked.append(questions)
        if self.answers is None:
            self.waiting.set()
            await self.release.wait()
            raise asyncio.CancelledError
        return self.answers

    def ctx(self, cwd: Path) -> ToolContext:
        return ToolContext(session_id="s", cwd=cwd, ask_user=self.ask_user, emit=self.emit)


async def test_todo_write_emits_the_whole_list(tmp_path: Path) -> None:
    engine = Engine()
    todos = [
        {"content": "Read the code", "status": "completed"},
        {"content": "Fix the bug", "status": "in_progress"},
        {"content": "Run the tests", "status": "pending"},
    ]
    out = await TOOLS["todo_write"].run({"todos": todos}, engine.ctx(tmp_path))
    assert not out.is_error
    assert engine.events == [("todo/write", {"todos": todos})]
    TodoWrite.model_validate(engine.events[0][1])  # the event data fits the contract
    assert out.content.splitlines() == [
        "Todo list updated (1 completed, 1 in progress, 1 pending):",
        "[x] Read the code",
        "[~] Fix the bug",
        "[ ] Run the tests",
    ]
    cleared = await TOOLS["todo_write"].run({"todos": []}, engine.ctx(tmp_path))
    assert cleared.content == "Todo list cleared." and engine.events[-1] == ("todo/write", {"todos": []})


async def test_todo_write_rejects_bad_items_without_emitting(tmp_path: Path) -> None:
    engine = Engine()
    out = await TOOLS["todo_write"].run(
        {"todos": [{"content": "", "status": "pending"}]}, engine.ctx(tmp_path)
    )
    assert out.error_code == "BAD_ARGUMENTS" and engine.events == []


async def test_ask_user_passes_questions_and_formats_answers(tmp_path: Path) -> None:
    answers = AnswerSet(
        answers=[
            AnswerItem(id="db", selected=["SQLite"]),
            AnswerItem(id="features", selected=["Search", "Export"], custom="and themes"),
            AnswerItem(id="name", selected=[], custom="HarnessDesk"),
        ]
    )
    engine = Engine(answers)
    arguments = {
        "questions": [
            {
                "id": "db",
                "question": "Which database?",
                "header": "Storage",
                "options": [{"label": "SQLite", "description": "one file"}, {"label": "PostgreSQL"}],
            },
            {
                "id": "features",
                "question": "Which features first?",
                "options": [{"label": "Search"}, {"label": "Export"}],
                "multiSelect": True,
            },
            {"id": "name", "question": "What should it be called?"},
        ]
    }
    out = await TOOLS["ask_user"].run(arguments, engine.ctx(tmp_path))
    assert not out.is_error
    [questions] = engine.asked
    assert [q.id for q in questions] == ["db", "features", "name"]
    assert questions[0].header == "Storage" and questions[0].options is not None
    assert questions[0].options[0].description == "one file"
    assert questions[1].multi_select is True and questions[2].options is None
    assert answer_problems(questions, answers) == []
    assert out.content.splitlines() == [
        "The user answered:",
        "- Storage: Which database?",
        "  → SQLite",
        "- features: Which features first?",
        '  → Search; Export; "and themes"',
        "- name: What should it be called?",
        "  → HarnessDesk",
    ]


async def test_ask_user_rejects_duplicate_ids(tmp_path: Path) -> None:
    engine = Engine(AnswerSet(answers=[]))
    dup = {"questions": [{"id": "a", "question": "x?"}, {"id": "a", "question": "y?"}]}
    out = await TOOLS["ask_user"].run(dup, engine.ctx(tmp_path))
    assert out.error_code == "BAD_ARGUMENTS" and "unique" in out.content and engine.asked == []


async def test_ask_user_cancellation_propagates(tmp_path: Path) -> None:
    engine = Engine(answers=None)
    task = asyncio.create_task(
        TOOLS["ask_user"].run({"questions": [{"id": "q", "question": "Go?"}]}, engine.ctx(tmp_path))
    )
    await asyncio.wait_for(engine.waiting.wait(), 5)
    engine.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
