"""The scorecard: verdicts for every attempt of a run, the efficacy rate, means, and the text table.

Why: "That table is the deliverable." It is computed from a run's artifacts alone (run.json's
resolved expectations plus the joined attempt records) so the live run and `--simian-offline`
print the same bytes. The harness reports before the subject does: efficacy comes first, and below
the minimum the numbers are printed and then refused.
Must not: do I/O, read a clock, or print anything that differs between a live run and its rescoring
(no paths, no run ids, no wall times).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_simian.record.join import AttemptRecord
from pytest_simian.scoring.floor import BELOW_FLOOR_MARK, flagged, floor_lines, write_lines
from pytest_simian.scoring.measures import MEASURES, Expectation, GroundTruth
from pytest_simian.scoring.outcomes import ERROR, FAILED, Gate, Verdict, decide
from pytest_simian.scoring.vocabulary import get_vocabulary


def truth_from_run(entry: Mapping[str, Any], scenario_id: str) -> GroundTruth:
    """The GroundTruth stored for one scenario in run.json."""
    return GroundTruth(
        scenario_id=scenario_id,
        expect=tuple(Expectation(kind=e["kind"], name=e["name"], reasons=tuple(e.get("reasons") or ()),
                                 also_accept_kinds=tuple(e.get("also_accept_kinds") or ()),
                                 min_severity=e.get("min_severity"), root=bool(e.get("root")))
                     for e in entry.get("expect") or ()),
        also_true=tuple(entry.get("also_true") or ()),
        severity=entry.get("severity"),
        namespaces=tuple(entry.get("namespaces") or ()),
    )


@dataclass
class Mean:
    value: float | None
    count: int


@dataclass
class RunEvaluation:
    verdicts: list[Verdict]
    scenario_order: list[str]
    subjects: list[str]
    attempts: int
    not_valid: int
    manifested: int
    min_efficacy: float
    cluster: str
    packs: list[str]
    gate: str
    has_control: bool
    means: dict[str, dict[str, Mean]] = field(default_factory=dict)
    """subject → measure → mean over scored attempts with the measure not skipped."""
    problems: list[str] = field(default_factory=list)
    floor: str | None = None
    """`--simian-floor`: the column the other subjects' fault_recall is compared with."""

    @property
    def efficacy_rate(self) -> float | None:
        denom = self.attempts - self.not_valid
        return self.manifested / denom if denom else None

    @property
    def refused(self) -> bool:
        if self.attempts == 0:
            return False
        rate = self.efficacy_rate
        return rate is None or rate < self.min_efficacy

    def refusal_line(self) -> str | None:
        if not self.refused:
            return None
        rate = self.efficacy_rate
        shown = "undefined (every attempt was not valid)" if rate is None else f"{rate:.2f}"
        return (f"REFUSED: efficacy {shown} < {self.min_efficacy:.2f} — the numbers above are "
                "unmeasured, not poor")

    def exit_status(self, pytest_status: int) -> int:
        """pytest's own status, raised to 1 when the efficacy rate is below the minimum."""
        if self.refused and pytest_status == 0:
            return 1
        return pytest_status


def evaluate_run(run: Mapping[str, Any], records: Mapping[str, AttemptRecord],
                 problems: list[str] | None = None) -> RunEvaluation:
    """Verdicts for every attempt recorded, in scenario order then subject order."""
    scenarios: Mapping[str, Any] = run.get("scenarios") or {}
    subjects = [s["name"] for s in run.get("subjects") or []]
    gate = Gate.parse(run.get("gate"))
    scen_order = list(scenarios)
    verdicts: list[Verdict] = []

    def order(rec: AttemptRecord) -> tuple[int, int, str, str]:
        si = scen_order.index(rec.scenario_id) if rec.scenario_id in scen_order else len(scen_order)
        ji = subjects.index(rec.subject) if rec.subject in subjects else len(subjects)
        return (si, ji, rec.started_at, rec.attempt_id)

    for rec in sorted(records.values(), key=order):
        entry = scenarios.get(rec.scenario_id)
        if entry is None:
            verdicts.append(decide(rec, None, 0, get_vocabulary("upstream"), gate))
            continue
        vocab = get_vocabulary(entry.get("vocabulary", "upstream"))
        verdicts.append(decide(rec, truth_from_run(entry, rec.scenario_id), int(entry.get("fault_count", 0)),
                               vocab, gate))
    attempted = [v for v in verdicts]
    ev = RunEvaluation(
        verdicts=verdicts,
        scenario_order=scen_order,
        subjects=subjects,
        attempts=len(attempted),
        not_valid=sum(1 for v in verdicts if not v.attempted),
        manifested=sum(1 for v in verdicts if v.manifested),
        min_efficacy=float(run.get("min_efficacy", 0.8)),
        cluster=_cluster_words(run),
        packs=[f"{p['name']} ({len(p.get('scenarios', []))} scenarios, vocabulary {p.get('vocabulary', '?')})"
               for p in run.get("packs") or []],
        gate=gate.describe(),
        has_control=any(not (e.get("expect") or []) for e in scenarios.values()),
        problems=list(problems or []),
        floor=(run.get("options") or {}).get("floor") or None,
    )
    for subject in subjects:
        ev.means[subject] = {}
        for m in MEASURES:
            vals = [v.scores[m].value for v in verdicts
                    if v.subject == subject and v.scored and v.scores[m].value is not None]
            ev.means[subject][m] = Mean(sum(vals) / len(vals) if vals else None, len(vals))  # type: ignore[arg-type]
    return ev


def _cluster_words(run: Mapping[str, Any]) -> str:
    seen = []
    for c in run.get("clusters") or []:
        words = c.get("description") or c.get("backend", "?")
        if c.get("context"):
            words += f", context {c['context']}"
        if words not in seen:
            seen.append(words)
    if seen:
        return "; ".join(seen)
    requested = (run.get("options") or {}).get("cluster", "sim")
    return f"{requested} (never started)"


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def _cell(verdicts: list[Verdict], measure: str) -> str:
    if not verdicts:
        return ""
    scored = [v for v in verdicts if v.scored]
    if not scored:
        return verdicts[-1].cell or verdicts[-1].outcome.upper()
    vals = [v.scores[measure].value for v in scored if v.scores[measure].value is not None]
    if not vals:
        return "–"
    text = f"{sum(vals) / len(vals):.2f}"  # type: ignore[arg-type]
    if any(v.subject_error for v in scored):
        text += "!"
    if len(verdicts) > 1:
        text += f" ×{len(verdicts)}"
    return text


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = []
    for r in [header, *rows]:
        out.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
    return out


def render_text(ev: RunEvaluation) -> str:
    """The scorecard as plain text (what the terminal and scorecard.txt show)."""
    lines: list[str] = []
    lines.append(f"cluster: {ev.cluster}")
    for p in ev.packs:
        lines.append(f"pack: {p}")
    lines.append(f"gate: {ev.gate}")
    rate = ev.efficacy_rate
    denom = ev.attempts - ev.not_valid
    if ev.attempts == 0:
        lines.append("efficacy: no attempts")
    else:
        lines.append(f"efficacy: {ev.manifested}/{denom} attempts manifested = "
                     f"{'undefined' if rate is None else f'{rate:.2f}'} (minimum {ev.min_efficacy:.2f})"
                     + (f"; {ev.not_valid} not valid on this cluster, not attempted" if ev.not_valid else ""))
    unscored = [v for v in ev.verdicts if not v.scored]
    if unscored:
        lines.append("")
        lines.append("not scored:")
        for v in unscored:
            lines.append(f"  {v.scenario_id} [{v.subject}]  {v.message}")
    if not ev.has_control:
        lines.append("")
        lines.append("note: no control in these packs, so hallucination is unmeasured "
                     "(hallucinated_fault is only meaningful beside a healthy control)")
    by_cell: dict[tuple[str, str], list[Verdict]] = {}
    for v in ev.verdicts:
        by_cell.setdefault((v.scenario_id, v.subject), []).append(v)
    scenario_ids = [s for s in ev.scenario_order if any(k[0] == s for k in by_cell)]
    scenario_ids += sorted({k[0] for k in by_cell} - set(scenario_ids))
    subjects = ev.subjects + sorted({k[1] for k in by_cell} - set(ev.subjects))
    below = flagged(ev.verdicts, ev.floor)
    for m in MEASURES:
        lines.append("")
        rows = [["  " + s] + [_cell(by_cell.get((s, j), []), m)
                              + (f" {BELOW_FLOOR_MARK}" if m == "fault_recall" and (s, j) in below else "")
                              for j in subjects] for s in scenario_ids]
        means = []
        for j in subjects:
            mean = ev.means.get(j, {}).get(m)
            means.append("–" if mean is None or mean.value is None else f"{mean.value:.2f} (n={mean.count})")
        rows.append(["  mean"] + means)
        lines += _table([m] + subjects, rows)
    errs = [v for v in ev.verdicts if v.subject_error]
    if errs:
        lines.append("")
        lines.append("! subject errors (scored as no structured report, a hard zero that counts):")
        for v in errs:
            lines.append(f"  {v.scenario_id} [{v.subject}]  {v.message}")
    lines += floor_lines(ev.verdicts, subjects, ev.floor)
    asked = [v for v in ev.verdicts if v.attempted and v.manifested]
    lines += write_lines(ev.verdicts, subjects, measured=any(v.trajectory for v in asked))
    ttr = []
    for j in subjects:
        vals = [v.time_to_report for v in ev.verdicts if v.subject == j and v.time_to_report is not None]
        ttr.append("–" if not vals else f"{sum(vals) / len(vals):.1f}s (n={len(vals)})")
    lines.append("")
    lines += _table(["time to report"] + subjects, [["  mean"] + ttr])
    outcome_counts = []
    for name in ("passed", FAILED, "skipped", ERROR):
        n = sum(1 for v in ev.verdicts if v.outcome == name)
        if n:
            outcome_counts.append(f"{n} {name}")
    teardown = sum(1 for v in ev.verdicts if v.teardown_error)
    if teardown:
        outcome_counts.append(f"{teardown} teardown errors")
    lines.append("")
    lines.append(f"attempts: {ev.attempts}" + (f" ({', '.join(outcome_counts)})" if outcome_counts else ""))
    for p in ev.problems:
        lines.append(f"artifact problem: {p}")
    refusal = ev.refusal_line()
    if refusal:
        lines.append(refusal)
    return "\n".join(lines) + "\n"
