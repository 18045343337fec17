"""UserPromptSubmit as a prompt gate (host/engine/agent/prompt_gates.py): a hook that blocks (exit 2,
`decision: block`, `permissionDecision: deny`) vetoes the prompt, which is then logged as
`prompt/blocked` with the reason and never reaches the model (docs/decisions.md, "Hooks")."""

from __future__ import annotations

from contract.content import TextBlock
from host.engine.agent.prompt_gates import PromptCheck, PromptGate, Veto
from host.engine.integrations.hooks.service import Firing, HookService


def prompt_gate(hooks: HookService) -> PromptGate:
    async def gate(check: PromptCheck) -> Veto | None:
        text = "".join(b.text for b in check.message.content if isinstance(b, TextBlock))
        firing = Firing(
            "UserPromptSubmit", check.session_id, check.cwd, check.turn, check.record, fields={"prompt": text}
        )
        merged = await hooks.fire(firing)
        if merged.verdict == "deny":
            return Veto(merged.reason or "blocked by a UserPromptSubmit hook")
        if merged.contexts:
            hooks.contexts[(check.session_id, check.turn)] = merged.contexts
        return None

    return gate
