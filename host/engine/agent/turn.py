"""One turn of the agent loop: steps of (checkpoint, model request, tool calls) until done.

Event order per step: `step/start`, the claimed next-step input (steering and injected context),
a compaction bracket when the prompt would fill the model's window, `request/header` (first step
or when the selection changes), `assistant/chunk`…, `assistant/message` (its `sourceEventSeqs`
are the chunk seqs), then per tool call `tool/call`, approval events, `tool/result`, and
`step/end`. Cancellation closes whatever is open (an interrupted assistant message, error
results for unfinished calls, the step) before `turn/end aborted`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import aclosing
from typing import Any

from contract.content import (
    Message,
    MessageSource,
    TextBlock,
    ToolCallBlock,
)
from contract.events import AbortedBy, ToolError, ToolResult, TurnEndReason, TurnTrigger
from contract.sessions import ModelSelection
from host.engine.agent import compaction
from host.engine.agent.approvals import Approvals
from host.engine.agent.call_groups import run_calls
from host.engine.agent.partial_answer import Streamed
from host.engine.agent.prompt_gates import PromptCheck
from host.engine.agent.stream_buffer import coalesced
from host.engine.agent.tool_calls import CallRunner
from host.engine.agent.turn_inputs import Conversation, Inbox, NoAdapter, TurnServices, readable
from host.engine.integrations.hooks import tools as tool_hooks
from host.engine.llm.base import LlmAdapter, LlmError, LlmRequest, ToolSpec
from host.engine.llm.tool_wire import schema_chars
from host.engine.llm.windows import chars_per_token
from host.engine.presets.prompt_texts import NO_TOOLS_NOTICE, NO_TOOLS_SOURCE, asks_for_action
from host.engine.sessions import events
from host.engine.sessions.events import NewEvent
from host.engine.sessions.inbox import is_steering
from host.engine.store import StoreError
from host.engine.tools.base import Tool, ToolOutput

log = logging.getLogger(__name__)


def _said(messages: list[Message]) -> list[str]:
    """What the person typed in the turn's opening messages (attached files left out)."""
    return [
        b.text
        for m in messages
        if m.role == "user" and m.source.kind == "user"
        for b in m.content
        if isinstance(b, TextBlock) and b.attached is None
    ]


def no_tools_notice() -> Message:
    return events.new_message(
        "user", [TextBlock(text=NO_TOOLS_NOTICE)], MessageSource.model_validate(NO_TOOLS_SOURCE)
    )


class Turn:
    """One turn; it sees its agent only through `Conversation`, `Inbox`, who cancelled it and
    `TurnServices`."""

    def __init__(
        self,
        conversation: Conversation,
        inbox: Inbox,
        cancelled_by: Callable[[], AbortedBy | None],
        services: TurnServices,
        number: int,
        trigger: TurnTrigger,
    ) -> None:
        self.conversation = conversation
        self.journal = conversation.journal
        self.inbox = inbox
        self._cancelled_by = cancelled_by
        """Who cancelled the turn (None while nobody did)."""
        self.services = services
        self.number = number
        self.trigger = trigger
        self.step = -1
        self.step_open = False
        self.streaming = False
        self.streamed = Streamed()
        self.open_calls: dict[str, tuple[str, bool]] = {}
        """callId → (tool name, tool/call logged) for calls without a result yet."""
        self.results: dict[str, ToolResult] = {}
        """callId → the result this turn logged: a store failure may lose the write, and the
        repair then saves it late (host/engine/sessions/repair.py, `Unsaved`)."""
        self.approvals = Approvals(
            self.journal, services.pending, services.session_id, services.cwd, services.grant, services.notice
        )
        self.approvals.rejoin = services.rejoin
        self.first: list[Message] = []
        self.answer: Message | None = None
        """The newest assistant message: when the turn ends, its final answer."""
        self.stop_forced = 0
        """Continuations a Stop hook forced in this turn (capped)."""
        self.tools: dict[str, Tool] = {}
        """The tools offered in the current step (what the model may call)."""
        self.calls = CallRunner(
            services, self.journal, self.approvals, number, lambda: self._cancelled_by() is not None
        )
        """Runs each tool call (host/engine/agent/tool_calls.py)."""
        self.opening_message: Message | None = None
        self._unclaimed: NewEvent[Any] | None = None
        """The inbox claim, logged only once the prompt gates have answered."""
        self.veto: str | None = None
        """Why a prompt gate refused the opening prompt (the turn then ends `blocked`)."""

    # ---- the turn -------------------------------------------------------------------------

    def begin(self, first: Message, claim: NewEvent[Any], opening: list[NewEvent[Any]] | None = None) -> None:
        """The inbox claim, `turn/start`, `opening` (a child's `subagent/descriptor`) and the
        message that opened the turn, as one write. When prompt gates apply, only `turn/start`
        and `opening` now: the claim waits for the gates' answer (`run`), so a crash while they
        think leaves the prompt queued."""
        start = events.turn_start(self.number, self.trigger)
        self.opening_message = first
        gates = self.services.gates
        if gates is not None and gates.applies(first):
            self._unclaimed = claim
            self.journal.append_all([start, *(opening or [])])
            return
        news = [claim, start, *(opening or []), events.user_message(first)]
        stamped = self.journal.append_all(news)
        self.conversation.surface.add(stamped[-1].seq, first)
        self.first = [first]
        if gates is not None:
            gates.admitted(self.services.session_id, first)

    def _accept(self) -> None:
        """Log the waiting claim with the opening message (the gates passed, or a cancel)."""
        claim, self._unclaimed = self._unclaimed, None
        first = self.opening_message
        if claim is None or first is None:
            return
        stamped = self.journal.append_all([claim, events.user_message(first)])
        self.conversation.surface.add(stamped[-1].seq, first)
        self.first = [first]
        if self.services.gates is not None:
            self.services.gates.admitted(self.services.session_id, first)

    async def _gate(self) -> bool:
        """Ask the prompt gates; True when one vetoed (`prompt/blocked` is logged for a person's
        prompt, with the claim, right before the turn's end)."""
        first, gates = self.opening_message, self.services.gates
        assert first is not None and gates is not None
        check = PromptCheck(
            self.services.session_id, self.services.cwd, self.number, first, self.journal.append
        )
        veto = await gates.check(check)
        if veto is None:
            self._accept()
            return False
        claim, self._unclaimed = self._unclaimed, None
        news: list[NewEvent[Any]] = [claim] if claim is not None else []
        if check.human:
            news.append(events.prompt_blocked(first.content, first.source, veto.reason))
        self.journal.append_all(news)
        self.veto = veto.reason
        return True

    async def run(self) -> TurnEndReason:
        """The steps; returns the turn/end reason after closing whatever was left open."""
        try:
            if self._unclaimed is not None and await self._gate():
                return events.blocked()
            return await self._steps()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                task.uncancel()
            return self.aborted()
        except Exception as exc:
            status = exc.status if isinstance(exc, LlmError) else None
            self._close_open("TOOL_NOT_RUN", "The turn failed before this tool finished.")
            return events.failed(readable(exc), status)

    def aborted(self) -> TurnEndReason:
        self._accept()  # cancelled while the gates thought: the prompt is kept, as asked
        self._close_open("CANCELLED", "The turn was cancelled before this tool finished.")
        return events.aborted(self._cancelled_by() or "user")

    def finish(self, reason: TurnEndReason) -> None:
        """`turn/end` (synchronous); input still pending stays in the inbox."""
        self.journal.append(events.turn_end(self.number, reason))

    def _check_cancel(self) -> None:
        """Raise CancelledError when a cancel was requested (in case a callee swallowed it)."""
        if self._cancelled_by() is not None:
            raise asyncio.CancelledError()

    async def _steps(self) -> TurnEndReason:
        services, conversation = self.services, self.conversation
        for step in range(services.step_cap):
            self.step = step
            self.journal.append(events.step_start(self.number, step))
            self.step_open = True
            claimed = self._checkpoint()
            if step == 0:
                claimed = self.first + claimed
            setup = await services.prepare(claimed)
            for added in setup.messages:
                self._message(events.user_message(added))
            if step == 0:
                sid, record = services.session_id, self.journal.append
                opening = await tool_hooks.opening_context(
                    services.hooks, sid, services.cwd, self.number, record
                )
                for added in opening:
                    self._message(events.user_message(added))
            self.tools = setup.tools
            selection = services.selection()
            adapter = services.adapter_for(selection.provider)
            if adapter is None:
                raise NoAdapter(f"no adapter serves {selection.provider}/{selection.model}")
            specs = [ToolSpec(t.name, t.description, t.parameters) for t in setup.tools.values()]
            tools = specs if adapter.supports_tools else []
            if step == 0 and not tools and asks_for_action(" ".join(_said(self.first))):
                self._message(events.user_message(no_tools_notice()))
            await self._fit(selection, adapter, setup.system, tools)
            effort = selection.reasoning_effort or None
            names = [t.name for t in tools]
            header = events.request_header(selection.provider, selection.model, effort, names)
            if step == 0 or header.data != conversation.last_header:
                self.journal.append(header)
                conversation.last_header = header.data
            request = LlmRequest(
                model=selection.model,
                messages=list(conversation.history),
                system=setup.system,
                tools=tools,
                reasoning_effort=selection.reasoning_effort,
                on_retry=self._on_retry,
                load_attachment=services.load_attachment,
            )
            message, finish = await self._stream(adapter, request, selection.provider)
            calls = [b for b in message.content if isinstance(b, ToolCallBlock)]
            await run_calls(calls, self.tools, self._tool)
            self.journal.append(events.step_end(self.number, step))
            self.step_open = False
            services.commit()
            if not calls:
                if finish == "max-tokens":
                    return events.max_tokens()
                if self.inbox.has_steering():
                    continue
                if await self._stop_hooks():
                    continue
                return events.completed()
        return events.failed(f"step limit ({services.step_cap}) reached")

    async def _stop_hooks(self) -> bool:
        """A Stop hook that blocks steers its reason into another step, at most 3 times a turn
        (docs/decisions.md, "Hooks"); True when the turn goes on."""
        s = self.services
        forced = self.stop_forced
        reason = await tool_hooks.stop(s.hooks, s.session_id, s.cwd, self.number, self.journal.append, forced)
        if reason is None or forced >= tool_hooks.STOP_CAP:
            return False
        self.stop_forced += 1
        self._message(events.user_message(tool_hooks.continuation(reason)))
        return True

    def _message(self, new: NewEvent[Message]) -> None:
        event = self.journal.append(new)
        self.conversation.surface.add(event.seq, new.data)

    def _checkpoint(self) -> list[Message]:
        """Claim the next-step input: the claim and the messages it delivers as one write.
        Returns the messages this step claimed."""
        claim = self.inbox.claim_step()
        if claim is None:
            return []
        splice, messages = claim
        news: list[NewEvent[Any]] = [splice]
        for message in messages:
            news.append(
                events.steering_message(message) if is_steering(message) else events.user_message(message)
            )
        stamped = self.journal.append_all(news)
        for event, message in zip(stamped[1:], messages, strict=True):
            self.conversation.surface.add(event.seq, message)
        self.inbox.claimed()
        return messages

    async def _fit(
        self, selection: ModelSelection, adapter: LlmAdapter, system: str | None, tools: list[ToolSpec]
    ) -> None:
        """Compact first when this request would fill the model's window (docs/architecture.md,
        "Compaction"); a failed attempt changes nothing and the request goes ahead."""
        services = self.services
        window = services.context_window(selection)
        budget = compaction.Budget(selection, adapter, window, chars_per_token(selection.provider))
        fixed = len(system or "") + sum(schema_chars(t.name, t.description, t.parameters) for t in tools)
        estimate = await compaction.fit(
            self.journal, self.conversation.surface, budget, fixed, self.number, self._on_retry
        )
        if estimate is not None:
            services.report_context(estimate, window)

    def _on_retry(self, attempt: int, delay_ms: int, reason: str) -> None:
        self.journal.append(events.request_retry(attempt, delay_ms, reason))

    # ---- streaming ------------------------------------------------------------------------

    async def _stream(self, adapter: LlmAdapter, request: LlmRequest, provider: str) -> tuple[Message, str]:
        self.streamed = streamed = Streamed()
        self.streaming = True
        # a burst's deltas are merged while the previous batch commits (docs/decisions.md)
        async with aclosing(coalesced(adapter.stream(request), self._committed)) as batches:
            async for batch in batches:
                news = [events.assistant_chunk(self.number, self.step, chunk) for chunk in batch]
                for chunk, event in zip(batch, self.journal.append_all(news), strict=True):
                    streamed.track(chunk, event.seq)
                self._check_cancel()
        self.streaming = False
        content, usage = streamed.content(), streamed.usage
        source = MessageSource(kind="model", provider=provider, model=request.model)
        message = events.new_message("assistant", content, source)
        event = self.journal.append(
            events.assistant_message(self.number, self.step, message, streamed.seqs, usage=usage)
        )
        self.conversation.surface.add(event.seq, message, usage)
        self.answer = message
        if usage is not None:
            self.services.report_context(
                usage.input_tokens + usage.output_tokens,
                self.services.context_window(self.services.selection()),
            )
        for call in content:
            if isinstance(call, ToolCallBlock):
                self.open_calls[call.id] = (call.name, False)
        return message, streamed.finish

    async def _committed(self) -> None:
        """Until the chunks appended so far are durable and shown (a store failure is the
        journal's to report; the stream goes on)."""
        try:
            await self.journal.saved(self.journal.last_seq)
        except StoreError:
            pass

    # ---- tools ----------------------------------------------------------------------------

    async def _tool(self, call: ToolCallBlock) -> None:
        self.journal.append(events.tool_call(self.number, self.step, call.id, call.name, call.arguments))
        self.open_calls[call.id] = (call.name, True)
        output = await self.calls.execute(call, self.tools.get(call.name))
        self._check_cancel()
        s = self.services
        args = tool_hooks.parsed(call.arguments)
        output = await tool_hooks.after(
            s.hooks, s.session_id, s.cwd, self.number, self.journal.append, call.id, call.name, args, output
        )
        self._check_cancel()
        self._result(call.id, call.name, output)

    def _result(self, call_id: str, name: str, output: ToolOutput) -> None:
        error = None
        if output.is_error:
            error = ToolError(name=name, code=output.error_code or "TOOL_ERROR")
        new = events.tool_result(
            self.number,
            self.step,
            call_id,
            output.content,
            error,
            output.change,
            output.changes,
            output.snapshot_error,
            output.image,
        )
        event = self.journal.append(new)
        self.conversation.surface.add(event.seq, new.data.message)
        self.open_calls.pop(call_id, None)
        self.results[call_id] = new.data

    def unsaved(self) -> dict[str, ToolResult | None]:
        """Per call that started: its result, or None while it still runs (for the repair after
        a store failure, which cannot tell from the disk what the host knows)."""
        out: dict[str, ToolResult | None] = dict(self.results)
        out.update((cid, None) for cid, (_, logged) in self.open_calls.items() if logged)
        return out

    # ---- closing an interrupted step --------------------------------------------------------

    def _close_open(self, code: str, text: str) -> None:
        if self.streaming:
            self.streaming = False
            content, seqs = self.streamed.interrupted(), self.streamed.seqs
            if content or seqs:
                message = events.new_message("assistant", content, MessageSource(kind="model"))
                event = self.journal.append(
                    events.assistant_message(self.number, self.step, message, seqs, interrupted=True)
                )
                self.conversation.surface.add(event.seq, message)
        self.approvals.decided("cancelled")
        for call_id, (name, logged) in list(self.open_calls.items()):
            changes = self.calls.unfinished_changes.pop(call_id, None)
            output = ToolOutput(text, True, code if logged else "TOOL_NOT_STARTED", changes=changes)
            self._result(call_id, name, output)
        if self.step_open:
            self.journal.append(events.step_end(self.number, self.step))
            self.step_open = False
