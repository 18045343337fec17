"""Tools that talk to the user's side: todo_write (a checklist event) and ask_user (questions)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from contract.events import TodoItem
from contract.questions import AnswerSet, Question, QuestionOption
from host.engine.sessions import events
from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import Args, BaseTool

MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


class TodoArg(Args):
    content: str = Field(min_length=1, description="What to do, as a short imperative sentence.")
    status: Literal["pending", "in_progress", "completed"]


class TodoWriteArgs(Args):
    todos: list[TodoArg] = Field(max_length=100, description="The whole list; it replaces the previous one.")


class TodoWriteTool(BaseTool):
    name = "todo_write"
    description = (
        "Write your task checklist (the whole list each time; the last write wins). Keep exactly one item"
        " in_progress while working, and mark items completed as soon as they are done."
    )
    Arguments = TodoWriteArgs

    async def execute(self, args: TodoWriteArgs, ctx: ToolContext) -> ToolOutput:
        todos = [TodoItem(content=t.content, status=t.status) for t in args.todos]
        await ctx.emit(events.todo_write(todos))
        if not todos:
            return ToolOutput("Todo list cleared.")
        counts = {s: sum(1 for t in args.todos if t.status == s) for s in MARKS}
        summary = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items() if n)
        lines = [f"{MARKS[t.status]} {t.content}" for t in args.todos]
        return ToolOutput(f"Todo list updated ({summary}):\n" + "\n".join(lines))


class OptionArg(Args):
    label: str = Field(min_length=1, max_length=200)
    description: str | None = None


class QuestionArg(Args):
    id: str = Field(min_length=1, max_length=100, description="A short unique id for this question.")
    question: str = Field(min_length=1)
    header: str | None = Field(default=None, description="A very short label shown above the question.")
    options: list[OptionArg] | None = Field(
        default=None, description="Choices; the user may also type an answer."
    )
    multi_select: bool | None = Field(default=None, alias="multiSelect", description="Allow several choices.")


class AskUserArgs(Args):
    questions: list[QuestionArg] = Field(min_length=1, max_length=10)

    @field_validator("questions")
    @classmethod
    def _unique(cls, questions: list[QuestionArg]) -> list[QuestionArg]:
        ids = [q.id for q in questions]
        if len(set(ids)) != len(ids):
            raise ValueError("question ids must be unique")
        for q in questions:
            labels = [o.label for o in q.options or []]
            if len(set(labels)) != len(labels):
                raise ValueError(f"option labels of question {q.id!r} must be unique")
        return questions


class AskUserTool(BaseTool):
    name = "ask_user"
    description = (
        "Ask the user one or more questions and wait for the answers. Offer options when there are"
        " obvious choices; the user can always answer in their own words."
    )
    Arguments = AskUserArgs

    async def execute(self, args: AskUserArgs, ctx: ToolContext) -> ToolOutput:
        questions = [
            Question(
                id=q.id,
                question=q.question,
                header=q.header,
                options=[QuestionOption(label=o.label, description=o.description) for o in q.options]
                if q.options
                else None,
                multi_select=q.multi_select,
            )
            for q in args.questions
        ]
        answers = await ctx.ask_user(questions)
        return ToolOutput(format_answers(questions, answers))


def format_answers(questions: list[Question], answers: AnswerSet) -> str:
    by_id = {a.id: a for a in answers.answers}
    lines = ["The user answered:"]
    for q in questions:
        answer = by_id.get(q.id)
        parts: list[str] = []
        if answer is not None:
            parts += answer.selected
            if answer.custom is not None:
                parts.append(f'"{answer.custom}"' if answer.selected else answer.custom)
        given = "; ".join(parts) if parts else "(no answer)"
        lines.append(f"- {q.header or q.id}: {q.question}\n  → {given}")
    return "\n".join(lines)
