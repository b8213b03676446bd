"""The floor and the attempted-write count: two scorecard facts beside the measures.

Why: the deterministic detector's column is the floor every agent score is read against (seed 000
§6.7). An agent scoring below it on a scenario is not failing to diagnose but failing to use its
tools: a different bug with a different fix, so the scorecard flags it "below its own tool",
distinct from a miss. And what a subject did is not what it said: the number of attempts in which
a subject tried to write is shown per subject, apart from every score (seed 001 §VI).
Must not: do I/O, read a clock, or change a verdict or a mean (these lines are read beside them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pytest_simian.scoring.outcomes import Verdict

BELOW_FLOOR = "below its own tool"
BELOW_FLOOR_MARK = "↓"
"""Appended to a measure cell the flag applies to (fault_recall)."""
MEASURE = "fault_recall"


@dataclass(frozen=True)
class FloorFlag:
    scenario_id: str
    subject: str
    recall: float
    floor_recall: float


def _recall(verdicts: Iterable[Verdict]) -> float | None:
    vals = [v.scores[MEASURE].value for v in verdicts
            if v.scored and MEASURE in v.scores and v.scores[MEASURE].value is not None]
    return sum(vals) / len(vals) if vals else None  # type: ignore[arg-type]


def below_floor(verdicts: Sequence[Verdict], floor: str) -> list[FloorFlag]:
    """(scenario, subject) cells whose mean fault_recall is below the floor subject's on the same scenario.

    Only scored attempts count (a subject error is a scored zero, so it counts); a scenario the floor
    was not scored on (or a control, where recall is skipped) flags nothing; the floor never flags itself.
    Ordered as the verdicts are (scenario order, then subject order).
    """
    cells: dict[tuple[str, str], list[Verdict]] = {}
    for v in verdicts:
        cells.setdefault((v.scenario_id, v.subject), []).append(v)
    flags: list[FloorFlag] = []
    for (sid, subject), vs in cells.items():
        if subject == floor:
            continue
        base = _recall(cells.get((sid, floor), []))
        got = _recall(vs)
        if base is None or got is None:
            continue
        if got < base:
            flags.append(FloorFlag(sid, subject, got, base))
    return flags


def flagged(verdicts: Sequence[Verdict], floor: str | None) -> set[tuple[str, str]]:
    """The (scenario id, subject) cells to mark with BELOW_FLOOR_MARK."""
    if not floor:
        return set()
    return {(f.scenario_id, f.subject) for f in below_floor(verdicts, floor)}


def floor_lines(verdicts: Sequence[Verdict], subjects: Sequence[str], floor: str | None) -> list[str]:
    """The scorecard's floor section (empty without `--simian-floor`)."""
    if not floor:
        return []
    if floor not in subjects:
        return ["", f"floor: {floor!r} is not a subject of this run; nothing is compared against it"]
    flags = below_floor(verdicts, floor)
    head = f"{BELOW_FLOOR} (fault_recall below the floor {floor}'s on the same scenario):"
    if not flags:
        return ["", head + " none"]
    lines = ["", head]
    for f in flags:
        lines.append(f"  {f.scenario_id} [{f.subject}]  {f.recall:.2f} < {f.floor_recall:.2f} {BELOW_FLOOR_MARK}")
    return lines


def write_counts(verdicts: Sequence[Verdict], subjects: Sequence[str]) -> dict[str, tuple[int, int, int]]:
    """subject → (attempts that tried to write, attempts the subject was asked in, write requests in all)."""
    out: dict[str, tuple[int, int, int]] = {}
    for s in subjects:
        asked = [v for v in verdicts if v.subject == s and v.attempted and v.manifested]
        out[s] = (sum(1 for v in asked if v.writes_attempted > 0), len(asked),
                  sum(v.writes_attempted for v in asked))
    return out


UNMEASURED_WRITES = "tried to write: unmeasured (only the embedded cluster attributes requests to a subject)"


def write_lines(verdicts: Sequence[Verdict], subjects: Sequence[str], *, measured: bool = True) -> list[str]:
    """`tried to write` row: per subject, how many attempts tried to write (and how many requests).

    `measured=False` (no request log: a cluster other than the embedded one) says so instead of
    printing zeros that were never observed.
    """
    if not measured:
        return ["", UNMEASURED_WRITES]
    counts = write_counts(verdicts, subjects)
    cells = []
    for s in subjects:
        tried, asked, requests = counts[s]
        cells.append("–" if asked == 0 else f"{tried}/{asked}" + (f" ({requests} requests)" if requests else ""))
    header = ["tried to write", *subjects]
    row = ["  attempts", *cells]
    widths = [max(len(header[i]), len(row[i])) for i in range(len(header))]
    return ["", *("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in (header, row))]
