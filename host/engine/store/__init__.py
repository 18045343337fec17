"""Session persistence: the `Store` interface and its SQLite implementation."""

from host.engine.store.base import (
    ExportAttachment,
    ExportEvent,
    ExportHeader,
    ExportRow,
    Page,
    SearchResult,
    SeqGapError,
    SessionExists,
    SessionHeader,
    Settled,
    Store,
    StoreClosed,
    StoreCorrupt,
    StoreError,
    StoreFull,
    StoreTimeout,
    UnknownSession,
)
from host.engine.store.sqlite_store import DB_FILE, SqliteStore

__all__ = [
    "DB_FILE",
    "ExportAttachment",
    "ExportEvent",
    "ExportHeader",
    "ExportRow",
    "Page",
    "SearchResult",
    "SeqGapError",
    "SessionExists",
    "SessionHeader",
    "Settled",
    "SqliteStore",
    "Store",
    "StoreClosed",
    "StoreCorrupt",
    "StoreError",
    "StoreFull",
    "StoreTimeout",
    "UnknownSession",
]
