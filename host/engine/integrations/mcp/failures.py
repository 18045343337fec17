"""One sentence for what went wrong with an MCP server: the SDK wraps failures in exception
groups, so the first leaf is what a person reads (a problem line, an error's message)."""

from __future__ import annotations


def leaf(exc: BaseException) -> BaseException:
    """An exception group's first leaf (the SDK's task groups wrap what went wrong)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    """One sentence for an exception (an exception group: its first leaf)."""
    exc = leaf(exc)
    text = str(exc).strip() or exc.__class__.__name__
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or text}"
    return text[:500]
