"""Evaluating a run from its artifacts: the one function the live run, `--simian-offline` and the report use.

Why: every scorecard must come from the same artifacts through the same code, so the join and the
evaluation happen here once (:func:`evaluate_artifacts`); writing the outputs is finalize.py's.
Must not: do I/O (record/artifacts.py reads the run; finalize.py writes the outputs), or touch a cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_simian.record import join
from pytest_simian.record.artifacts import RunArtifacts
from pytest_simian.record.events import CLUSTER_STARTED
from pytest_simian.scoring.outcomes import ERROR, FAILED
from pytest_simian.scoring.scorecard import RunEvaluation, evaluate_run, render_text


def clusters_from_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    for ev in events:
        if ev.get("event") == CLUSTER_STARTED:
            ident = dict(ev.get("payload") or {})
            if ident not in seen:
                seen.append(ident)
    return seen


def evaluate_artifacts(run: Mapping[str, Any], art: RunArtifacts) -> tuple[RunEvaluation, str]:
    records = join.join(art.events, art.reports, art.report_problems)
    evaluation = evaluate_run(run, records, art.problems)
    return evaluation, render_text(evaluation)


def pytest_like_status(evaluation: RunEvaluation) -> int:
    """What pytest would have exited with for these verdicts (1 on any failure or error)."""
    if not evaluation.verdicts:
        return 5
    bad = any(v.outcome in (FAILED, ERROR) or v.teardown_error for v in evaluation.verdicts)
    return 1 if bad else 0
