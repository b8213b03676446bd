"""The four measures, under upstream's names and rules: fault_recall, hallucinated_fault,
fault_severity, root_cause.

Why: numbers must compare with the upstream agent rig (upstream-scoring.md §4–§5), so each rule is
transcribed, with three differences by design: a SubjectError is a hard zero that counts (upstream
drops errored runs); `also_true` licenses a claim without adding to recall; and the efficacy gate
decides whether an attempt is scored at all (that lives in outcomes.py).
Must not: do I/O, read a clock, or know about pytest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_simian.scoring.report import Finding, Report, rank
from pytest_simian.scoring.vocabulary import Vocabulary, normalize

MEASURES = ("fault_recall", "hallucinated_fault", "fault_severity", "root_cause")


@dataclass(frozen=True)
class Expectation:
    """The scoring view of an ExpectedFinding (what run.json stores)."""

    kind: str
    name: str
    reasons: tuple[str, ...] = ()
    also_accept_kinds: tuple[str, ...] = ()
    min_severity: str | None = None
    root: bool = False

    def label(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class GroundTruth:
    """Everything scoring needs to know about a scenario, resolved at run start."""

    scenario_id: str
    expect: tuple[Expectation, ...]
    also_true: tuple[str, ...]
    severity: str | None
    namespaces: tuple[str, ...]
    """The namespaces the scenario *names* (its faults' and its prompt's): findings elsewhere are
    out of scope, whatever the arena held."""

    @property
    def is_control(self) -> bool:
        return not self.expect


@dataclass(frozen=True)
class Score:
    name: str
    value: float | None
    """None when skipped."""
    comment: str

    @property
    def skipped(self) -> bool:
        return self.value is None


def in_scope(finding: Finding, truth: GroundTruth) -> bool:
    """A finding counts only if its namespace is empty or one the scenario names."""
    return finding.namespace == "" or finding.namespace in truth.namespaces


def kind_matches(finding: Finding, want: Expectation) -> bool:
    kinds = {want.kind.lower(), *(k.lower() for k in want.also_accept_kinds)}
    return finding.kind.lower() in kinds


def name_matches(finding: Finding, want: Expectation) -> bool:
    """Equal, or starting with `name-` (generated suffixes). Case-sensitive, one direction only."""
    got = finding.resource_name.strip()
    return bool(got) and (got == want.name or got.startswith(want.name + "-"))


def reason_matches(finding: Finding, want: Expectation) -> bool:
    """Any accepted token, normalized, as a substring of the reported reason or the other way round."""
    if not want.reasons:
        return True
    got = normalize(finding.reason)
    if not got:
        return False
    for token in want.reasons:
        t = normalize(token)
        if t in got or got in t:
            return True
    return False


def severity_matches(finding: Finding, want: Expectation) -> bool:
    return want.min_severity is None or rank(finding.severity) >= rank(want.min_severity)


def satisfies(finding: Finding, want: Expectation, truth: GroundTruth) -> bool:
    return (in_scope(finding, truth) and kind_matches(finding, want) and name_matches(finding, want)
            and reason_matches(finding, want) and severity_matches(finding, want))


def matched_wants(report: Report, truth: GroundTruth, wants: Sequence[Expectation]) -> list[bool]:
    return [any(satisfies(f, w, truth) for f in report.findings) for w in wants]


NO_REPORT = "agent produced no structured report"


def fault_recall(report: Report | None, truth: GroundTruth) -> Score:
    if truth.is_control:
        return Score("fault_recall", None, "healthy fixture; nothing to recall")
    if report is None:
        return Score("fault_recall", 0.0, NO_REPORT)
    hits = matched_wants(report, truth, truth.expect)
    found = sum(hits)
    comment = f"found {found}/{len(hits)}"
    missed = sorted(w.label() for w, h in zip(truth.expect, hits, strict=True) if not h)
    if missed:
        comment += " missed=" + ",".join(missed)
    return Score("fault_recall", found / len(hits), comment)


def injected_families(truth: GroundTruth, vocab: Vocabulary) -> set[str]:
    """Families the scenario's own expectations resolve to."""
    return {fam for w in truth.expect for r in w.reasons if (fam := vocab.family_of(r))}


def licensed_families(truth: GroundTruth, vocab: Vocabulary) -> set[str]:
    """Injected families plus those `also_true` licenses (claims that are true, not required)."""
    return injected_families(truth, vocab) | {
        fam for t in truth.also_true if (fam := vocab.family_of(t))}


@dataclass(frozen=True)
class Claim:
    finding: Finding
    family: str
    charged: bool


def claims(report: Report, truth: GroundTruth, vocab: Vocabulary) -> list[Claim]:
    """Findings at warning or worse, in scope, whose reason resolves to a family."""
    allowed = licensed_families(truth, vocab)
    out = []
    for f in report.findings:
        if rank(f.severity) < rank("warning") or not in_scope(f, truth):
            continue
        fam = vocab.family_of(f.reason)
        if fam is None:
            continue
        out.append(Claim(f, fam, fam not in allowed))
    return out


def hallucinated_fault(report: Report | None, truth: GroundTruth, vocab: Vocabulary) -> Score:
    if report is None:
        return Score("hallucinated_fault", 0.0, NO_REPORT)
    cl = claims(report, truth, vocab)
    if not cl:
        return Score("hallucinated_fault", 1.0, "claimed no concrete failure mode")
    bogus = [c for c in cl if c.charged]
    comment = f"{len(cl) - len(bogus)}/{len(cl)} failure claims are real"
    if bogus:
        comment += " invented=" + ",".join(c.finding.label() for c in bogus)
    return Score("hallucinated_fault", 1 - len(bogus) / len(cl), comment)


def fault_severity(report: Report | None, truth: GroundTruth) -> Score:
    if truth.severity is None:
        return Score("fault_severity", None, "no expected severity")
    if report is None:
        return Score("fault_severity", 0.0, NO_REPORT)
    got = report.overall_severity
    if got not in ("ok", "info", "warning", "critical"):
        return Score("fault_severity", 0.0, f"invalid severity {got!r}")
    diff = rank(got) - rank(truth.severity)
    how = "exact" if diff == 0 else (f"{diff} too high" if diff > 0 else f"{-diff} too low")
    return Score("fault_severity", 1 - abs(diff) / 3,
                 f"actual={got} expected={truth.severity} ({how})")


def root_cause(report: Report | None, truth: GroundTruth) -> Score:
    roots = [w for w in truth.expect if w.root]
    if not roots:
        return Score("root_cause", None, "no root cause graded")
    if report is None:
        return Score("root_cause", 0.0, NO_REPORT)
    hits = matched_wants(report, truth, roots)
    comment = f"named {sum(hits)}/{len(roots)} root causes"
    missed = sorted(w.label() for w, h in zip(roots, hits, strict=True) if not h)
    if missed:
        comment += " missed=" + ",".join(missed)
    return Score("root_cause", sum(hits) / len(roots), comment)


def score_report(report: Report | None, truth: GroundTruth, vocab: Vocabulary) -> dict[str, Score]:
    """All four measures, in upstream's order. `report=None` is a run with no structured report."""
    return {
        "fault_recall": fault_recall(report, truth),
        "hallucinated_fault": hallucinated_fault(report, truth, vocab),
        "fault_severity": fault_severity(report, truth),
        "root_cause": root_cause(report, truth),
    }
