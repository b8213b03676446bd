"""`report.html`: the scorecard as one self-contained page, rendered from a run directory alone.

Why: "That table is the deliverable" (seed §8.4). The page must open from a CI job's artifacts, in a
browser with JavaScript disabled, for someone who has never installed the plugin: one file, inline
CSS, no scripts, no network, drill-downs as `<details>`. A cell whose attempt was not scored says
`NOT SCORED — <why>` and is never shown as a zero; a subject below the floor column (`run.json`
`floor`) is flagged "below its own tool".
Must not: decide an outcome or compute a score (scoring/ does, through report.load), fetch or link
anything outside the run directory, or print a wall time or path that differs between a live run and
its offline rescoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from pytest_simian.report.compare import Comparison, change_lines, delta_text
from pytest_simian.report.load import AttemptView, LoadedRun, load_run
from pytest_simian.scoring.measures import MEASURES

REPORT_FILE = "report.html"
TEMPLATE = "report.html.j2"


@dataclass
class Cell:
    attempts: list[AttemptView]
    scored: bool = False
    text: str = ""
    """For a cell not scored: the verdict's message (`NOT SCORED — …`, `NOT VALID ON …`, `HARNESS ERROR — …`)."""
    values: dict[str, str] = field(default_factory=dict)
    comments: dict[str, str] = field(default_factory=dict)
    below_floor: set[str] = field(default_factory=set)
    subject_error: bool = False
    outcome: str = ""


def _mean(views: list[AttemptView], measure: str) -> float | None:
    vals = [v.verdict.scores[measure].value for v in views if v.verdict.scored]
    nums = [x for x in vals if x is not None]
    return sum(nums) / len(nums) if nums else None


def _cell(views: list[AttemptView]) -> Cell:
    cell = Cell(attempts=views, outcome="/".join(sorted({v.verdict.outcome for v in views})))
    scored = [v for v in views if v.verdict.scored]
    if not scored:
        cell.text = views[-1].verdict.message.split("\n", 1)[0]
        return cell
    cell.scored = True
    cell.subject_error = any(v.verdict.subject_error for v in scored)
    for m in MEASURES:
        x = _mean(scored, m)
        cell.values[m] = "–" if x is None else f"{x:.2f}"
        cell.comments[m] = "; ".join(v.verdict.scores[m].comment for v in scored)
    return cell


def build_context(loaded: LoadedRun, comparison: Comparison | None = None) -> dict[str, Any]:
    """Everything the template shows, computed here so the template only lays it out."""
    ev = loaded.evaluation
    subjects = loaded.subjects()
    floor = loaded.floor if loaded.floor in subjects else None
    cells = loaded.cells()
    rows = []
    for scen in loaded.scenario_ids():
        row_cells: dict[str, Cell | None] = {}
        for subj in subjects:
            views = cells.get((scen, subj))
            row_cells[subj] = _cell(views) if views else None
        floor_cell = row_cells.get(floor) if floor else None
        if floor_cell is not None and floor_cell.scored:
            for subj, c in row_cells.items():
                if subj == floor or c is None or not c.scored:
                    continue
                for m in MEASURES:
                    a, b = _mean(c.attempts, m), _mean(floor_cell.attempts, m)
                    if a is not None and b is not None and a < b - 1e-9:
                        c.below_floor.add(m)
        entry = (loaded.run.get("scenarios") or {}).get(scen) or {}
        rows.append({"id": scen, "control": bool(entry) and not entry.get("expect"), "cells": row_cells})
    means = {s: {m: ev.means.get(s, {}).get(m) for m in MEASURES} for s in subjects}
    ttr: dict[str, str] = {}
    for s in subjects:
        vals = [v.time_to_report for v in ev.verdicts if v.subject == s and v.time_to_report is not None]
        ttr[s] = "–" if not vals else f"{sum(vals) / len(vals):.1f}s (n={len(vals)})"
    rate = ev.efficacy_rate
    denom = ev.attempts - ev.not_valid
    if ev.attempts == 0:
        efficacy = "no attempts"
    else:
        efficacy = (f"{ev.manifested}/{denom} attempts manifested = "
                    f"{'undefined' if rate is None else f'{rate:.2f}'} (minimum {ev.min_efficacy:.2f})"
                    + (f"; {ev.not_valid} not valid on this cluster, not attempted" if ev.not_valid else ""))
    counts = []
    for name in ("passed", "failed", "skipped", "error"):
        n = sum(1 for v in ev.verdicts if v.outcome == name)
        if n:
            counts.append(f"{n} {name}")
    run = loaded.run
    return {
        "title": "pytest-simian: " + ", ".join(p.get("name", "?") for p in run.get("packs") or []),
        "run": run,
        "cluster": ev.cluster,
        "clusters": run.get("clusters") or [],
        "packs": ev.packs,
        "gate": ev.gate,
        "efficacy": efficacy,
        "efficacy_rate": "undefined" if rate is None else f"{rate:.2f}",
        "refusal": ev.refusal_line(),
        "has_control": ev.has_control,
        "problems": ev.problems,
        "subjects": subjects,
        "floor": floor,
        "floor_missing": loaded.floor if loaded.floor and loaded.floor not in subjects else None,
        "measures": MEASURES,
        "rows": rows,
        "means": means,
        "ttr": ttr,
        "attempt_counts": ", ".join(counts),
        "attempts": loaded.attempts,
        "subject_errors": [v for v in ev.verdicts if v.subject_error],
        "comparison": comparison,
        "change_lines": change_lines,
        "delta_text": delta_text,
    }


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pytest_simian.report", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["num"] = lambda x: "–" if x is None else f"{x:.2f}"
    env.filters["secs"] = lambda x: "–" if x is None else f"{x:.1f}s"
    return env


def render_html(loaded: LoadedRun, comparison: Comparison | None = None) -> str:
    return _environment().get_template(TEMPLATE).render(**build_context(loaded, comparison))


def write_html(run_dir: Path, *, comparison: Comparison | None = None, loaded: LoadedRun | None = None) -> Path:
    """Write `report.html` into `run_dir` from its artifacts; return its path."""
    loaded = loaded or load_run(run_dir)
    path = run_dir / REPORT_FILE
    path.write_text(render_html(loaded, comparison), encoding="utf-8")
    return path
