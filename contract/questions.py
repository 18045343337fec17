"""Questions to the user (the `ask_user` tool): frames, the answer, and its validation."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract._base import WireModel
from contract.approvals import AskedBy


class QuestionOption(WireModel):
    label: str = Field(min_length=1, max_length=200)
    description: str | None = None


class Question(WireModel):
    id: str = Field(min_length=1, max_length=100)
    question: str = Field(min_length=1)
    header: str | None = None
    options: list[QuestionOption] | None = None
    multi_select: bool | None = None


class QuestionRequested(WireModel):
    type: Literal["question/requested"] = "question/requested"
    session_id: str
    questions: list[Question] = Field(min_length=1)
    subagent: AskedBy | None = None


class QuestionResolved(WireModel):
    type: Literal["question/resolved"] = "question/resolved"
    session_id: str
    question_rpc_id: str
    outcome: Literal["answered", "cancelled"]


class AnswerItem(WireModel):
    id: str
    selected: list[str]
    custom: str | None = None


class AnswerSet(WireModel):
    answers: list[AnswerItem]


class QuestionAnswer(WireModel):
    """The `value` of a client-response answering `question/requested`."""

    session_id: str
    answer: AnswerSet


def answer_problems(questions: list[Question], answer: AnswerSet) -> list[str]:
    """Why an answer does not fit its questions (empty when it fits); the rules are in
    docs/architecture.md, "Approvals and questions"."""
    problems: list[str] = []
    if len(answer.answers) != len(questions):
        return [f"expected {len(questions)} answers, got {len(answer.answers)}"]
    by_id = {q.id: q for q in questions}
    seen: set[str] = set()
    for item in answer.answers:
        q = by_id.get(item.id)
        if q is None or item.id in seen:
            problems.append(f"answer id {item.id!r} does not match a question")
            continue
        seen.add(item.id)
        labels = {o.label for o in q.options or []}
        if len(set(item.selected)) != len(item.selected):
            problems.append(f"{item.id}: duplicate selections")
        unknown = [s for s in item.selected if s not in labels]
        if unknown:
            problems.append(f"{item.id}: unknown labels {unknown}")
        custom = item.custom
        if custom is not None and not custom.strip():
            problems.append(f"{item.id}: custom text is blank")
        given = len(item.selected) + (1 if custom is not None else 0)
        if not q.multi_select and given != 1:
            problems.append(f"{item.id}: single-select takes one selection or custom text")
        if q.multi_select and given == 0:
            problems.append(f"{item.id}: nothing selected")
    return problems
