"""The top bar's context meter of one session: the newest measured (prompt tokens, window), an
estimate from the surface until a model has answered, and the figure after `/compact`. Kept
apart from the agent loop (host/engine/agent/agent.py) so that each stays one job."""

from __future__ import annotations

from collections.abc import Callable

from contract.sessions import ModelSelection
from host.engine.agent.turn_inputs import Conversation
from host.engine.llm.tool_wire import schema_chars
from host.engine.llm.windows import chars_per_token
from host.engine.presets.composition import StepSetup


class ContextMeter:
    """Publishes the `context` projection each time a figure is reported."""

    def __init__(
        self,
        conversation: Conversation,
        selection: Callable[[], ModelSelection],
        context_window: Callable[[ModelSelection], int],
    ) -> None:
        self._conversation = conversation
        self._selection = selection
        self._context_window = context_window
        self.reported: tuple[int, int] | None = None
        """(estimated prompt tokens, window) as last reported."""
        self._fixed_chars = 0
        """The newest step's system prompt and tool descriptions, in characters (for estimates)."""

    def prepared(self, setup: StepSetup) -> None:
        """A step's system prompt and tools are known: estimates count them."""
        self._fixed_chars = len(setup.system or "") + sum(
            schema_chars(t.name, t.description, t.parameters) for t in setup.tools.values()
        )

    def estimate(self, selection: ModelSelection) -> int:
        return self._conversation.surface.estimate(self._fixed_chars, chars_per_token(selection.provider))

    def after_compaction(self, estimate_before: int, estimate_after: int) -> int:
        """The meter after `/compact`: the last measured prompt scaled by how much the estimate
        shrank, so it drops from what the person saw (a raw estimate can exceed a provider's
        count: docs/decisions.md, "Review and context, part 2")."""
        if self.reported is None or estimate_before <= 0:
            return estimate_after
        return min(estimate_after, self.reported[0] * estimate_after // estimate_before)

    def view(self) -> dict[str, int]:
        """`{tokens, window}` for the `context` projection (an estimate before the first answer)."""
        selection = self._selection()
        window = self._context_window(selection)
        tokens = self.reported[0] if self.reported is not None else self.estimate(selection)
        return {"tokens": tokens, "window": window}

    def report(self, tokens: int, window: int) -> None:
        self.reported = (tokens, window)
        journal = self._conversation.journal
        journal.project("context", {"tokens": tokens, "window": window}, journal.last_seq)
