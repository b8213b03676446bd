"""The join: audit events and report files, keyed by attempt id, into one record per attempt.

Why: the live run and `--simian-offline` must reach the same verdicts from the same artifacts, so the
attempt record is *reconstructed* from what was written, never carried in memory. An attempt whose
events stop early (a run killed mid-write) becomes a record that says so, not a crash.
Must not: do I/O (artifacts.py reads the files), or score (scoring/ does; the efficacy rule is
scoring/efficacy.py's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_simian.record.events import (
    CLEAR_FAILED,
    FAULT_EFFICACY,
    HARNESS_ERROR,
    INJECT_ERROR,
    NOT_VALID,
    REPORT_RECEIVED,
    SCENARIO_ENDED,
    SCENARIO_STARTED,
    SUBJECT_ERROR,
    SUBJECT_STARTED,
    TRAJECTORY,
)


@dataclass
class AttemptRecord:
    """What the artifacts say about one attempt (one scenario × one subject, its own injection)."""

    attempt_id: str
    scenario_id: str = ""
    subject: str = ""
    nodeid: str = ""
    started_at: str = ""
    cluster: str = ""
    not_valid: str | None = None
    inject_error: str | None = None
    efficacy: list[dict[str, Any]] = field(default_factory=list)
    """`fault.efficacy` events (with their `ts`), in order."""
    harness_error: str | None = None
    subject_error: str | None = None
    subject_started_at: str | None = None
    report_received_at: str | None = None
    report_file: str | None = None
    report: Any = None
    """The JSON value the subject reported (from the report file), when one was received."""
    report_problem: str | None = None
    """Why a received report could not be read back (missing or corrupt file)."""
    clear_error: str | None = None
    ended: bool = False
    writes_attempted: int = 0
    trajectory: bool = False
    """True when the attempt's requests were attributed (an `eval.trajectory` event: embedded cluster)."""
    events: int = 0


def join(events: Iterable[Mapping[str, Any]], reports: Mapping[str, Any],
         report_problems: Mapping[str, str] | None = None) -> dict[str, AttemptRecord]:
    """Fold events (any order across files; stable within one) into records keyed by attempt id.

    `reports` maps a report file name to its decoded JSON content; `report_problems` maps a file name
    to why it could not be read.
    """
    problems = report_problems or {}
    records: dict[str, AttemptRecord] = {}
    for ev in sorted(events, key=lambda e: (str(e.get("ts", "")), int(e.get("seq", 0)))):
        aid = ev.get("attempt_id")
        if not aid:
            continue
        rec = records.setdefault(str(aid), AttemptRecord(attempt_id=str(aid)))
        rec.events += 1
        name = ev.get("event")
        p = ev.get("payload") or {}
        if name == SCENARIO_STARTED:
            rec.scenario_id = str(ev.get("scenario_id", ""))
            rec.subject = str(p.get("subject", ""))
            rec.nodeid = str(p.get("nodeid", ""))
            rec.started_at = str(ev.get("ts", ""))
        elif name == NOT_VALID:
            rec.not_valid = f"NOT VALID ON {p.get('cluster', '?')} — {p.get('why', '')}"
            rec.cluster = str(p.get("cluster", ""))
        elif name == INJECT_ERROR:
            rec.inject_error = str(p.get("why", ""))
        elif name == FAULT_EFFICACY:
            rec.efficacy.append(dict(ev))
        elif name == SUBJECT_STARTED:
            rec.subject_started_at = str(ev.get("ts", ""))
        elif name == REPORT_RECEIVED:
            rec.report_received_at = str(ev.get("ts", ""))
            rec.report_file = str(p.get("report_file", ""))
            if rec.report_file in reports:
                rec.report = reports[rec.report_file]
            else:
                rec.report_problem = problems.get(rec.report_file, f"report file {rec.report_file!r} is missing")
        elif name == SUBJECT_ERROR:
            rec.subject_error = str(p.get("why", ""))
            rec.report_received_at = str(ev.get("ts", ""))
        elif name == HARNESS_ERROR:
            rec.harness_error = str(p.get("why", ""))
        elif name == CLEAR_FAILED:
            rec.clear_error = str(p.get("why", ""))
        elif name == TRAJECTORY:
            rec.writes_attempted = int(p.get("writes_attempted", 0))
            rec.trajectory = "unmeasured" not in p
        elif name == SCENARIO_ENDED:
            rec.ended = True
            rec.writes_attempted = int(p.get("writes_attempted", rec.writes_attempted))
    return records
