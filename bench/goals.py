"""The goals `bench/run_all.py` judges (issue 48 and the issues before it). A goal changed here
applies to the figures of an earlier run too (`run_all.py --table` judges them again).

Every goal row reads several runs of its figure from one bench's JSON (`values`), states what it
was measured against in the same run (`baseline`), and is decided on the median of those runs
with the median's interval (bench/stats.py): met, missed, or too close to call. A figure that is
a ratio to a baseline is preferred to a time: the machine is shared, and load moves a time and
its baseline alike (docs/decisions.md, "Measuring rules"). Absolute targets remain only where
the figure is not a time the machine's load moves (a size, a count, KB per turn), or where the
bench loads the machine itself (CPU burners) and the target is what a person feels (a frame, a
keystroke).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

OPS = {"<=": "≤", "<": "<", ">=": "≥", ">": ">", "==": "="}


class NoBaseline(Exception):
    """The row's baseline was not run (e.g. the peer is not installed): no verdict, said why."""


class NotMeasured(Exception):
    """The bench ran but could not take the figure (e.g. the window stopped answering): said why."""


def _day_trends(f: Any) -> list[float]:
    """The working days' growth trends; a run from before the trend was taken has none (its
    two-point figure is another measure, not judged under this row)."""
    if "days" not in f:
        raise NotMeasured("run before the growth trend was measured (bench/window_day_bench.py --days)")
    return [d["growth_trend"] for d in f["days"]]


def _many(key: str) -> Callable[[Any], list[float]]:
    def get(f: Any) -> list[float]:
        if f.get("loopback"):  # bench/many_bench.py --loopback: the host's share, not the page's figure
            raise NotMeasured("timed over loopback, not in the page")
        ratios = list(f["busy"][key]["ratios"])
        if not ratios and f.get("invalid"):
            raise NotMeasured(f["invalid"])
        return ratios

    return get


def _first_token(f: Any) -> list[float]:
    if f.get("first_token") is None:  # bench/many_bench.py: its first-token part did not finish
        raise NotMeasured(f.get("first_invalid") or "not measured")
    return list(f["first_token"]["ratios"])


@dataclass(frozen=True)
class Goal:
    label: str
    bench: str
    values: Callable[[Any], Sequence[float] | float | bool]
    """The judged figure of each run (one value for a figure that does not vary run to run)."""
    op: str
    target: float | bool
    unit: str = ""
    baseline: str = "none: an absolute figure"
    """What the figure was measured against in the same run."""
    valid: Callable[[Any], str | None] = field(default=lambda _f: None)
    """Why the figure means nothing in this run (e.g. a relay reader was cut off), or None."""
    shown: Callable[[Any], float] | None = None
    """For a row without its baseline: the product's own figure, shown without a verdict."""

    @property
    def target_text(self) -> str:
        if isinstance(self.target, bool):
            return "yes" if self.target else "no"
        return f"{OPS[self.op]} {self.target:g}{self.unit}"


def _runs(value: Sequence[float] | float | bool) -> list[float] | bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return [float(value)]
    out = [float(v) for v in value]
    if not out:
        raise ValueError("no runs")
    return out


# ---- helpers for the benches' figures ----------------------------------------------------------


def _ratios(path: Sequence[str]) -> Callable[[Any], list[float]]:
    def get(f: Any) -> list[float]:
        for key in path:
            f = f[key]
        return list(f)

    return get


def _relay_valid(section: str, n: str, key: str) -> Callable[[Any], str | None]:
    """A ratio of readers that were cut off or got other text than was sent times a failure."""

    def why(f: Any) -> str | None:
        complete = f[section][n]["complete"]
        bad = [kind for kind in key.split("/") if not complete.get(kind, True)]
        return f"{', '.join(bad)} cut off or text not as sent" if bad else None

    return why


def _relay_goal(label: str, section: str, n: str, key: str, target: float, baseline: str) -> Goal:
    return Goal(
        label,
        "relay",
        lambda f: f[section][n]["ratios"][key],
        ">=",
        target,
        baseline=baseline,
        valid=_relay_valid(section, n, key),
    )


def _complete(f: Any) -> bool:
    return all(
        all(row["complete"].values())
        for section in ("summary", "loaded")
        for row in f.get(section, {}).values()
    )


def _sandbox_valid(f: Any) -> str | None:
    return f"no sandbox on this machine: {f['skipped']}" if "skipped" in f else None


def _peer(f: Any, case: str) -> list[float]:
    peer = f.get("peer") or {}
    if "rows" not in peer:
        raise NoBaseline(peer.get("missing", "opencode was not run"))
    return list(peer["rows"][case]["ratios"])


def _median_of(path: Sequence[str]) -> Callable[[Any], float]:
    def get(f: Any) -> float:
        for key in path:
            f = f[key]
        return float(statistics.median(f)) if isinstance(f, list) else float(f)

    return get


RAW_READER = "this process reading the provider's stream directly"

GOALS: list[Goal] = [
    Goal(
        "sandbox: `true` in bubblewrap / bare `true` (p50 of pairs)",
        "sandbox",
        _ratios(("true", "ratios")),
        "<=",
        20,
        "x",
        "the same command unsandboxed, interleaved",
        valid=_sandbox_valid,
    ),
    Goal(
        "sandbox: `ls -R` of 2,000 files in bubblewrap / bare",
        "sandbox",
        _ratios(("ls_R_2000", "ratios")),
        "<=",
        9,
        "x",
        "the same command unsandboxed, interleaved",
        valid=_sandbox_valid,
    ),
    Goal(
        "snapshot before a command, 10,000 files / 20 changed, / `git status`",
        "snapshot",
        _ratios(("ratios", "snapshot/git status")),
        "<=",
        10,
        "x",
        "`git status --porcelain` in the same folder, rotated per run",
    ),
    _relay_goal("relay raw/sse, N=5,000", "summary", "5000", "raw/sse", 0.5, RAW_READER),
    _relay_goal("relay raw/sse, N=20,000", "summary", "20000", "raw/sse", 0.8, RAW_READER),
    _relay_goal("relay raw/bridge, N=5,000", "summary", "5000", "raw/bridge", 0.5, RAW_READER),
    _relay_goal("relay raw/bridge, N=20,000", "summary", "20000", "raw/bridge", 0.5, RAW_READER),
    _relay_goal(
        "relay raw/sse, N=20,000, two CPU burners",
        "loaded",
        "20000",
        "raw/sse",
        0.8,
        RAW_READER + ", same load",
    ),
    _relay_goal(
        "relay raw/bridge, N=20,000, two CPU burners",
        "loaded",
        "20000",
        "raw/bridge",
        0.8,
        RAW_READER + ", same load",
    ),
    Goal("relay: no reader cut off, every character in order", "relay", _complete, "==", True),
    _relay_goal(
        "bridge/SSE (same window engine), N=5,000",
        "summary",
        "5000",
        "bridge/window-sse",
        0.9,
        "a plain WebKitGTK window reading the host's SSE",
    ),
    _relay_goal(
        "bridge/SSE (same window engine), N=20,000",
        "summary",
        "20000",
        "bridge/window-sse",
        0.9,
        "a plain WebKitGTK window reading the host's SSE",
    ),
    Goal(
        "bridge flood events/s / plain fetch",
        "bridge",
        lambda f: [r["flood_ratio"] for r in f["rounds"]],
        ">=",
        0.9,
        "x",
        "a plain WebKitGTK window's fetch of the same SSE route",
    ),
    Goal(
        "bundle installed",
        "startup",
        lambda f: f["sizes_mb"]["bundle"],
        "<=",
        300,
        " MB",
        "none: a size",
    ),
    Goal("installer .deb", "startup", lambda f: f["sizes_mb"]["deb"], "<=", 150, " MB", "none: a size"),
    Goal(
        "cold start: window shown (frozen)",
        "startup",
        lambda f: [r[0] for r in f["window_s"]["frozen"]],
        "<=",
        1.0,
        " s",
        "none (the source checkout's start is printed beside it)",
    ),
    Goal(
        "cold start: bridge ready (frozen)",
        "startup",
        lambda f: [r[1] for r in f["window_s"]["frozen"]],
        "<=",
        3.0,
        " s",
        "none (the source checkout's start is printed beside it)",
    ),
    Goal(
        "cold start: host's first answer through the bridge (frozen)",
        "startup",
        lambda f: [r[2] for r in f["window_s"]["frozen"]],
        "<=",
        3.0,
        " s",
        "none (the source checkout's start is printed beside it)",
    ),
    Goal(
        "cold start: serve ready (frozen)",
        "startup",
        lambda f: [r[0] for r in f["serve_s"]["frozen"]],
        "<=",
        0.5,
        " s",
        "none (the source checkout's start is printed beside it)",
    ),
    Goal(
        "cold start: serve's first answer, the page at its URL (frozen)",
        "startup",
        lambda f: [r[2] for r in f["serve_s"]["frozen"]],
        "<=",
        3.0,
        " s",
        "none (the source checkout's start is printed beside it)",
    ),
    Goal(
        "model tokens/s, adapter / plain xllamacpp",
        "model",
        _ratios(("summary", "ratios", "adapter/plain")),
        ">=",
        0.9,
        "x",
        "plain xllamacpp on the same GGUF, rounds interleaved",
    ),
    Goal(
        "model tokens/s, whole turn / plain xllamacpp",
        "model",
        _ratios(("summary", "ratios", "turn/plain")),
        ">=",
        0.9,
        "x",
        "plain xllamacpp on the same GGUF, rounds interleaved",
    ),
    Goal(
        "history paging, 100k / 100 events (worst page)",
        "paging",
        _ratios(("block_max_ratios",)),
        "<=",
        2,
        "x",
        "the same page of a 100-event session, interleaved",
    ),
    Goal(
        "200-turn /compact: model requests",
        "compaction",
        lambda f: f["max_requests"],
        "==",
        1,
        "",
        "none: a count",
    ),
    Goal(
        "history over HTTP: first page (50 messages) of a 1,000-turn session / opencode's",
        "open",
        lambda f: _peer(f, "first page"),
        "<=",
        1,
        "x",
        "opencode serving the same session (to the last byte)",
        shown=_median_of(("rows", "first page", "to_last_byte_ms")),
    ),
    Goal(
        "history over HTTP: a whole 1,000-turn session / opencode's",
        "open",
        lambda f: _peer(f, "whole session"),
        "<=",
        1,
        "x",
        "opencode serving the same session (to the last byte)",
        shown=_median_of(("rows", "whole session", "to_last_byte_ms")),
    ),
    Goal(
        "token to pixel in Chromium, 100 tokens/s (p50)",
        "pixel",
        lambda f: [r["p50"] for r in f["per_run"]["dom"]],
        "<=",
        10,
        " ms",
        RAW_READER + " (printed beside it)",
        valid=lambda f: f"{f['missing']} stamps never reached the page" if f["missing"] else None,
    ),
    Goal(
        "token to pixel in Chromium, 100 tokens/s (p99)",
        "pixel",
        lambda f: [r["p99"] for r in f["per_run"]["dom"]],
        "<=",
        30,
        " ms",
        RAW_READER + " (printed beside it)",
        valid=lambda f: f"{f['missing']} stamps never reached the page" if f["missing"] else None,
    ),
    Goal(
        "session.list of 2,000 sessions / the SQLite query alone",
        "history",
        _ratios(("rows", "list", "ratios_vs_sqlite")),
        "<=",
        10,
        "x",
        "the list's SELECT on a plain connection to the same file, alternated",
    ),
    Goal(
        "session.search over 1M events / the store's search alone (slowest query)",
        "history",
        _ratios(("search_worst", "ratios_vs_sqlite")),
        "<=",
        3,
        "x",
        "the store's FTS5 search on a plain connection to the same file, alternated",
    ),
    Goal(
        "host RSS per turn, turns 100 to 2,000 of one session",
        "memory",
        lambda f: f["one_session"]["kb_per_turn"],
        "<=",
        10,
        " KB",
        "none: the slope of RSS over turns",
    ),
    Goal(
        "host RSS per turn, 50 sessions of 40 turns",
        "memory",
        lambda f: f["many_sessions"]["kb_per_turn"],
        "<=",
        10,
        " KB",
        "none: the slope of RSS over turns",
    ),
    Goal(
        "host RSS comes back after 50 sessions closed (within 2 MB)",
        "memory",
        lambda f: f["comes_back"],
        "==",
        True,
    ),
    Goal(
        "@ finder: p99 per keystroke over 100,000 files / one walk of the tree",
        "finder",
        lambda f: [r["ratio"] for r in f["rounds"]],
        "<=",
        0.5,
        "x",
        "os.walk + substring per keystroke, the same sampled keystrokes",
    ),
    Goal(
        "durable before visible: a chunk held for its commit, p99 (timed in the gated host)",
        "durability",
        lambda f: f["held"]["p99"],
        "<=",
        30,
        " ms",
        "none: the delay itself (the gated and ungated hosts' p99s, printed, differ by more noise)",
    ),
    Goal(
        "worktree session, 10,000 files: create → first token / (1.5 x plain + `git worktree add`)",
        "worktree",
        _ratios(("ratios",)),
        "<=",
        1,
        "x",
        "a plain session of the same folder and `git worktree add` alone, same round",
    ),
]


def _big_rounds(engine: str, key: str) -> Callable[[Any], list[float]]:
    return lambda f: [r[key] for r in f[engine]["rounds"]["big"]]


def _nodes_ratio(engine: str) -> Callable[[Any], float]:
    return lambda f: float(f[engine]["big"]["nodes"] / f[engine]["small"]["nodes"])


def _transcript_goals() -> list[Goal]:
    """Issue 33, goal 2: a 10,000-message session, per engine (bench/transcript_bench.py)."""
    rows: list[Goal] = []
    small = "the same probe on a 120-message session (printed beside it)"
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
                    _big_rounds(engine, key),
                    "<=",
                    target,
                    " ms",
                    small,
                )
            )
        rows.append(
            Goal(
                f"10,000 messages in {name}: DOM nodes / a 120-message session's",
                "transcript",
                _nodes_ratio(engine),
                "<=",
                1.5,
                "x",
                "a 120-message session",
            )
        )
    rows.append(
        Goal(
            "10,000 messages in the window, two CPU burners: scroll frame p99",
            "transcript",
            lambda f: [r["frame_p99_ms"] for r in f["window_loaded"]["rounds"]["big"]],
            "<=",
            16,
            " ms",
            "the same window unloaded (rows above)",
        )
    )
    return rows


GOALS += _transcript_goals()
GOALS += [
    Goal(
        "token to pixel in the window, 100 tokens/s (p50)",
        "window_day",
        lambda f: [r["p50"] for r in f["pixel"]["per_run"]["window"]],
        "<=",
        10,
        " ms",
        RAW_READER + " (printed beside it)",
    ),
    Goal(
        "token to pixel in the window, 100 tokens/s (p99)",
        "window_day",
        lambda f: [r["p99"] for r in f["pixel"]["per_run"]["window"]],
        "<=",
        30,
        " ms",
        RAW_READER + " (printed beside it)",
    ),
    Goal(
        "token to pixel in the window, two CPU burners (p99)",
        "window_day",
        lambda f: [r["p99"] for r in f["pixel_loaded"]["per_run"]["window"]],
        "<=",
        30,
        " ms",
        RAW_READER + ", same load (printed beside it)",
    ),
    Goal(
        "window's web process RSS over a working day (1,000 turns + 50 sessions, peak)",
        "window_day",
        lambda f: [d["peak_mb"] for d in f["days"]] if "days" in f else f["memory"]["peak_mb"],
        "<=",
        400,
        " MB",
        "none: a size",
    ),
    Goal(
        "window's web process RSS growth after warm-up (the trend of turn 200 to the end)",
        "window_day",
        _day_trends,
        "<=",
        0.1,
        "",
        "the RSS after warm-up (turn 200) of the same day",
    ),
    Goal(
        "keystroke → painted in the window's composer, two CPU burners (p99)",
        "keystroke",
        lambda f: [r["p99"] for r in f["engines"]["window"]["rounds"]],
        "<=",
        50,
        " ms",
        "Chromium on the same X server and load, typed alike (next row)",
        valid=lambda f: f["engines"]["window"]["invalid"],
    ),
    Goal(
        "keystroke → painted in Chromium's composer, two CPU burners (p99)",
        "keystroke",
        lambda f: [r["p99"] for r in f["engines"]["chromium"]["rounds"]],
        "<=",
        50,
        " ms",
        "the window, same run (row above)",
        valid=lambda f: f["engines"]["chromium"]["invalid"],
    ),
]
GOALS += [
    Goal(
        f"10 sessions streaming: {label} / idle",
        "many",
        _many(key),
        "<=",
        1.5,
        "x",
        "the same, no session streaming, cycle by cycle",
        valid=lambda f: f.get("invalid"),
    )
    for key, label in (
        ("list", "session.list"),
        ("search", "session.search"),
        ("open", "opening a long session, first screen painted"),
        ("type", "keystroke → painted in the window"),
    )
]
GOALS += [
    Goal(
        "20 sessions streaming: first token / one session's",
        "many",
        _first_token,
        "<=",
        2,
        "x",
        "one session's first token, same host, alternated",
    ),
]
GOALS += [
    Goal(
        "remote host: first token added through the SSH forward",
        "remote",
        lambda f: f["first_token_added_runs"],
        "<=",
        20,
        " ms",
        "the same request to a local session, pair by pair (a first token's two trips)",
        valid=lambda f: f"needs root for its sshd: {f['skipped']}" if "skipped" in f else None,
    ),
    Goal(
        "remote host: 20,000-delta burst, throughput remote/local",
        "remote",
        lambda f: f["throughput_ratios"],
        ">=",
        0.8,
        "",
        "the same host's local session, alternated",
        valid=lambda f: (
            f"needs root for its sshd: {f['skipped']}"
            if "skipped" in f
            else ("a reader missed characters" if not f.get("complete", True) else None)
        ),
    ),
]


def _suite_valid(f: Any) -> str | None:
    """A suite run counts only when it passed and began on a quiet machine (bench/suite_bench.py)."""
    if f.get("exit") != 0 or f.get("failed", 0) or f.get("error", 0):
        return f"the run did not pass (exit {f.get('exit')}, {f.get('failed', 0)} failed)"
    if f["load_before"][0] > f["quiet_load"]:
        return f"the machine was busy (1-minute load {f['load_before'][0]:g} at the start)"
    return None


GOALS += [
    Goal(
        "the test suite (`./scripts/test.sh`), wall time on a quiet machine",
        "suite",
        lambda f: f["wall_s"] / 60,
        "<=",
        10,
        " min",
        "none: a time, with no other load (the load at the start is checked)",
        valid=_suite_valid,
    ),
]


def runs_of(goal: Goal, figures: Any) -> list[float] | bool:
    """The goal's per-run figures from its bench's JSON."""
    return _runs(goal.values(figures))
