"""A run directory read back into views: one per attempt, with what the drill-down and the comparison show.

Why: the HTML report, the JUnit file and `--simian-compare` must all show the verdicts the scorecard
shows, so this module reaches them through `scoring.evaluation.evaluate_artifacts` (the join plus
`scoring.scorecard.evaluate_run`, i.e. `decide`), and adds only presentation: which expectation a
finding matched, which claim was charged, the efficacy evidence, the trajectory and transcripts.
Must not: decide an outcome or compute a score itself (scoring/ does), write anything, or read a clock.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_simian.record.artifacts import RunArtifacts, read_run
from pytest_simian.record.events import SCENARIO_ENDED
from pytest_simian.record.join import AttemptRecord, join
from pytest_simian.scoring.evaluation import clusters_from_events, evaluate_artifacts
from pytest_simian.scoring.measures import GroundTruth, claims, in_scope, satisfies
from pytest_simian.scoring.outcomes import Verdict, seconds_between
from pytest_simian.scoring.report import DecodedReport, Finding, Report, decode_report
from pytest_simian.scoring.scorecard import RunEvaluation, truth_from_run
from pytest_simian.scoring.vocabulary import get_vocabulary

TRANSCRIPTS_DIR = "transcripts"
WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection", "apply", "post", "put"})


@dataclass
class ExpectationView:
    label: str
    reasons: tuple[str, ...]
    also_accept_kinds: tuple[str, ...]
    min_severity: str | None
    root: bool
    matched: bool | None
    """None when there is no structured report to match against."""


@dataclass
class FindingView:
    finding: Finding
    matches: list[str]
    """Labels of the expectations this finding satisfies."""
    family: str | None
    """The failure family its reason resolves to, when it is a claim (warning or worse, in scope)."""
    charged: bool
    in_scope: bool

    @property
    def mark(self) -> str:
        if self.matches:
            return "matched"
        if self.charged:
            return "charged"
        if not self.in_scope:
            return "out of scope"
        if self.family is not None:
            return "licensed"
        return "not a claim"


@dataclass
class TrajectoryStep:
    text: str
    write: bool


@dataclass
class AttemptView:
    verdict: Verdict
    record: AttemptRecord
    scenario: Mapping[str, Any]
    """The scenario's entry in run.json (resolved expectations, prompt, faults)."""
    nodeid: str
    report_doc: Mapping[str, Any] | None
    """The whole report file (report plus the adapter's metadata), when one was written."""
    decoded: DecodedReport | None
    expectations: list[ExpectationView] = field(default_factory=list)
    findings: list[FindingView] = field(default_factory=list)
    efficacy: list[dict[str, Any]] = field(default_factory=list)
    trajectory: list[TrajectoryStep] | None = None
    transcripts: list[str] = field(default_factory=list)
    duration: float | None = None
    """scenario_started → scenario_ended, from the audit timestamps."""

    @property
    def attempt_id(self) -> str:
        return self.verdict.attempt_id

    @property
    def missed(self) -> list[str]:
        return [e.label for e in self.expectations if e.matched is False]

    @property
    def charged(self) -> list[str]:
        return [f"{f.finding.label()} (family {f.family})" for f in self.findings if f.charged]


@dataclass
class LoadedRun:
    directory: Path
    run: Mapping[str, Any]
    artifacts: RunArtifacts
    evaluation: RunEvaluation
    attempts: list[AttemptView]

    @property
    def floor(self) -> str | None:
        floor = (self.run.get("options") or {}).get("floor")
        return str(floor) if floor else None

    def subjects(self) -> list[str]:
        seen = list(self.evaluation.subjects)
        return seen + sorted({a.verdict.subject for a in self.attempts} - set(seen))

    def scenario_ids(self) -> list[str]:
        present = {a.verdict.scenario_id for a in self.attempts}
        ordered = [s for s in self.evaluation.scenario_order if s in present]
        return ordered + sorted(present - set(ordered))

    def cells(self) -> dict[tuple[str, str], list[AttemptView]]:
        out: dict[tuple[str, str], list[AttemptView]] = {}
        for a in self.attempts:
            out.setdefault((a.verdict.scenario_id, a.verdict.subject), []).append(a)
        return out


def load_run(directory: Path) -> LoadedRun:
    """Read and evaluate a run directory (ArtifactError when it is not one)."""
    art = read_run(directory)
    run = dict(art.run)
    if not run.get("clusters"):
        run["clusters"] = clusters_from_events(art.events)
    evaluation, _ = evaluate_artifacts(run, art)
    records = join(art.events, art.reports, art.report_problems)
    node_ids = {k: str(v.get("nodeid", "")) for k, v in (run.get("attempts") or {}).items() if isinstance(v, dict)}
    transcripts = _transcripts(directory)
    ended = {str(e.get("attempt_id")): str(e.get("ts", "")) for e in art.events if e.get("event") == SCENARIO_ENDED}
    views = []
    for v in evaluation.verdicts:
        rec = records[v.attempt_id]
        views.append(_attempt_view(directory, run, v, rec, node_ids.get(v.attempt_id) or rec.nodeid,
                                   [t for t in transcripts if _names_attempt(t, v.attempt_id)],
                                   ended.get(v.attempt_id)))
    return LoadedRun(directory, run, art, evaluation, views)


def _attempt_view(directory: Path, run: Mapping[str, Any], v: Verdict, rec: AttemptRecord, nodeid: str,
                  transcripts: list[str], ended_at: str | None) -> AttemptView:
    entry: Mapping[str, Any] = (run.get("scenarios") or {}).get(v.scenario_id) or {}
    doc = _report_doc(directory, rec.report_file)
    decoded = decode_report(rec.report) if rec.report_received_at is not None and rec.subject_error is None \
        and rec.report_file else None
    view = AttemptView(verdict=v, record=rec, scenario=entry, nodeid=nodeid, report_doc=doc, decoded=decoded,
                       efficacy=[_efficacy_row(e) for e in rec.efficacy], transcripts=transcripts,
                       duration=seconds_between(rec.started_at, ended_at))
    truth = truth_from_run(entry, v.scenario_id) if entry else None
    report = decoded.report if decoded is not None else None
    if truth is not None:
        for want in truth.expect:
            matched: bool | None = None
            if v.scored:
                matched = report is not None and any(satisfies(f, want, truth) for f in report.findings)
            view.expectations.append(ExpectationView(want.label(), want.reasons, want.also_accept_kinds,
                                                     want.min_severity, want.root, matched))
        if report is not None:
            view.findings = _finding_views(report.findings, truth, entry)
    view.trajectory = _trajectory(doc)
    return view


def _finding_views(findings: tuple[Finding, ...], truth: GroundTruth,
                   entry: Mapping[str, Any]) -> list[FindingView]:
    vocab = get_vocabulary(entry.get("vocabulary", "upstream"))
    out = []
    for f in findings:
        single = claims(Report("", "", (f,)), truth, vocab)
        claim = single[0] if single else None
        out.append(FindingView(
            finding=f, matches=[w.label() for w in truth.expect if satisfies(f, w, truth)],
            family=claim.family if claim else None, charged=bool(claim and claim.charged),
            in_scope=in_scope(f, truth)))
    return out


def _report_doc(directory: Path, rel: str | None) -> Mapping[str, Any] | None:
    if not rel:
        return None
    try:
        doc = json.loads((directory / rel).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _efficacy_row(ev: Mapping[str, Any]) -> dict[str, Any]:
    p = ev.get("payload") or {}
    return {"fault_index": p.get("fault_index", 0), "probe": p.get("probe", ""), "type": p.get("type", ""),
            "observed": p.get("observed", ""), "passed": bool(p.get("passed")), "elapsed": p.get("elapsed"),
            "ts": ev.get("ts", "")}


def _trajectory(doc: Mapping[str, Any] | None) -> list[TrajectoryStep] | None:
    """The subject's trajectory, where its adapter kept one (`trajectory` in the report file or its `extra`)."""
    if doc is None:
        return None
    raw = doc.get("trajectory")
    if raw is None and isinstance(doc.get("extra"), dict):
        raw = doc["extra"].get("trajectory")
    if not isinstance(raw, list):
        return None
    steps = []
    for item in raw:
        if isinstance(item, dict):
            verb = str(item.get("verb") or item.get("method") or "").lower()
            write = bool(item.get("write")) or verb in WRITE_VERBS
            text = ", ".join(f"{k}={_short(v)}" for k, v in item.items())
        else:
            write, text = False, _short(item)
        steps.append(TrajectoryStep(text, write))
    return steps


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


def _transcripts(directory: Path) -> list[str]:
    tdir = directory / TRANSCRIPTS_DIR
    if not tdir.is_dir():
        return []
    return sorted(p.relative_to(directory).as_posix() for p in tdir.rglob("*") if p.is_file())


def _names_attempt(rel: str, attempt_id: str) -> bool:
    parts = rel.split("/")[1:]
    return any(part == attempt_id or part.startswith(attempt_id + ".") or part.startswith(attempt_id + "-")
               for part in parts)

