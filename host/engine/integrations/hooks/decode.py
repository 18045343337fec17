"""What a hook said, and what several said together (pure; docs/decisions.md, "Hooks").

Exit 2 blocks with the trimmed stderr as the reason. Exit 0: stdout that starts with `{` is JSON
(bad JSON counts as text); top-level `decision` (`approve`/`block`, with `reason`), and
`hookSpecificOutput.permissionDecision` (`allow`/`deny`/`ask`, with its reason) overriding it;
`additionalContext` only when `hookEventName` is the firing event. Any other exit, a timeout or
a failure to start is a non-blocking error. Merge: deny/block > ask > allow/approve > none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

RANK = {"deny": 3, "block": 3, "ask": 2, "allow": 1, "approve": 1}


@dataclass(frozen=True)
class Outcome:
    decision: str = "pass"
    """`block` `deny` `ask` `allow` `approve`, else `stop` (continue: false), `pass`, `error`."""
    reason: str = ""
    context: str | None = None
    stop: bool = False
    stop_reason: str | None = None
    system_message: str | None = None


def decode(event: str, exit_code: int | None, stdout: str, stderr: str) -> Outcome:
    if exit_code == 2:
        return Outcome("block", stderr.strip())
    if exit_code != 0:
        return Outcome("error")
    text = stdout.strip()
    doc: Any = None
    if text.startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
    if not isinstance(doc, dict):
        plain = event in ("UserPromptSubmit", "SessionStart") and text
        return Outcome("pass", context=text if plain else None)
    decision, reason = "pass", ""
    if doc.get("decision") in ("approve", "block"):
        decision, reason = doc["decision"], str(doc.get("reason") or "")
    context = None
    specific = doc.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("hookEventName") == event:
        if specific.get("permissionDecision") in ("allow", "deny", "ask"):
            decision = specific["permissionDecision"]
            reason = str(specific.get("permissionDecisionReason") or "")
        if isinstance(specific.get("additionalContext"), str):
            context = specific["additionalContext"]
    stop = doc.get("continue") is False
    if decision == "pass" and stop:
        decision = "stop"
    message = doc.get("systemMessage")
    return Outcome(
        decision,
        reason,
        context,
        stop,
        str(doc.get("stopReason") or "") or None,
        message if isinstance(message, str) else None,
    )


@dataclass(frozen=True)
class Merged:
    verdict: str = "none"
    """`deny` (deny or block), `ask`, `allow`, or `none`."""
    reason: str = ""
    contexts: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str | None = None


def merge(outcomes: list[Outcome]) -> Merged:
    rank = max((RANK.get(o.decision, 0) for o in outcomes), default=0)
    verdict = {3: "deny", 2: "ask", 1: "allow", 0: "none"}[rank]
    reasons = [o.reason for o in outcomes if RANK.get(o.decision, 0) == rank and rank and o.reason]
    first_stop = next((o for o in outcomes if o.stop), None)
    return Merged(
        verdict,
        "\n\n".join(reasons),
        [o.context for o in outcomes if o.context],
        first_stop is not None,
        first_stop.stop_reason if first_stop else None,
    )
