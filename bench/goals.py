"""The goals `bench/run_all.py` judges: each is a figure read from one bench's JSON, its target
and whether it is met (issue 33 and the issues before it). A goal changed here applies to the
figures of an earlier run too (`run_all.py --table` judges them again).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Goal:
    label: str
    bench: str
    measure: Callable[[Any], float | bool]
    target: str
    check: Callable[[Any], bool]
    unit: str = ""
    valid: Callable[[Any], str | None] = lambda _f: None
    """Why the figure means nothing in this run (e.g. a relay reader was cut off), or None."""


def _median(values: list[Any], index: int | None = None) -> float:
    return float(statistics.median(v[index] if index is not None else v for v in values))


def _relay(n: str, key: str) -> Callable[[Any], float]:
    return lambda f: float(f["summary"][n][key])


def _relay_valid(n: str, key: str) -> Callable[[Any], str | None]:
    """A ratio of readers that were cut off or got other text than was sent times a failure."""

    def why(f: Any) -> str | None:
        complete = f["summary"][n]["complete"]
        bad = [kind for kind in key.split("/") if not complete.get(kind, True)]
        return f"{', '.join(bad)} cut off or text not as sent" if bad else None

    return why


def _relay_goal(label: str, n: str, key: str, target: float) -> Goal:
    return Goal(
        label, "relay", _relay(n, key), f"≥ {target}", lambda x: x >= target, valid=_relay_valid(n, key)
    )


def _complete(f: Any) -> bool:
    return all(all(row["complete"].values()) for row in f["summary"].values())


def _sandbox_valid(f: Any) -> str | None:
    return f"no sandbox on this machine: {f['skipped']}" if "skipped" in f else None


def _sandbox_goal(label: str, key: str) -> Goal:
    return Goal(
        label,
        "sandbox",
        lambda f: float(f[key]["added_p50_ms"]),
        "≤ 15",
        lambda x: x <= 15,
        " ms",
        valid=_sandbox_valid,
    )


GOALS = [
    _sandbox_goal("sandbox: added p50 of `true` (bubblewrap vs bare, same run)", "true"),
    _sandbox_goal("sandbox: added p50 of `ls -R`, 2,000 files", "ls_R_2000"),
    Goal(
        "worktree session, 10,000 files: create → first token / (1.5 x plain + git worktree add)",
        "worktree",
        lambda f: round(f["p50_ms"]["worktree"] / f["goal_ms"], 2),
        "≤ 1.0",
        lambda x: x <= 1.0,
    ),
    Goal(
        "snapshot before a command, 10,000 files / 20 changed (p50)",
        "snapshot",
        lambda f: f["ms"]["snapshot"]["p50"],
        "≤ 150",
        lambda x: x <= 150,
        " ms",
    ),
    _relay_goal("relay raw/sse, N=5,000", "5000", "raw/sse", 0.5),
    _relay_goal("relay raw/sse, N=20,000", "20000", "raw/sse", 0.8),
    _relay_goal("relay raw/bridge, N=5,000", "5000", "raw/bridge", 0.5),
    _relay_goal("relay raw/bridge, N=20,000", "20000", "raw/bridge", 0.5),
    Goal("relay: no reader cut off, every character in order", "relay", _complete, "all complete", bool),
    _relay_goal("bridge/SSE (same window engine), N=5,000", "5000", "bridge/window-sse", 0.9),
    _relay_goal("bridge/SSE (same window engine), N=20,000", "20000", "bridge/window-sse", 0.9),
    Goal(
        "bridge flood events/s vs plain fetch",
        "bridge",
        lambda f: f["flood_ratio"],
        "≥ 0.9",
        lambda x: x >= 0.9,
    ),
    Goal(
        "bundle installed", "startup", lambda f: f["sizes_mb"]["bundle"], "≤ 300", lambda x: x <= 300, " MB"
    ),
    Goal("installer .deb", "startup", lambda f: f["sizes_mb"]["deb"], "≤ 150", lambda x: x <= 150, " MB"),
    Goal(
        "cold start: window shown (frozen, median)",
        "startup",
        lambda f: _median(f["window_s"]["frozen"], 0),
        "≤ 1.0",
        lambda x: x <= 1.0,
        " s",
    ),
    Goal(
        "cold start: bridge ready (frozen, median)",
        "startup",
        lambda f: _median(f["window_s"]["frozen"], 1),
        "≤ 3.0",
        lambda x: x <= 3.0,
        " s",
    ),
    Goal(
        "cold start: host's first answer through the bridge (frozen, median)",
        "startup",
        lambda f: _median(f["window_s"]["frozen"], 2),
        "≤ 3.0",
        lambda x: x <= 3.0,
        " s",
    ),
    Goal(
        "cold start: serve ready (frozen, median)",
        "startup",
        lambda f: _median(f["serve_s"]["frozen"], 0),
        "≤ 0.5",
        lambda x: x <= 0.5,
        " s",
    ),
    Goal(
        "model tokens/s, adapter/plain xllamacpp",
        "model",
        lambda f: f["summary"]["adapter/plain"],
        "≥ 0.9",
        lambda x: x >= 0.9,
    ),
    Goal(
        "model tokens/s, whole turn/plain xllamacpp",
        "model",
        lambda f: f["summary"]["turn/plain"],
        "≥ 0.9",
        lambda x: x >= 0.9,
    ),
    Goal("history paging, 100k/100 events", "paging", lambda f: f["max_ratio"], "≤ 2", lambda x: x <= 2),
    Goal(
        "200-turn /compact: model requests",
        "compaction",
        lambda f: f["max_requests"],
        "= 1",
        lambda x: x == 1,
    ),
    Goal(
        "history over HTTP: first page (50 messages) of a 1,000-turn session",
        "open",
        lambda f: f["rows"]["first page"]["ms"],
        "≤ 13",
        lambda x: x <= 13,
        " ms",
    ),
    Goal(
        "history over HTTP: a whole 1,000-turn session (14,000 events)",
        "open",
        lambda f: f["rows"]["whole session"]["ms"],
        "≤ 200",
        lambda x: x <= 200,
        " ms",
    ),
    Goal(
        "token to pixel in Chromium, 100 tokens/s (p50)",
        "pixel",
        lambda f: f["dom"]["p50"],
        "≤ 10",
        lambda x: x <= 10,
        " ms",
        valid=lambda f: f"{f['missing']} stamps never reached the page" if f["missing"] else None,
    ),
    Goal(
        "token to pixel in Chromium, 100 tokens/s (p99)",
        "pixel",
        lambda f: f["dom"]["p99"],
        "≤ 30",
        lambda x: x <= 30,
        " ms",
        valid=lambda f: f"{f['missing']} stamps never reached the page" if f["missing"] else None,
    ),
    Goal(
        "session.list of 2,000 sessions",
        "history",
        lambda f: f["rows"]["list"]["big_ms"],
        "< 100",
        lambda x: x < 100,
        " ms",
    ),
    Goal(
        "host RSS per turn, 1,000 turns of one session (after warm-up and the first backup)",
        "memory",
        lambda f: f["kb_per_turn"],
        "≤ 10",
        lambda x: x <= 10,
        " KB",
    ),
    Goal(
        "host RSS comes back after 50 sessions opened and closed",
        "memory",
        lambda f: f["comes_back"],
        "within 2 MB",
        bool,
    ),
    Goal(
        "@ finder: per keystroke over 100,000 files (p99, typed queries)",
        "finder",
        lambda f: f["p99_ms"],
        "≤ 50",
        lambda x: x <= 50,
        " ms",
    ),
    Goal(
        "search over 1M events (slowest query)",
        "history",
        lambda f: f["search_max_ms"],
        "< 100",
        lambda x: x < 100,
        " ms",
    ),
]


def _transcript_goals() -> list[Goal]:
    """Issue 33, goal 2: a 10,000-message session, per engine (bench/transcript_bench.py)."""
    rows: list[Goal] = []
    for engine, name in (("chromium", "Chromium"), ("window", "window (WebKitGTK)")):
        for key, label, target in (
            ("open_ms", "opens, first screen painted", 500),
            ("jump_ms", "jump to an early search hit", 300),
            ("frame_p99_ms", "scroll frame p99", 16),
        ):
            rows.append(
                Goal(
                    f"10,000 messages in {name}: {label}",
                    "transcript",
                    lambda f, e=engine, k=key: f[e]["big"][k],
                    f"≤ {target} ms",
                    lambda x, t=target: x <= t,
                )
            )
        rows.append(
            Goal(
                f"10,000 messages in {name}: DOM nodes / a 120-message session's",
                "transcript",
                lambda f, e=engine: f[e]["big"]["nodes"] / f[e]["small"]["nodes"],
                "≤ 1.5",
                lambda x: x <= 1.5,
            )
        )
    return rows


GOALS += _transcript_goals()
GOALS += [
    Goal(
        "token to pixel in the window, 100 tokens/s (p50)",
        "window_day",
        lambda f: f["pixel"]["window"]["p50"],
        "≤ 10 ms",
        lambda x: x <= 10,
    ),
    Goal(
        "token to pixel in the window, 100 tokens/s (p99)",
        "window_day",
        lambda f: f["pixel"]["window"]["p99"],
        "≤ 30 ms",
        lambda x: x <= 30,
    ),
    Goal(
        "window's web process RSS over a working day (1,000 turns + 50 sessions, peak)",
        "window_day",
        lambda f: f["memory"]["peak_mb"],
        "≤ 400 MB",
        lambda x: x <= 400,
    ),
    Goal(
        "window's web process RSS growth after warm-up (turn 200 to the end)",
        "window_day",
        lambda f: f["memory"]["growth_after_warm"],
        "≤ 0.1",
        lambda x: x <= 0.1,
    ),
]
