"""The run directory on disk: run.json, audit logs and one report file per attempt.

Why: the scorecard is produced by reading these back, live and offline alike, so a run whose
artifacts could not be scored tomorrow finds out now. Layout (docs/artifacts.md):

    <out>/<YYYYmmddTHHMMSSZ>-<6 hex>/
        run.json                  written at start by the controller, finalized at the end
        audit.jsonl               or audit-gw0.jsonl, audit-gw1.jsonl ... one per xdist worker
        reports/<attempt>.json    what each subject reported
        scorecard.txt             the text scorecard

Must not: score (scoring/ does) or decide outcomes.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_simian.record.audit import read_audit_lines
from pytest_simian.record.run_document import RunDocumentError, read_run_document

REPORTS_DIR = "reports"


def new_run_dir(out_root: Path, now: datetime, *, suffix: str = "") -> Path:
    """Create a fresh run directory under `out_root`, named so that names sort by time."""
    out_root.mkdir(parents=True, exist_ok=True)
    while True:
        name = now.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3) + suffix
        path = out_root / name
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue


def audit_path(run_dir: Path, worker: str) -> Path:
    return run_dir / ("audit.jsonl" if worker == "main" else f"audit-{worker}.jsonl")


def report_path(run_dir: Path, attempt_id: str) -> Path:
    return run_dir / REPORTS_DIR / f"{attempt_id}.json"


@dataclass
class RunArtifacts:
    """Everything a run directory holds, read back."""

    directory: Path
    run: dict[str, Any]
    events: list[dict[str, Any]]
    reports: dict[str, Any]
    """Report file name (relative to the run dir) → the JSON value the subject reported."""
    report_problems: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class ArtifactError(Exception):
    """A run directory that cannot be read at all (no usable run.json)."""


def read_run(directory: Path) -> RunArtifacts:
    try:
        run = read_run_document(directory / "run.json").to_json()
    except RunDocumentError as exc:
        raise ArtifactError(str(exc)) from None
    events: list[dict[str, Any]] = []
    problems: list[str] = []
    for f in sorted(directory.glob("audit*.jsonl")):
        evs, probs = read_audit_lines(f.read_text(encoding="utf-8", errors="replace"), source=f.name)
        events += evs
        problems += probs
    reports: dict[str, Any] = {}
    report_problems: dict[str, str] = {}
    rdir = directory / REPORTS_DIR
    if rdir.is_dir():
        for f in sorted(rdir.glob("*.json")):
            rel = f"{REPORTS_DIR}/{f.name}"
            try:
                doc = json.loads(f.read_text(encoding="utf-8"))
                reports[rel] = doc.get("report") if isinstance(doc, dict) else None
            except ValueError as exc:
                report_problems[rel] = f"report file {rel} is unreadable: {exc}"
    return RunArtifacts(directory, run, events, reports, report_problems, problems)
