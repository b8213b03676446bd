"""The floor flag ("below its own tool") and the attempted-write count, as pure functions over verdicts."""

from __future__ import annotations

from pytest_simian.scoring.floor import (
    BELOW_FLOOR,
    UNMEASURED_WRITES,
    below_floor,
    flagged,
    floor_lines,
    write_counts,
    write_lines,
)
from pytest_simian.scoring.measures import Score
from pytest_simian.scoring.outcomes import Verdict


def v(sid: str, subject: str, recall: float | None, *, scored: bool = True, writes: int = 0,
      manifested: bool = True, aid: str = "") -> Verdict:
    scores = {"fault_recall": Score("fault_recall", recall, "")} if scored else {}
    return Verdict(attempt_id=aid or f"{sid}-{subject}", scenario_id=sid, subject=subject, outcome="passed",
                   message="", attempted=True, manifested=manifested, scored=scored, scores=scores,
                   writes_attempted=writes)


VERDICTS = [
    v("crash", "lookout", 1.0), v("crash", "agent", 0.0), v("crash", "other", 1.0),
    v("pdb", "lookout", 0.0), v("pdb", "agent", 0.0),  # both miss: a miss, not below the floor
    v("mount", "lookout", 1.0), v("mount", "agent", 0.5, aid="m1"), v("mount", "agent", 1.0, aid="m2"),
    v("none", "lookout", None), v("none", "agent", None),  # control: recall skipped
    v("lost", "lookout", None, scored=False), v("lost", "agent", 0.0),  # floor not scored there
]


def test_below_the_floor_is_distinct_from_a_miss() -> None:
    flags = below_floor(VERDICTS, "lookout")
    assert [(f.scenario_id, f.subject, f.recall, f.floor_recall) for f in flags] == [
        ("crash", "agent", 0.0, 1.0), ("mount", "agent", 0.75, 1.0)]
    assert flagged(VERDICTS, "lookout") == {("crash", "agent"), ("mount", "agent")}
    assert flagged(VERDICTS, None) == set()


def test_floor_lines() -> None:
    lines = floor_lines(VERDICTS, ["lookout", "agent", "other"], "lookout")
    assert lines[1].startswith(BELOW_FLOOR)
    assert lines[2:] == ["  crash [agent]  0.00 < 1.00 ↓", "  mount [agent]  0.75 < 1.00 ↓"]
    assert floor_lines(VERDICTS, ["lookout"], None) == []
    assert "not a subject" in floor_lines(VERDICTS, ["agent"], "lookout")[1]
    assert floor_lines([v("crash", "lookout", 1.0), v("crash", "agent", 1.0)], ["lookout", "agent"],
                       "lookout")[1].endswith(" none")


def test_attempted_writes_per_subject() -> None:
    vs = [v("a", "agent", 1.0, writes=3), v("b", "agent", 1.0), v("c", "agent", 1.0, writes=1),
          v("a", "lookout", 1.0), v("d", "agent", None, manifested=False, scored=False, writes=9)]
    assert write_counts(vs, ["lookout", "agent"]) == {"lookout": (0, 1, 0), "agent": (2, 3, 4)}
    lines = write_lines(vs, ["lookout", "agent", "ghost"])
    assert lines[1].split() == ["tried", "to", "write", "lookout", "agent", "ghost"]
    assert lines[2].split() == ["attempts", "0/1", "2/3", "(4", "requests)", "–"]
    assert write_lines(vs, ["agent"], measured=False) == ["", UNMEASURED_WRITES]
