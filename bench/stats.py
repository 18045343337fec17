"""The statistics every bench and `bench/goals.py` share: percentiles, the median's confidence
interval, and the verdict of a goal row (docs/decisions.md, "Measuring rules").

A goal is decided on the median of several runs, never on one: a row is met when the median's
confidence interval (order statistics, distribution-free) lies wholly on the good side of the
target, missed when it lies wholly on the bad side, and "too close to call" when the target is
inside it. Two runs at the same load then cannot give one row opposite verdicts unless the
figure itself moved by more than its spread.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence

CONFIDENCE = 0.9
"""The coverage the median's interval is chosen for (when there are runs enough to reach it)."""


def percentile(values: Iterable[float], p: float) -> float:
    """The `p`th percentile (0-100), nearest rank on the sorted values."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The narrowest symmetric order-statistic interval that holds the true median with at least
    `confidence` (binomial, no assumption on the distribution); with too few runs to reach it,
    the whole range (min, max)."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no values")
    best = (ordered[0], ordered[-1])
    for k in range(1, n // 2 + 1):  # interval (x_k, x_{n+1-k}), 1-based
        # P(x_k < median < x_{n+1-k}) = 1 - 2 * P(Binomial(n, 1/2) <= k - 1)
        tail = sum(math.comb(n, i) for i in range(k)) / 2**n
        if 1 - 2 * tail < confidence:
            break
        best = (ordered[k - 1], ordered[n - k])
    return best


def summary(values: Sequence[float]) -> dict[str, float]:
    """Median, its interval, the range and the count: what a goal row shows of its runs."""
    low, high = median_interval(values)
    return {
        "median": float(statistics.median(values)),
        "low": float(low),
        "high": float(high),
        "min": float(min(values)),
        "max": float(max(values)),
        "n": len(values),
    }


def verdict(values: Sequence[float], op: str, target: float) -> bool | None:
    """True (met), False (missed) or None (too close to call: the target is inside the median's
    interval) for `median op target`, `op` one of <=, <, >=, >, ==."""
    low, high = median_interval(values)
    good: Callable[[float], bool] = {
        "<=": lambda x: x <= target,
        "<": lambda x: x < target,
        ">=": lambda x: x >= target,
        ">": lambda x: x > target,
        "==": lambda x: x == target,
    }[op]
    if good(low) and good(high):
        return True
    if not good(low) and not good(high):
        return False
    return None
