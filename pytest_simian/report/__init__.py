"""What people look at after a run: `report.html`, `simian-junit.xml` and the comparison with an earlier run.

Why: "That table is the deliverable" (seed §8.4). Every file here is rendered from a run directory's
artifacts alone (run.json, the audit logs, the report files), through the same join and the same
verdicts (`scoring.outcomes.decide`) as the terminal scorecard, so a live run and `--simian-offline`
write the same report and the same JUnit outcomes.
Must not: score differently from scoring/, touch a cluster, or fetch anything from the network.
"""

from __future__ import annotations

from pathlib import Path

from pytest_simian.report.compare import compare_dirs, render_compare_text
from pytest_simian.report.html import REPORT_FILE, write_html
from pytest_simian.report.junit import JUNIT_FILE, write_junit
from pytest_simian.report.load import load_run

__all__ = ["JUNIT_FILE", "REPORT_FILE", "compare_dirs", "render_compare_text", "write_html", "write_junit",
           "write_outputs"]


def write_outputs(run_dir: Path, *, compare_to: Path | None = None) -> str:
    """Write report.html and simian-junit.xml into `run_dir`; return the comparison text ('' without one)."""
    loaded = load_run(run_dir)
    comparison = compare_dirs(compare_to, loaded) if compare_to is not None else None
    write_html(run_dir, comparison=comparison, loaded=loaded)
    write_junit(run_dir, loaded=loaded)
    return render_compare_text(comparison) if comparison is not None else ""
