"""The join: audit events and report files, keyed by attempt id, into one record per attempt.

Why: the live run and `--simian-offline` must reach the same verdicts from the same artifacts, so the
attempt record is *reconstructed* from what was written, never carried in memory. An attempt whose
events stop early (a run killed mid-write) becomes a record that says so, not a crash.
Must not: do I/O (artifacts.py reads the files), or score (scoring/ does).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Event names. Executor and lease events keep the Go Simian's names; eval.* are the harness's own.
SCENARIO_STARTED = "eval.scenario_started"
NOT_VALID = "eval.not_valid"
INJECT_ERROR = "eval.inject_error"
FAULT_EFFICACY = "fault.efficacy"
SUBJECT_STARTED = "eval.subject_started"
REPORT_RECEIVED = "eval.report_received"
SUBJECT_ERROR = "eval.subject_error"
HARNESS_ERROR = "eval.harness_error"
CLEAR_FAILED = "eval.clear_failed"
CLEARED = "eval.cleared"
SCENARIO_ENDED = "eval.scenario_ended"
TRAJECTORY = "eval.trajectory"
CLUSTER_STARTED = "cluster.started"


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

    def efficacy_by_fault(self) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {}
        for ev in self.efficacy:
            idx = int((ev.get("payload") or {}).get("fault_index", 0))
            out.setdefault(idx, []).append(ev)
        return out

    def manifested(self, fault_count: int) -> bool:
        """Every fault has a passing efficacy record and no failing one."""
        if fault_count <= 0:
            return False
        by = self.efficacy_by_fault()
        for i in range(fault_count):
            results = [bool((e.get("payload") or {}).get("passed")) for e in by.get(i, [])]
            if not results or not all(results):
                return False
        return not any(not (e.get("payload") or {}).get("passed") for e in self.efficacy)

    def missing_efficacy(self, fault_count: int) -> str:
        by = self.efficacy_by_fault()
        for i in range(fault_count):
            evs = by.get(i, [])
            failing = [e for e in evs if not (e.get("payload") or {}).get("passed")]
            if failing:
                p = failing[0].get("payload") or {}
                return f"fault {i}: probe {p.get('probe', '?')!r} did not pass"
            if not evs:
                return f"fault {i} has no efficacy record"
        return "no fault"

    def efficacy_passed_at(self) -> str | None:
        passing = [e.get("ts", "") for e in self.efficacy if (e.get("payload") or {}).get("passed")]
        return max(passing) if passing else None


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
