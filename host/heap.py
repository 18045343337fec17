"""The host's long-lived objects out of the garbage collector's sight once it has started
(docs/decisions/settled-heap.md).

A started host holds about a hundred thousand objects that live as long as it does (modules,
the contract's validators, the engine, the GUI toolkit's wrappers in the window). Every full
collection walked all of them — about 60 ms each on a two-core machine, several per streamed
burst, with the GIL held — so a person's keystrokes and a stream's deltas waited behind it.
`settle_heap` collects once and freezes what survives: later full collections walk only what
was made since.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)


def settle_heap() -> int:
    """Collect, then move every surviving object to the permanent generation; returns how many
    objects are frozen now. Once, when the host has started and is idle."""
    started = time.perf_counter()
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.debug("heap settled: %d objects frozen in %.0f ms", frozen, (time.perf_counter() - started) * 1000)
    return frozen


async def settle_when_warm() -> None:
    """What `serve`, `serve --unix-socket` and the window start once they are up: the contract's
    validators built (`warm_contract`), then the heap settled. A failure is logged and the host
    goes on, unsettled."""
    from host.fetch.warm import warm_contract

    try:
        await warm_contract()
        settle_heap()
    except Exception as exc:
        log.warning("settling the heap failed: %s", exc)
