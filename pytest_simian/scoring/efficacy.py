"""The efficacy rule: when the evidence says a fault landed.

Why: "absence of evidence is not manifestation" (seed 000 principle 2) is a scoring rule, so it lives
with the other rules and is read by the outcome table, live and offline alike. An attempt manifested
only if every fault has at least one passing `fault.efficacy` record and the attempt has no failing one.
Must not: do I/O, or trust anything but the records the executor wrote.
"""

from __future__ import annotations

from typing import Any

from pytest_simian.record.join import AttemptRecord


def _passed(ev: dict[str, Any]) -> bool:
    return bool((ev.get("payload") or {}).get("passed"))


def efficacy_by_fault(rec: AttemptRecord) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for ev in rec.efficacy:
        idx = int((ev.get("payload") or {}).get("fault_index", 0))
        out.setdefault(idx, []).append(ev)
    return out


def manifested(rec: AttemptRecord, fault_count: int) -> bool:
    """Every fault has a passing efficacy record and no failing one."""
    if fault_count <= 0:
        return False
    by = efficacy_by_fault(rec)
    for i in range(fault_count):
        results = [_passed(e) for e in by.get(i, [])]
        if not results or not all(results):
            return False
    return all(_passed(e) for e in rec.efficacy)


def missing_efficacy(rec: AttemptRecord, fault_count: int) -> str:
    """Why `manifested` is False, in words."""
    by = efficacy_by_fault(rec)
    for i in range(fault_count):
        evs = by.get(i, [])
        failing = [e for e in evs if not _passed(e)]
        if failing:
            p = failing[0].get("payload") or {}
            return f"fault {i}: probe {p.get('probe', '?')!r} did not pass"
        if not evs:
            return f"fault {i} has no efficacy record"
    return "no fault"


def efficacy_passed_at(rec: AttemptRecord) -> str | None:
    """When the last passing efficacy record was written (the start of time to report)."""
    passing = [str(e.get("ts", "")) for e in rec.efficacy if _passed(e)]
    return max(passing) if passing else None
