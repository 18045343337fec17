"""The one shape every client transport returns from `do_fetch`: status, headers, a body stream."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field


def header_map(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Lower-cased names; repeated headers joined with `, ` (as HTTP allows)."""
    out: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


@dataclass
class FetchResponse:
    """An HTTP response whose body arrives as it is produced; `aclose()` ends the exchange."""

    status: int
    headers: dict[str, str]
    body: AsyncIterator[bytes]
    aclose: Callable[[], Awaitable[None]] = field(repr=False)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    async def read(self) -> bytes:
        """The rest of the body, whole."""
        return b"".join([chunk async for chunk in self.body])

    async def read_text(self, limit: int) -> str:
        """At most `limit` characters of the body, for error messages."""
        text = (await self.read()).decode("utf-8", errors="replace")
        return text[:limit]
