"""Finishing a live run, and rescoring a saved one (`--simian-offline`): run.json, scorecard, report, JUnit.

Why: both must print the same scorecard from the same artifacts, so both go through
:func:`pytest_simian.scoring.evaluation.evaluate_artifacts`. Rescoring is a function from a run directory to a
*new* run directory (the original is never written to), against the expectations stored in the run, with
no cluster. This sits above record/ and report/ (it writes both kinds of output), so neither imports the
other's writer.
Must not: score differently from scoring/; touch a cluster.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_simian import clock
from pytest_simian.record.artifacts import REPORTS_DIR, ArtifactError, new_run_dir, read_run
from pytest_simian.record.run_document import RUN_VERSION, write_run_document
from pytest_simian.report import write_outputs
from pytest_simian.scoring.evaluation import clusters_from_events, evaluate_artifacts, pytest_like_status
from pytest_simian.scoring.scorecard import RunEvaluation

SCORECARD_FILE = "scorecard.txt"
COMPARE_FILE = "compare.txt"
REPORT_ERROR_FILE = "report-error.txt"


def write_run_outputs(run_dir: Path, *, compare_to: Path | None = None) -> str:
    """Write report.html and simian-junit.xml (and compare.txt with `compare_to`) from the run's artifacts.

    Returns what the terminal should show after the scorecard: the comparison, or one line saying the
    report could not be written. A failure here never loses the run: run.json and scorecard.txt are
    already on disk, and the traceback goes to report-error.txt.
    """
    try:
        text = write_outputs(run_dir, compare_to=compare_to)
    except Exception as exc:  # noqa: BLE001 - the verdicts are written; the report is a view of them
        import traceback

        (run_dir / REPORT_ERROR_FILE).write_text(traceback.format_exc(), encoding="utf-8")
        return f"report not written: {type(exc).__name__}: {exc} (see {REPORT_ERROR_FILE})\n"
    if compare_to is not None:
        (run_dir / COMPARE_FILE).write_text(text, encoding="utf-8")
    return text


def finalize_run(run_dir: Path, run_doc: dict[str, Any], attempts: Mapping[str, Any], pytest_status: int,
                 *, ended_at: str, compare_to: Path | None = None) -> tuple[RunEvaluation, str]:
    """Read the run back, evaluate it, and write the final run.json and scorecard.txt, then report.html,
    simian-junit.xml (and compare.txt, comparing with the run at `compare_to`)."""
    art = read_run(run_dir)
    doc = dict(run_doc)
    doc["clusters"] = clusters_from_events(art.events)
    evaluation, text = evaluate_artifacts(doc, art)
    doc["ended_at"] = ended_at
    doc["attempts"] = {
        v.attempt_id: {"scenario_id": v.scenario_id, "subject": v.subject, "outcome": v.outcome,
                       **({"nodeid": attempts[v.attempt_id].get("nodeid")} if v.attempt_id in attempts else {})}
        for v in evaluation.verdicts}
    doc["efficacy"] = {"attempts": evaluation.attempts, "not_valid": evaluation.not_valid,
                       "manifested": evaluation.manifested, "rate": evaluation.efficacy_rate,
                       "refused": evaluation.refused}
    doc["exit_status"] = evaluation.exit_status(pytest_status)
    write_run_document(run_dir / "run.json", doc)
    (run_dir / SCORECARD_FILE).write_text(text, encoding="utf-8")
    write_run_outputs(run_dir, compare_to=compare_to)
    return evaluation, text


def rescore_offline(src: Path, *, out_root: Path, write: Callable[[str], Any],
                    compare_to: Path | None = None) -> int:
    """Rescore `src` into a new run directory under `out_root`; print the scorecard; exit status.

    The new directory also gets report.html and simian-junit.xml; with `compare_to`, the comparison
    with that run is printed after the scorecard and written to compare.txt."""
    try:
        art = read_run(src)
    except ArtifactError as exc:
        write(f"ERROR: {exc}\n")
        return 4
    run = dict(art.run)
    if not run.get("clusters"):
        run["clusters"] = clusters_from_events(art.events)
    evaluation, text = evaluate_artifacts(run, art)
    dest = new_run_dir(out_root, clock.wall_now(), suffix="-rescored")
    if dest.resolve() == src.resolve():  # pragma: no cover - new_run_dir never reuses a name
        raise RuntimeError("refusing to rescore a run over itself")
    for f in sorted(src.glob("audit*.jsonl")):
        shutil.copy2(f, dest / f.name)
    for sub in (REPORTS_DIR, "transcripts"):
        if (src / sub).is_dir():
            shutil.copytree(src / sub, dest / sub)
    status = evaluation.exit_status(pytest_like_status(evaluation))
    run["rescored_from"] = str(src.resolve())
    run["rescored_at"] = clock.iso(clock.wall_now())
    run["efficacy"] = {"attempts": evaluation.attempts, "not_valid": evaluation.not_valid,
                       "manifested": evaluation.manifested, "rate": evaluation.efficacy_rate,
                       "refused": evaluation.refused}
    run["exit_status"] = status
    run["version"] = RUN_VERSION
    write_run_document(dest / "run.json", run)
    (dest / SCORECARD_FILE).write_text(text, encoding="utf-8")
    extra = write_run_outputs(dest, compare_to=compare_to)
    write("=" * 30 + " simian scorecard " + "=" * 30 + "\n")
    write(text)
    if extra:
        write(extra)
    write(f"artifacts: {dest}\n")
    return status
