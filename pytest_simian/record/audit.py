"""The audit log: versioned JSON lines, written as things happen.

Why: the audit log is Simian's record of breaking things (which faults applied, whether their
efficacy gates passed, and when); it is opened before any cluster is touched and every line is one
`write` to a file opened with O_APPEND, so a run killed mid-way leaves every complete line readable.
Each xdist worker writes its own file (`audit-<worker>.jsonl`); readers merge them.

Every event carries the attempt id from the context (`AuditLog.attempt(...)`), so the thirty places
that emit never thread it through; an event that sets its own `attempt_id` wins (the reaper
attributes a late expiry to the attempt that applied the fault).

Line format (version 1), documented in docs/artifacts.md:
    {"v": 1, "ts": RFC3339, "seq": n, "worker": "gw0"|"main", "event": "...",
     "attempt_id": "...", "scenario_id": "...", "fault_uid": "...", "reason": "...", "payload": {...}}
Must not: score, or decide anything from what it writes.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_simian import clock

AUDIT_VERSION = 1
OBSERVED_CAP = 2048
"""Longest observed value a `fault.efficacy` payload keeps (characters)."""

_attempt: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("simian_attempt",
                                                                                   default=None)


def cap(text: Any, limit: int = OBSERVED_CAP) -> str:
    """`text` as a string no longer than `limit`, marking what was cut."""
    s = text if isinstance(text, str) else json.dumps(text, default=str)
    if len(s) <= limit:
        return s
    return s[: limit - 30] + f"… [{len(s) - limit + 30} more chars]"


class AuditLog:
    """Appends events to one file. Thread-safe; one `os.write` per event."""

    def __init__(self, path: Path, *, worker: str = "main",
                 now: Callable[[], datetime] = clock.wall_now) -> None:
        self.path = path
        self.worker = worker
        self._now = now
        self._seq = 0
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._by_attempt: dict[str, list[dict[str, Any]]] = {}

    @contextlib.contextmanager
    def attempt(self, attempt_id: str, scenario_id: str) -> Iterator[None]:
        """Stamp every event emitted inside the block with this attempt and scenario."""
        token = _attempt.set((attempt_id, scenario_id))
        try:
            yield
        finally:
            _attempt.reset(token)

    def emit(self, event: str, *, attempt_id: str | None = None, scenario_id: str | None = None,
             fault_uid: str | None = None, reason: str | None = None,
             payload: dict[str, Any] | None = None) -> dict[str, Any]:
        ctx = _attempt.get()
        if ctx is not None:
            attempt_id = attempt_id or ctx[0]
            scenario_id = scenario_id or ctx[1]
        with self._lock:
            self._seq += 1
            record: dict[str, Any] = {"v": AUDIT_VERSION, "ts": clock.iso(self._now()), "seq": self._seq,
                                      "worker": self.worker, "event": event}
            if attempt_id:
                record["attempt_id"] = attempt_id
            if scenario_id:
                record["scenario_id"] = scenario_id
            if fault_uid:
                record["fault_uid"] = fault_uid
            if reason:
                record["reason"] = reason
            if payload:
                record["payload"] = payload
            line = json.dumps(record, default=str, ensure_ascii=False, separators=(",", ":")) + "\n"
            os.write(self._fd, line.encode("utf-8"))
            if attempt_id:
                self._by_attempt.setdefault(attempt_id, []).append(record)
        return record

    def events_for(self, attempt_id: str) -> list[dict[str, Any]]:
        """The events this process wrote for one attempt (exactly what went to the file)."""
        with self._lock:
            return list(self._by_attempt.get(attempt_id, []))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


def read_audit_lines(text: str, *, source: str = "") -> tuple[list[dict[str, Any]], list[str]]:
    """Parse audit lines, tolerating a truncated or corrupt line: return events and problems."""
    events: list[dict[str, Any]] = []
    problems: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            problems.append(f"{source}:{n}: unreadable audit line (truncated?)")
            continue
        if not isinstance(ev, dict) or "event" not in ev:
            problems.append(f"{source}:{n}: not an audit event")
            continue
        if ev.get("v", AUDIT_VERSION) > AUDIT_VERSION:
            problems.append(f"{source}:{n}: audit format v{ev.get('v')} is newer than this plugin reads")
            continue
        events.append(ev)
    return events, problems
