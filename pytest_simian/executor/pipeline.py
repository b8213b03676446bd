"""The pipeline one rendered bundle takes: admitted, applied in stages, leased, gated on its probes, cleared.

Why: these are the steps the executor runs for every fault of every engine, in the Go Simian's order and
with its event names: `executor.received`, `executor.validated`, `executor.rejected`, `driver.applied`,
`driver.failed`, `lease.registered`, `fault.efficacy`, `lease.cleared`, `lease.expired`. A rejection happens
before any write. Every `fault.efficacy` event comes from a probe this pipeline ran itself.
Must not: render (engines do), hold the arena (the executor does, between `admit` and `land`), talk to a
subject, or score.
"""

from __future__ import annotations

import contextlib
import copy
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pytest_simian import clock
from pytest_simian import probes as P
from pytest_simian.bundle import Bundle
from pytest_simian.cluster.kube import KubeError
from pytest_simian.errors import ClearError
from pytest_simian.executor.policy import (
    REASON_BUDGET_EXCEEDED,
    REASON_DRIVER_FAILED,
    REASON_EFFICACY_FAILED,
    REASON_SCHEMA_INVALID,
    REASON_WORKLOAD_EXCLUDED,
    STAGE_DRIVER,
    STAGE_SAFETY,
    STAGE_SETTLE,
    ExecutorConfig,
    ExecutorError,
)
from pytest_simian.executor.validation import bundle_refs, check_leaks, check_probes, validate, validate_scopes
from pytest_simian.leases import FAULT_UID, ActiveFault, LeaseRegistry, ObjectRef, expiry_after, format_expiry, stamp
from pytest_simian.pack.models import FaultSpec, Scenario
from pytest_simian.record.events import (
    DRIVER_APPLIED,
    DRIVER_FAILED,
    EXECUTOR_RECEIVED,
    EXECUTOR_REJECTED,
    EXECUTOR_VALIDATED,
    FAULT_EFFICACY,
    LEASE_CLEARED,
    LEASE_EXPIRED,
    LEASE_REGISTERED,
)


def fault_uid(attempt_id: str, index: int) -> str:
    return f"f-{attempt_id}-{index}"


def _reject(stage: str, reason: str, message: str) -> ExecutorError:
    return ExecutorError(stage, reason, message)


@dataclass
class Environment:
    """What the pipeline needs from one attempt (the executor builds it)."""

    attempt_id: str
    scenario: Scenario
    audit: Any
    kube: Any
    settle_deadline: float
    progress: Callable[[str], None]
    cluster_clock: Any = None
    """The embedded cluster's virtual clock handle, or None on a real cluster."""
    slots: Any = None
    """HoldLocks used for the concurrency cap."""


class Pipeline:
    """Admits, applies, leases, settles and clears rendered bundles; one per executor, shared by every
    attempt the process runs. The :class:`~pytest_simian.executor.core.Executor` calls it in order:
    `admit` (validation against the live cluster: nothing is written), then, once the arena is held,
    `land` (apply, lease, probes)."""

    def __init__(self, config: ExecutorConfig | None = None, *, registry: LeaseRegistry | None = None,
                 now: Callable[[], datetime] = clock.wall_now, sleep: Callable[[float], None] | None = None,
                 monotonic: Callable[[], float] = clock.monotonic) -> None:
        self.config = config or ExecutorConfig()
        self.failure_kinds: tuple[str, ...] = ()
        """Kind names that name a failure (from the engines' catalogue): no object may carry them."""
        self.registry = registry or LeaseRegistry()
        self.now = now
        self.sleep = sleep or time.sleep
        self.monotonic = monotonic
        self._lock = threading.Lock()
        self._slots: dict[str, str] = {}
        self._applied: dict[str, dict[ObjectRef, str]] = {}
        """attempt id → object → fault uid that created it (refuses a second fault creating the same)."""

    # ------------------------------------------------------------ inject

    def admit(self, fault: FaultSpec, index: int, bundle: Bundle, env: Environment, *, engine: str) -> str:
        """received → validated against the cluster's discovery. Returns the effective tier; raises an
        ExecutorError (after `executor.rejected`) for a fault that must not be applied. Writes nothing."""
        audit = env.audit
        uid = fault_uid(env.attempt_id, index)
        audit.emit(EXECUTOR_RECEIVED, fault_uid=uid, payload={"engine": engine, "kind": fault.kind,
                                                             "fault_index": index})
        with self._refusals(uid, env):
            validate(fault, env.scenario, bundle, self.config)
            check_probes(bundle)
            check_leaks(bundle, env.scenario, self.failure_kinds)
            return validate_scopes(fault, env.scenario, bundle, self.config, env.kube)

    @staticmethod
    def _rejected(err: ExecutorError, uid: str, env: Environment) -> ExecutorError:
        env.audit.emit(EXECUTOR_REJECTED, fault_uid=uid, reason=err.reason, payload={"error": str(err)})
        return err

    @contextlib.contextmanager
    def _refusals(self, uid: str, env: Environment) -> Iterator[None]:
        """A refusal inside is recorded as `executor.rejected`; a cluster that cannot be asked is one too."""
        try:
            yield
        except ExecutorError as err:
            raise self._rejected(err, uid, env) from None
        except KubeError as exc:
            raise self._rejected(ExecutorError(STAGE_SAFETY, REASON_SCHEMA_INVALID,
                                               "the cluster could not be asked about the objects", exc),
                                 uid, env) from None

    def land(self, fault: FaultSpec, index: int, bundle: Bundle, env: Environment, *, tier: str,
             engine: str) -> str:
        """Ownership, the concurrency slot, the lease, then each stage applied and gated, then the Settle
        probes: every result a `fault.efficacy` event. Returns the fault uid. Called only once the
        scenario's namespaces are held (another attempt's objects are gone by then)."""
        audit = env.audit
        uid = fault_uid(env.attempt_id, index)
        with self._refusals(uid, env):
            self._check_ownership(uid, bundle, env)
        slot = None
        refs = bundle_refs(bundle)
        with self._lock:  # the cap is counted and taken atomically with the apply that follows
            try:
                slot = self._take_slot(uid, env)
            except ExecutorError as err:
                raise self._rejected(err, uid, env) from None
            deadline = expiry_after(fault.duration_seconds, self.now())
            self._applied.setdefault(env.attempt_id, {}).update({r: uid for r in refs})
            active = ActiveFault(uid, env.attempt_id, env.scenario.id, engine, fault.namespace, refs, self.now(),
                                 deadline)
            active.clear = lambda: self._clear_refs(active, env.kube, env.audit, env.cluster_clock, expired=True)
            # registered before the first write: a fault interrupted mid-apply is still cleared
            self.registry.register(active)
        audit.emit(EXECUTOR_VALIDATED, fault_uid=uid, payload={"tier": tier, "objects": [str(r) for r in refs]})
        waiter = P.Waiter(cluster_clock=env.cluster_clock, monotonic=self.monotonic, sleep=self.sleep)

        def on_result(probe: Any, outcome: P.ProbeOutcome, elapsed: float) -> None:
            audit.emit(FAULT_EFFICACY, fault_uid=uid, payload=P.efficacy_payload(index, probe, outcome, elapsed))

        def evaluate_one(probe: Any) -> P.ProbeOutcome:
            return P.evaluate(env.kube, probe, fault.namespace)

        for n, stage in enumerate(bundle.stages):
            for obj in stage.objects:
                body = stamp(_copy(obj), bundle=env.attempt_id, fault_uid=uid, expires_at=deadline)
                try:
                    env.kube.apply(body)
                except KubeError as exc:
                    audit.emit(DRIVER_FAILED, fault_uid=uid, reason=REASON_DRIVER_FAILED,
                               payload={"error": f"{ObjectRef.of(obj)}: {exc}", "stage": n})
                    raise ExecutorError(STAGE_DRIVER, REASON_DRIVER_FAILED, f"applying {ObjectRef.of(obj)} failed",
                                        exc) from None
            audit.emit(DRIVER_APPLIED, fault_uid=uid, payload={
                "engine": engine, "engine_uid": uid, "deadline": format_expiry(deadline),
                "objects": objects_text(stage.objects), **({"stage": n} if len(bundle.stages) > 1 else {}),
                **({"slot": slot} if slot else {})})
            if n == 0:
                audit.emit(LEASE_REGISTERED, fault_uid=uid, payload={"deadline": format_expiry(deadline),
                                                                     "objects": [str(r) for r in refs]})
            if stage.probes and n < len(bundle.stages) - 1:
                try:
                    P.settle(stage.probes, evaluate_one=evaluate_one, deadline=env.settle_deadline, waiter=waiter,
                             on_result=on_result, progress=env.progress)
                except P.SettleFailure as exc:
                    raise ExecutorError(STAGE_SETTLE, REASON_EFFICACY_FAILED, str(exc)) from None
        try:
            P.settle(bundle.probes, evaluate_one=evaluate_one, deadline=env.settle_deadline, waiter=waiter,
                     on_result=on_result, progress=env.progress)
        except P.SettleFailure as exc:
            raise ExecutorError(STAGE_SETTLE, REASON_EFFICACY_FAILED, str(exc)) from None
        return uid

    def _check_ownership(self, uid: str, bundle: Bundle, env: Environment) -> None:
        """Refuse to take over an object another fault (or nobody of ours) owns."""
        mine = self._applied.get(env.attempt_id, {})
        for ref in bundle_refs(bundle):
            other = mine.get(ref)
            if other is not None and other != uid:
                raise _reject(STAGE_SAFETY, REASON_WORKLOAD_EXCLUDED,
                              f"{ref} is already created by fault {other} of this attempt")
            res = env.kube.for_kind(ref.api_version, ref.kind)
            cur = env.kube.get_or_none(res, ref.namespace if res.namespaced else None, ref.name)
            if cur is None:
                continue
            labels = (cur.get("metadata") or {}).get("labels") or {}
            if labels.get(FAULT_UID) != uid:
                raise _reject(STAGE_SAFETY, REASON_WORKLOAD_EXCLUDED,
                              f"{ref} already exists and is not this fault's: it is left alone")

    def _take_slot(self, uid: str, env: Environment) -> str | None:
        cap = self.config.max_concurrent_faults
        if cap <= 0:
            return None
        locks = env.slots
        if locks is None:
            if len(self.registry.list()) >= cap:
                raise _reject(STAGE_SAFETY, REASON_BUDGET_EXCEEDED, f"{cap} fault(s) already active")
            return None
        for i in range(cap):
            name = f"slot-{i}"
            if locks.try_acquire(name, f"{uid}"):
                self._slots[uid] = name
                return name
        raise _reject(STAGE_SAFETY, REASON_BUDGET_EXCEEDED, f"all {cap} fault slot(s) on the cluster are taken")

    # ------------------------------------------------------------ clear

    def clear(self, fault: FaultSpec, index: int, bundle: Bundle, env: Environment) -> None:
        """Delete the fault's objects (only those carrying its uid) and wait until they and their pods are
        gone. Idempotent. Raises ClearError when they are not."""
        uid = fault_uid(env.attempt_id, index)
        active = self.registry.get(uid) or ActiveFault(uid, env.attempt_id, env.scenario.id, fault.engine,
                                                       fault.namespace, bundle_refs(bundle), self.now(), self.now())
        known = self.registry.get(uid) is not None
        self._clear_refs(active, env.kube, env.audit, env.cluster_clock, expired=False, announce=known, slots=env.slots)
        with self._lock:
            for ref in bundle_refs(bundle):
                if self._applied.get(env.attempt_id, {}).get(ref) == uid:
                    del self._applied[env.attempt_id][ref]

    def clear_all(self, kube: Any, audit: Any, cluster_clock: Any = None, slots: Any = None) -> list[str]:
        """Clear every fault this process still holds (the shutdown path after an interrupt). Returns what
        could not be cleared."""
        problems = []
        for active in self.registry.list():
            try:
                self._clear_refs(active, kube, audit, cluster_clock, expired=False, slots=slots)
            except Exception as exc:  # noqa: BLE001 - keep clearing the others
                problems.append(str(exc))
        return problems

    def _clear_refs(self, active: ActiveFault, kube: Any, audit: Any, cluster_clock: Any, *, expired: bool,
                    announce: bool = True, slots: Any = None) -> None:
        problems: list[str] = []
        waits: list[tuple[Any, ObjectRef]] = []
        pod_selectors: list[tuple[str, str]] = []
        for ref in reversed(active.refs):
            try:
                res = kube.for_kind(ref.api_version, ref.kind)
                ns = ref.namespace if res.namespaced else None
                cur = kube.get_or_none(res, ns, ref.name)
                if cur is None:
                    continue
                labels = (cur.get("metadata") or {}).get("labels") or {}
                if labels.get(FAULT_UID) != active.fault_uid:
                    continue  # not ours: never touched
                sel = _workload_selector(cur)
                if sel and ns:
                    pod_selectors.append((ns, sel))
                kube.delete(res, ns, ref.name, propagation="Background")
                waits.append((res, ref))
            except KubeError as exc:
                problems.append(f"{ref}: {exc}")
        pods = kube.for_kind("v1", "Pod")
        for ns, sel in pod_selectors:  # the workload's pods go now, not after a grace period
            try:
                for p in kube.list(pods, ns, selector=sel):
                    kube.delete(pods, ns, p["metadata"]["name"], propagation="Background", grace_seconds=0)
            except KubeError:
                pass
        deadline = self.monotonic() + self.config.clear_timeout
        while True:
            left = []
            for res, ref in waits:
                try:
                    if kube.get_or_none(res, ref.namespace if res.namespaced else None, ref.name) is not None:
                        left.append(str(ref))
                except KubeError as exc:
                    left.append(f"{ref} ({exc.message})")
            for ns, sel in pod_selectors:
                try:
                    left += [f"Pod/{p['metadata']['name']} in {ns}" for p in kube.list(pods, ns, selector=sel)]
                except KubeError:
                    pass
            if not left:
                break
            if self.monotonic() >= deadline:
                problems.append("still present after clearing: " + ", ".join(left[:10]))
                break
            if cluster_clock is not None:
                cluster_clock.advance(2.0)
                self.sleep(0.05)
            else:
                self.sleep(1.0)
        if problems:
            raise ClearError(f"fault {active.fault_uid}: " + "; ".join(problems))
        self.registry.forget(active.fault_uid)
        slot = self._slots.pop(active.fault_uid, None)
        if slot and slots is not None:
            try:
                slots.release(slot)
            except Exception:  # noqa: BLE001 - a slot goes stale by itself
                pass
        if not announce:
            return
        try:
            self._announce(active, audit, expired)
        except OSError:  # the audit log is closed (shutdown after an interrupt): the clear itself happened
            pass

    @staticmethod
    def _announce(active: ActiveFault, audit: Any, expired: bool) -> None:
        if expired:
            audit.emit(LEASE_EXPIRED, attempt_id=active.attempt_id, scenario_id=active.scenario_id,
                       fault_uid=active.fault_uid, reason="deadline-reached",
                       payload={"objects": [str(r) for r in active.refs], "found_by": "reaper"})
        else:
            audit.emit(LEASE_CLEARED, attempt_id=active.attempt_id, scenario_id=active.scenario_id,
                       fault_uid=active.fault_uid, reason="explicit-clear",
                       payload={"objects": [str(r) for r in active.refs], "verified": True})


def _workload_selector(obj: dict[str, Any]) -> str | None:
    """`-l` form of a workload's pod selector (matchLabels only), or None."""
    if obj.get("kind") not in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"):
        return None
    spec = obj.get("spec") or {}
    labels = ((spec.get("selector") or {}).get("matchLabels") or {})
    if obj.get("kind") == "Job" and not labels:
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if not labels:
        return None
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _copy(obj: Any) -> Any:
    return copy.deepcopy(obj)


def objects_text(objs: Iterable[dict[str, Any]]) -> list[str]:
    return [str(ObjectRef.of(o)) for o in objs]
