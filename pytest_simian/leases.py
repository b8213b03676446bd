"""Fault leases: an expiry written on the cluster, a registry of this process's faults, and the reaper.

Why: a runner that dies must not leave a broken cluster behind for ever, and the next run must be able to
find what it left. Every object a fault creates carries `simian.chaos/managed=true`, `simian.chaos/bundle`
(the attempt that applied it), `simian.chaos/fault-uid` and the `simian.chaos/expires-at` annotation, so
the lease lives on the cluster, not in memory. At session start the reaper clears every managed object past
its expiry and reports it as `lease.expired` under the *old* attempt's id (so it never joins this run's
attempts); during a run it clears this process's faults whose lease lapses, reported as expiry, never as
remediation.

The expiry is written as RFC 3339 with a numeric offset (`2026-11-29T15:00:00+00:00`) in host time: a
duration the harness chose is a host-clock duration, whatever a cluster's own clock says.
Must not: label pod templates, name the fault kind anywhere, or delete an object that is not managed.
"""

from __future__ import annotations

import builtins
import contextvars
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pytest_simian import clock
from pytest_simian.cluster.kube import KubeError
from pytest_simian.record.events import LEASE_EXPIRED

MANAGED = "simian.chaos/managed"
BUNDLE = "simian.chaos/bundle"
FAULT_UID = "simian.chaos/fault-uid"
EXPIRES_AT = "simian.chaos/expires-at"
OUR_LABELS = (MANAGED, BUNDLE, FAULT_UID)
OUR_ANNOTATIONS = (EXPIRES_AT,)



def format_expiry(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def parse_expiry(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def expiry_after(seconds: float, now: datetime | None = None) -> datetime:
    return (now or clock.wall_now()) + timedelta(seconds=seconds)


def stamp(obj: dict[str, Any], *, bundle: str, fault_uid: str | None, expires_at: datetime) -> dict[str, Any]:
    """Our marks on the object's own metadata (never on a pod template)."""
    meta = obj.setdefault("metadata", {})
    labels = meta.setdefault("labels", {})
    labels[MANAGED] = "true"
    labels[BUNDLE] = bundle
    if fault_uid:
        labels[FAULT_UID] = fault_uid
    meta.setdefault("annotations", {})[EXPIRES_AT] = format_expiry(expires_at)
    return obj


@dataclass(frozen=True)
class ObjectRef:
    api_version: str
    kind: str
    namespace: str | None
    name: str

    def __str__(self) -> str:
        return f"{self.kind}/{self.name}" + (f" in {self.namespace}" if self.namespace else "")

    @classmethod
    def of(cls, obj: dict[str, Any]) -> ObjectRef:
        meta = obj.get("metadata") or {}
        return cls(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"])


@dataclass
class ActiveFault:
    """A fault this process applied and has not cleared (the Go ActiveFault, with the attempt)."""

    fault_uid: str
    attempt_id: str
    scenario_id: str
    engine: str
    namespace: str
    refs: list[ObjectRef]
    applied_at: datetime
    deadline: datetime
    clear: Callable[[], None] | None = None
    """How to clear it (the executor's clear, bound to this fault)."""


class LeaseRegistry:
    """This process's active faults, keyed by fault uid. Thread-safe."""

    def __init__(self) -> None:
        self._faults: dict[str, ActiveFault] = {}
        self._lock = threading.Lock()

    def register(self, fault: ActiveFault) -> None:
        with self._lock:
            self._faults[fault.fault_uid] = fault

    def forget(self, fault_uid: str) -> ActiveFault | None:
        with self._lock:
            return self._faults.pop(fault_uid, None)

    def get(self, fault_uid: str) -> ActiveFault | None:
        with self._lock:
            return self._faults.get(fault_uid)

    def list(self) -> builtins.list[ActiveFault]:
        with self._lock:
            return sorted(self._faults.values(), key=lambda f: f.applied_at)

    def expired(self, now: datetime) -> builtins.list[ActiveFault]:
        return [f for f in self.list() if f.deadline < now]


# ----------------------------------------------------------------------------- the reaper


def managed_resources(kube: Any) -> list[Any]:
    """Every resource that can hold a managed object (listable and deletable), namespaces last."""
    seen: set[tuple[str, str]] = set()
    out = []
    for r in kube.resources():
        if (r.group, r.plural) in seen or not {"list", "delete"} <= set(r.verbs):
            continue
        if r.plural in ("events", "leases") or r.group in ("events.k8s.io",):
            continue
        seen.add((r.group, r.plural))
        out.append(r)
    return sorted(out, key=lambda r: r.kind == "Namespace")


@dataclass
class Reaped:
    attempt_id: str
    fault_uid: str
    objects: list[str] = field(default_factory=list)
    expired_at: str = ""


def _isolated(fn: Callable[[], Any]) -> Any:
    """Run outside any attempt's audit context, so events carry only the ids they name."""
    return contextvars.Context().run(fn)


class Reaper:
    """Finds managed objects whose lease has lapsed and removes them.

    `sweep_cluster` is the session-start sweep over everything the cluster holds (a dead runner's faults);
    `sweep_registry` clears this process's own lapsed faults through their executor clear.
    """

    def __init__(self, kube: Any, audit: Any, *, now: Callable[[], datetime] = clock.wall_now) -> None:
        self.kube = kube
        self.audit = audit
        self.now = now
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def sweep_cluster(self, *, exclude_bundles: Iterable[str] = ()) -> list[Reaped]:
        now = self.now()
        skip = set(exclude_bundles)
        groups: dict[tuple[str, str], Reaped] = {}
        doomed: list[tuple[Any, dict[str, Any]]] = []
        for res in managed_resources(self.kube):
            try:
                items = self.kube.list(res, None, selector=f"{MANAGED}=true")
            except KubeError:
                continue
            for obj in items:
                meta = obj.get("metadata") or {}
                labels = meta.get("labels") or {}
                bundle = labels.get(BUNDLE, "")
                if bundle in skip:
                    continue
                exp = parse_expiry((meta.get("annotations") or {}).get(EXPIRES_AT))
                if exp is None or exp >= now:
                    continue
                key = (bundle, labels.get(FAULT_UID, ""))
                rec = groups.setdefault(key, Reaped(bundle, key[1], expired_at=format_expiry(exp)))
                where = f"{meta['namespace']}/" if meta.get("namespace") else ""
                rec.objects.append(f"{obj['kind']}/{where}{meta['name']}")
                doomed.append((res, obj))
        for res, obj in doomed:
            meta = obj["metadata"]
            try:
                self.kube.delete(res, meta.get("namespace"), meta["name"], propagation="Background")
            except KubeError:
                continue
        for rec in groups.values():
            self._report(rec)
        return list(groups.values())

    def _report(self, rec: Reaped) -> None:
        def emit() -> None:
            self.audit.emit(LEASE_EXPIRED, attempt_id=rec.attempt_id or None, fault_uid=rec.fault_uid or None,
                            reason="deadline-reached",
                            payload={"objects": rec.objects, "expired_at": rec.expired_at, "found_by": "reaper"})

        _isolated(emit)

    def sweep_registry(self, registry: LeaseRegistry) -> list[ActiveFault]:
        """Clear this process's faults whose lease lapsed (the executor's clear emits the events)."""
        done = []
        for fault in registry.expired(self.now()):
            if fault.clear is None:
                continue
            try:
                fault.clear()
            except Exception:  # noqa: BLE001 - retried on the next sweep, as upstream does
                continue
            done.append(fault)
        return done

    def start(self, registry: LeaseRegistry, interval: float = 30.0) -> None:
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.wait(interval):
                try:
                    self.sweep_registry(registry)
                except Exception:  # noqa: BLE001 - a sweep must never kill the run
                    pass

        self._thread = threading.Thread(target=loop, name="simian-reaper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
