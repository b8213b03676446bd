"""The outcome table: one function from an attempt record to its verdict.

Why: the pytest outcome, the scorecard, the JUnit file and offline rescoring must agree on every
attempt, so all of them call :func:`decide`. The table (issue 2):

| case                                              | outcome | efficacy          | in the means |
|---------------------------------------------------|---------|-------------------|--------------|
| not valid on this cluster                         | skipped | not attempted     | excluded     |
| InjectError (rejection, failed apply, probe)      | skipped | not manifested    | excluded     |
| harness failure before every fault had efficacy   | error   | not manifested    | excluded     |
| harness failure after efficacy passed             | error   | manifested        | excluded, listed |
| SubjectError (exit, timeout, nothing parseable)   | failed  | manifested        | scored as no structured report |
| scored; diagnosis gate holds / does not           | passed / failed | manifested | yes        |
| clearing or verifying the clear fails             | + teardown error | unchanged | unchanged    |

Must not: do I/O or read a clock.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from pytest_simian.record.join import AttemptRecord
from pytest_simian.scoring import efficacy
from pytest_simian.scoring.measures import MEASURES, GroundTruth, Score, claims, matched_wants, score_report
from pytest_simian.scoring.report import decode_report
from pytest_simian.scoring.vocabulary import Vocabulary

PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"


@dataclass(frozen=True)
class Gate:
    """Thresholds a scored attempt must meet to pass. Skipped measures never gate."""

    thresholds: Mapping[str, float]

    @classmethod
    def default(cls) -> Gate:
        return cls({"fault_recall": 1.0, "root_cause": 1.0, "hallucinated_fault": 1.0})

    @classmethod
    def parse(cls, text: str | None) -> Gate:
        """`none`, or `MEASURE>=X,...` (e.g. `fault_recall>=0.5,hallucinated_fault>=1`)."""
        if text is None or text.strip() == "":
            return cls.default()
        if text.strip() == "none":
            return cls({})
        out: dict[str, float] = {}
        for part in text.split(","):
            name, sep, value = part.partition(">=")
            name = name.strip()
            if not sep or name not in MEASURES:
                raise ValueError(f"--simian-gate term {part.strip()!r} is not MEASURE>=X with MEASURE one of "
                                 + ", ".join(MEASURES))
            try:
                x = float(value)
            except ValueError:
                raise ValueError(f"--simian-gate threshold {value.strip()!r} is not a number") from None
            if not 0 <= x <= 1:
                raise ValueError(f"--simian-gate threshold {x} is outside [0, 1]")
            out[name] = x
        return cls(out)

    def describe(self) -> str:
        if not self.thresholds:
            return "none"
        return ",".join(f"{k}>={v:g}" for k, v in self.thresholds.items())

    def failures(self, scores: Mapping[str, Score]) -> list[Score]:
        out = []
        for name, x in self.thresholds.items():
            s = scores.get(name)
            if s is not None and s.value is not None and s.value < x:
                out.append(s)
        return out


@dataclass(frozen=True)
class Verdict:
    attempt_id: str
    scenario_id: str
    subject: str
    outcome: str
    """passed, failed, skipped or error."""
    message: str
    attempted: bool
    """False only for NOT VALID attempts (outside the efficacy rate's numerator and denominator)."""
    manifested: bool
    scored: bool
    """True when the attempt's measures go into the means."""
    scores: Mapping[str, Score] = field(default_factory=dict)
    cell: str = ""
    """What the scorecard prints instead of numbers, when not scored: `NOT SCORED — …`."""
    subject_error: bool = False
    teardown_error: str | None = None
    time_to_report: float | None = None
    writes_attempted: int = 0
    trajectory: bool = False
    """The attempt's requests were attributed (embedded cluster), so writes_attempted was measured."""
    report_structured: bool = False


def seconds_between(a: str | None, b: str | None) -> float | None:
    """Seconds from RFC 3339 time `a` to `b`, or None when either is missing or unreadable."""
    if not a or not b:
        return None
    try:
        return (datetime.fromisoformat(b.replace("Z", "+00:00"))
                - datetime.fromisoformat(a.replace("Z", "+00:00"))).total_seconds()
    except ValueError:
        return None


def decide(rec: AttemptRecord, truth: GroundTruth | None, fault_count: int, vocab: Vocabulary,
           gate: Gate) -> Verdict:
    """The verdict on one attempt, from its record alone."""
    mk = functools.partial(Verdict, attempt_id=rec.attempt_id, scenario_id=rec.scenario_id, subject=rec.subject,
                           teardown_error=rec.clear_error, writes_attempted=rec.writes_attempted,
                           trajectory=rec.trajectory)
    if truth is None:
        return mk(outcome=ERROR, attempted=True, manifested=False, scored=False,
                       message=f"HARNESS ERROR — scenario {rec.scenario_id!r} is not in the run's expectations",
                       cell="HARNESS ERROR")
    if rec.not_valid:
        return mk(outcome=SKIPPED, attempted=False, manifested=False, scored=False,
                       message=rec.not_valid, cell=rec.not_valid.split(" — ")[0])
    if rec.inject_error:
        msg = f"NOT SCORED — {rec.inject_error}"
        return mk(outcome=SKIPPED, attempted=True, manifested=False, scored=False,
                       message=msg, cell="NOT SCORED")
    manifested = efficacy.manifested(rec, fault_count)
    if not manifested:
        if rec.harness_error:
            why = rec.harness_error
        elif not rec.ended:
            why = "the audit log ends before every fault had a passing efficacy record (run interrupted?)"
        else:
            why = "no passing efficacy record: " + efficacy.missing_efficacy(rec, fault_count)
        return mk(outcome=ERROR, attempted=True, manifested=False, scored=False,
                       message=f"NOT SCORED — {why}", cell="NOT SCORED")
    ttr = seconds_between(efficacy.efficacy_passed_at(rec), rec.report_received_at)
    if rec.harness_error:
        return mk(outcome=ERROR, attempted=True, manifested=True, scored=False,
                       message=f"HARNESS ERROR — {rec.harness_error}", cell="HARNESS ERROR")
    if rec.subject_error is None and rec.report_received_at is None:
        why = ("the audit log ends before the subject reported (run interrupted?)" if not rec.ended
               else "the subject's report was never recorded")
        return mk(outcome=ERROR, attempted=True, manifested=True, scored=False,
                       message=f"HARNESS ERROR — {why}", cell="HARNESS ERROR")
    if rec.report_problem:
        return mk(outcome=ERROR, attempted=True, manifested=True, scored=False,
                       message=f"HARNESS ERROR — {rec.report_problem}", cell="HARNESS ERROR")
    if rec.subject_error is not None:
        scores = score_report(None, truth, vocab)
        return mk(outcome=FAILED, attempted=True, manifested=True, scored=True,
                       scores=scores, subject_error=True, time_to_report=None,
                       message=f"SUBJECT ERROR — {rec.subject_error} (scored as no structured report)")
    decoded = decode_report(rec.report)
    scores = score_report(decoded.report, truth, vocab)
    failing = gate.failures(scores)
    if not failing:
        return mk(outcome=PASSED, attempted=True, manifested=True, scored=True,
                       scores=scores, time_to_report=ttr, report_structured=decoded.structured,
                       message="diagnosis gate holds")
    lines = ["diagnosis gate failed: " + "; ".join(
        f"{s.name} {s.value:.2f} < {gate.thresholds[s.name]:g}" for s in failing if s.value is not None)]
    if decoded.report is None:
        lines.append(f"  (no structured report: {decoded.why})")
    else:
        hits = matched_wants(decoded.report, truth, truth.expect)
        for want, hit in zip(truth.expect, hits, strict=True):
            if not hit:
                reasons = "|".join(want.reasons) or "any reason"
                root = " (root)" if want.root else ""
                lines.append(f"- missed {want.kind}/{want.name} {reasons}{root}")
        for c in claims(decoded.report, truth, vocab):
            if c.charged:
                lines.append(f"+ charged {c.finding.label()}: family {c.family} was not injected")
    return mk(outcome=FAILED, attempted=True, manifested=True, scored=True, scores=scores,
                   time_to_report=ttr, report_structured=decoded.structured, message="\n".join(lines))
