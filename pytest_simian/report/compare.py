"""`--simian-compare OLD_RUN`: what changed, per scenario and subject, between an earlier run and this one.

Why: a run is only useful beside the last one: a prompt change, a new model or a new detector version
shows up as score deltas, expectations newly missed, claims newly charged and cells newly not scored.
Both runs are read back from their directories and judged by the same verdicts as the scorecard.
Must not: rescore either run differently from scoring/, write into either run directory, or print
anything that differs between a live run and its offline rescoring (no wall times).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pytest_simian.record.artifacts import ArtifactError
from pytest_simian.report.load import AttemptView, LoadedRun, load_run
from pytest_simian.scoring.measures import MEASURES


@dataclass
class CellChange:
    scenario_id: str
    subject: str
    status: str
    """`changed`, `new` (only in this run) or `gone` (only in the old run)."""
    deltas: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    """measure → (old mean, new mean), for measures whose value changed (None: not measured)."""
    newly_missed: list[str] = field(default_factory=list)
    newly_charged: list[str] = field(default_factory=list)
    newly_not_scored: str | None = None
    """The new attempt's message, when the old cell was scored and the new one is not."""
    newly_scored: bool = False
    old_outcome: str = ""
    new_outcome: str = ""


@dataclass
class Comparison:
    old_label: str
    old_efficacy: float | None = None
    new_efficacy: float | None = None
    changes: list[CellChange] = field(default_factory=list)
    unchanged: int = 0
    problem: str | None = None
    """Why the comparison could not be made (the old run is unreadable)."""


def _mean(views: list[AttemptView], measure: str) -> float | None:
    vals = [v.verdict.scores[measure].value for v in views if v.verdict.scored]
    nums = [x for x in vals if x is not None]
    return sum(nums) / len(nums) if nums else None


def _scored(views: list[AttemptView]) -> bool:
    return any(v.verdict.scored for v in views)


def _outcome(views: list[AttemptView]) -> str:
    return "/".join(sorted({v.verdict.outcome for v in views}))


def compare_runs(old: LoadedRun, new: LoadedRun, *, old_label: str | None = None) -> Comparison:
    """Per (scenario, subject) present in either run, what changed from `old` to `new`."""
    cmp = Comparison(old_label=old_label or old.directory.name, old_efficacy=old.evaluation.efficacy_rate,
                     new_efficacy=new.evaluation.efficacy_rate)
    old_cells, new_cells = old.cells(), new.cells()
    scenarios = new.scenario_ids() + [s for s in old.scenario_ids() if s not in new.scenario_ids()]
    subjects = new.subjects() + [s for s in old.subjects() if s not in new.subjects()]
    for scen in scenarios:
        for subj in subjects:
            before, after = old_cells.get((scen, subj)), new_cells.get((scen, subj))
            if before is None and after is None:
                continue
            if before is None or after is None:
                cmp.changes.append(CellChange(scen, subj, "new" if after is not None else "gone",
                                              old_outcome=_outcome(before or []), new_outcome=_outcome(after or [])))
                continue
            ch = CellChange(scen, subj, "changed", old_outcome=_outcome(before), new_outcome=_outcome(after))
            was, now = _scored(before), _scored(after)
            if was and not now:
                ch.newly_not_scored = after[-1].verdict.message
            elif now and not was:
                ch.newly_scored = True
            if was and now:
                for m in MEASURES:
                    a, b = _mean(before, m), _mean(after, m)
                    if a != b and not (a is not None and b is not None and abs(a - b) < 1e-9):
                        ch.deltas[m] = (a, b)
                missed_before = {x for v in before for x in v.missed}
                charged_before = {x for v in before for x in v.charged}
                ch.newly_missed = sorted({x for v in after for x in v.missed} - missed_before)
                ch.newly_charged = sorted({x for v in after for x in v.charged} - charged_before)
            if ch.deltas or ch.newly_missed or ch.newly_charged or ch.newly_not_scored or ch.newly_scored \
                    or ch.old_outcome != ch.new_outcome:
                cmp.changes.append(ch)
            else:
                cmp.unchanged += 1
    return cmp


def compare_dirs(old_dir: Path, new: Path | LoadedRun) -> Comparison:
    """Compare two run directories; an unreadable old run gives a Comparison that says why."""
    try:
        old = load_run(old_dir)
    except ArtifactError as exc:
        return Comparison(old_label=old_dir.name, problem=str(exc))
    return compare_runs(old, new if isinstance(new, LoadedRun) else load_run(new))


def check_compare_dir(path: Path) -> str | None:
    """Why `path` cannot be compared against (for a usage error before anything runs), or None."""
    try:
        load_run(path)
    except ArtifactError as exc:
        return f"--simian-compare: {exc}"
    return None


def _num(x: float | None) -> str:
    return "not measured" if x is None else f"{x:.2f}"


def delta_text(old: float | None, new: float | None) -> str:
    if old is None or new is None:
        return f"{_num(old)} → {_num(new)}"
    return f"{old:.2f} → {new:.2f} ({new - old:+.2f})"


def change_lines(ch: CellChange) -> list[str]:
    """The facts of one changed cell, one per line (the text and the HTML show the same)."""
    if ch.status == "new":
        return [f"new in this run ({ch.new_outcome})"]
    if ch.status == "gone":
        return [f"not in this run (was {ch.old_outcome})"]
    out = []
    if ch.old_outcome != ch.new_outcome:
        out.append(f"outcome {ch.old_outcome} → {ch.new_outcome}")
    if ch.newly_not_scored:
        out.append(f"newly {ch.newly_not_scored}" if ch.newly_not_scored.startswith("NOT ")
                   else f"newly not scored: {ch.newly_not_scored}")
    if ch.newly_scored:
        out.append("newly scored (was not scored)")
    for m, (a, b) in ch.deltas.items():
        out.append(f"{m} {delta_text(a, b)}")
    for x in ch.newly_missed:
        out.append(f"newly missed {x}")
    for x in ch.newly_charged:
        out.append(f"newly charged {x}")
    return out


def render_compare_text(cmp: Comparison) -> str:
    """The comparison as terminal lines."""
    lines = [f"compared with {cmp.old_label}:"]
    if cmp.problem:
        lines.append(f"  cannot compare: {cmp.problem}")
        return "\n".join(lines) + "\n"
    lines.append(f"  efficacy {delta_text(cmp.old_efficacy, cmp.new_efficacy)}")
    for ch in cmp.changes:
        for i, fact in enumerate(change_lines(ch)):
            head = f"  {ch.scenario_id} [{ch.subject}]" if i == 0 else " " * (len(ch.scenario_id) + len(ch.subject) + 5)
            lines.append(f"{head}  {fact}")
    lines.append(f"  {cmp.unchanged} cell{'s' if cmp.unchanged != 1 else ''} unchanged")
    return "\n".join(lines) + "\n"
