"""The shape of a run's audit log and scorecard, with ids, times and measurements taken out.

Why: a change to how faults reach the cluster (the executor, the engines, the lifecycle) must leave what
a run records as it was, apart from differences that change names on purpose. The shape keeps, per
attempt (scenario × subject), the sequence of events with their reasons and the payload fields that
say what happened (kinds, objects, probes, verdict inputs), and drops what differs between two runs of
the same code: attempt and fault ids, timestamps, deadlines, elapsed times, observed values, worker
names, request counts. `cluster.started` is dropped: which attempt starts a worker's cluster depends on
scheduling. The scorecard drops its `time to report` section and the run directory lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

KEEP: dict[str, tuple[str, ...]] = {
    "eval.scenario_started": ("subject",),
    "executor.received": ("engine", "kind", "fault_index"),
    "executor.rejected": (),
    "arena.held": ("namespaces", "control", "created", "adopted"),
    "arena.released": ("namespaces", "deleted"),
    "executor.validated": ("tier", "objects"),
    "driver.applied": ("engine", "objects", "stage"),
    "driver.failed": ("stage",),
    "lease.registered": ("objects",),
    "lease.cleared": ("objects", "verified"),
    "lease.expired": ("objects", "found_by"),
    "fault.efficacy": ("fault_index", "probe", "type", "passed"),
    "eval.trajectory": ("writes_attempted", "writes_denied", "writes_went_through"),
    "eval.scenario_ended": ("writes_attempted",),
    "eval.not_valid": ("cluster", "why"),
    "eval.inject_error": ("stage",),
    "eval.subject_error": ("exit_code",),
}
DROPPED_EVENTS = frozenset({"cluster.started"})
_FAULT_UID = re.compile(r"^f-a[0-9a-f]+-(\d+)$")


def event_shape(ev: Mapping[str, Any]) -> list[Any]:
    name = str(ev.get("event"))
    payload = ev.get("payload") or {}
    keep = KEEP.get(name, ())
    shape: list[Any] = [name]
    uid = _FAULT_UID.match(str(ev.get("fault_uid") or ""))
    if uid:
        shape.append(f"fault {uid.group(1)}")
    if ev.get("reason"):
        shape.append(f"reason {ev['reason']}")
    kept = {k: payload[k] for k in keep if k in payload}
    if kept:
        shape.append(kept)
    return shape


def audit_shape(events: Iterable[Mapping[str, Any]]) -> dict[str, list[list[Any]]]:
    """`<scenario>[<subject>]` → the shapes of that attempt's events, in the order they were written."""
    by_attempt: dict[str, list[Mapping[str, Any]]] = {}
    subject: dict[str, str] = {}
    scenario: dict[str, str] = {}
    for ev in events:
        aid = ev.get("attempt_id")
        if not aid:
            continue
        by_attempt.setdefault(str(aid), []).append(ev)
        if ev.get("event") == "eval.scenario_started":
            subject[str(aid)] = str((ev.get("payload") or {}).get("subject", ""))
            scenario[str(aid)] = str(ev.get("scenario_id", ""))
    out: dict[str, list[list[Any]]] = {}
    for aid, evs in by_attempt.items():
        evs = sorted(evs, key=lambda e: (str(e.get("worker", "")), int(e.get("seq", 0))))
        key = f"{scenario.get(aid, '?')}[{subject.get(aid, '?')}]"
        assert key not in out, f"two attempts of {key}"
        out[key] = [event_shape(e) for e in evs if e.get("event") not in DROPPED_EVENTS]
    return dict(sorted(out.items()))


def render_shape(shape: Mapping[str, list[list[Any]]]) -> str:
    lines = ["{"]
    items = list(shape.items())
    for n, (key, seq) in enumerate(items):
        lines.append(f"  {json.dumps(key)}: [")
        lines += [f"    {json.dumps(s, sort_keys=True)}{',' if i < len(seq) - 1 else ''}" for i, s in enumerate(seq)]
        lines.append("  ]" + ("," if n < len(items) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def scorecard_shape(text: str) -> str:
    """The scorecard without its `time to report` section and the lines naming the run directory."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line.startswith("time to report"):
            skipping = True
            continue
        if skipping and (line.startswith(" ") or not line.strip()):
            if not line.strip():
                skipping = False
            continue
        skipping = False
        if line.startswith(("report:", "artifacts:")):
            continue
        out.append(line)
    return "\n".join(out).rstrip("\n") + "\n"
