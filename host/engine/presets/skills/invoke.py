"""The `/name` gesture: skill tokens in a person's text, found at the pre-step boundary.

A token is whitespace-bounded (`(^|\\s)/name(?=\\s|$)`), so paths (`/usr/bin`) and fractions
(`5/8`) never match. Only text blocks of messages whose source is the user count: nothing the
model or a tool wrote can forge the gesture.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from contract.content import Message, TextBlock

TOKEN = re.compile(r"(?:^|(?<=\s))/([a-z0-9]+(?:-[a-z0-9]+)*)(?=\s|$)")


def skill_tokens(messages: Iterable[Message]) -> list[str]:
    """Skill names the user's messages invoke, de-duplicated in first-seen order."""
    names: dict[str, None] = {}
    for message in messages:
        if message.role != "user" or message.source.kind != "user":
            continue
        for block in message.content:
            if isinstance(block, TextBlock):
                for match in TOKEN.finditer(block.text):
                    names.setdefault(match.group(1), None)
    return list(names)
