"""The executor: the one path every fault takes onto a cluster.

Why: the eval must not have a privileged back door, or it stops measuring the product. Every fault is
received, validated (schema; every object's namespace, including namespaces named inside a spec, must be
one the scenario holds; cluster-scoped kinds only at a permitted tier; the tier policy enforced and unknown
tiers refused; a duration above zero and under the ceiling; the concurrency cap taken atomically with the
apply), applied through its engine's bundle with server-side apply, leased (expiry on every object), gated
on its Settle probes, and finally cleared and verified cleared. Events keep the Go Simian's names:
`executor.received`, `executor.validated`, `executor.rejected`, `driver.applied`, `driver.failed`,
`lease.registered`, `fault.efficacy`, `lease.cleared`, `lease.expired`. A rejection happens before any
write.

Errors are typed like the Go ExecutorError: `executor[<stage>:<reason>]: <message>`; an ExecutorError is an
InjectError, so the attempt is NOT SCORED, never scored as a subject's miss.
Must not: know what a fault kind means (engines render bundles), talk to a subject, or score.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pytest_simian import clock
from pytest_simian.errors import ClearError, InjectError
from pytest_simian.leases import (
    BUNDLE,
    EXPIRES_AT,
    FAULT_UID,
    LEASE_CLEARED,
    LEASE_EXPIRED,
    LEASE_REGISTERED,
    MANAGED,
    ActiveFault,
    LeaseRegistry,
    ObjectRef,
    expiry_after,
    format_expiry,
    stamp,
)
from pytest_simian.pack.models import FaultSpec, Scenario

# ---------------------------------------------------------------------------- names kept from the Go Simian

STAGE_SCHEMA = "schema"
STAGE_SAFETY = "safety"
STAGE_AUDIT = "audit"
STAGE_DRIVER = "driver"
STAGE_LEASE = "lease"
STAGE_SETTLE = "settle"
"""Ours: the efficacy gate (the Go executor had none)."""

REASON_UNKNOWN_GVK = "unknown-gvk"
REASON_SCHEMA_INVALID = "schema-invalid"
REASON_NAMESPACE_NOT_ELIGIBLE = "namespace-not-eligible"
REASON_WORKLOAD_EXCLUDED = "workload-excluded"
REASON_TIER_NOT_PERMITTED = "tier-not-permitted"
REASON_DURATION_OVER_CEILING = "duration-over-ceiling"
REASON_BUDGET_EXCEEDED = "budget-exceeded"
REASON_DRIVER_FAILED = "driver-failed"
REASON_LEASE_FAILED = "lease-failed"
REASON_EFFICACY_FAILED = "efficacy-failed"
"""Ours: a Settle probe did not pass before the deadline."""

EXECUTOR_RECEIVED = "executor.received"
EXECUTOR_VALIDATED = "executor.validated"
EXECUTOR_REJECTED = "executor.rejected"
DRIVER_APPLIED = "driver.applied"
DRIVER_FAILED = "driver.failed"

TIERS = ("namespace", "node", "external")
TIER_RANK = {t: i for i, t in enumerate(TIERS)}

NAMESPACED_KINDS = frozenset({
    "Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "Service", "ConfigMap",
    "Secret", "PersistentVolumeClaim", "PodDisruptionBudget", "ServiceAccount", "Role", "RoleBinding",
    "NetworkPolicy", "Ingress", "Endpoints", "EndpointSlice", "HorizontalPodAutoscaler", "LimitRange",
    "ResourceQuota", "Lease", "Event", "PodTemplate", "ControllerRevision",
})
"""Kinds known to be namespaced without asking the cluster (others are looked up before any write)."""

CLUSTER_SCOPED_TIERS = {
    "Node": "node", "PersistentVolume": "node", "StorageClass": "node", "PriorityClass": "node",
    "RuntimeClass": "node", "CSIDriver": "node", "CSINode": "node", "VolumeAttachment": "node",
}
"""Cluster-scoped kinds whose blast radius is the nodes; every other cluster-scoped kind (Namespace,
ClusterRole, webhooks, CRDs, ...) is `external`: fail closed."""


class ExecutorError(InjectError):
    """A fault refused or failed on its way through the executor (the Go ExecutorError)."""

    def __init__(self, stage: str, reason: str, message: str, cause: BaseException | None = None) -> None:
        self.message = message
        self.cause = cause
        text = f"executor[{stage}:{reason}]: {message}" + (f": {cause}" if cause is not None else "")
        super().__init__(text, stage=stage, reason=reason)


@dataclass(frozen=True)
class ExecutorConfig:
    """Policy. `permitted_tiers` is enforced (an unknown tier in it is refused, so it cannot be inert)."""

    permitted_tiers: frozenset[str] = frozenset({"namespace"})
    duration_ceiling: float = 4 * 3600.0
    max_concurrent_faults: int = 0
    """0 = no cap. Counted across every process sharing the cluster (slots are Lease objects)."""
    clear_timeout: float = 180.0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.permitted_tiers) - set(TIERS))
        if unknown:
            raise ValueError(f"unknown tier(s) in the tier policy: {', '.join(unknown)} (known: {', '.join(TIERS)})")
        if self.duration_ceiling <= 0:
            raise ValueError("the duration ceiling must be above zero")
        if self.max_concurrent_faults < 0:
            raise ValueError("the concurrency cap cannot be negative")


# ---------------------------------------------------------------------------- bundles


@dataclass
class Stage:
    """Objects applied together, and the probes that must pass before the next stage is applied."""

    objects: list[dict[str, Any]]
    probes: list[Any] = field(default_factory=list)


@dataclass
class Bundle:
    """What an engine renders for one fault: staged objects, the Settle probes, the reasons it produces."""

    stages: list[Stage]
    probes: list[Any]
    reasons: tuple[str, ...] = ()

    @property
    def objects(self) -> list[dict[str, Any]]:
        return [o for s in self.stages for o in s.objects]

    def refs(self) -> list[ObjectRef]:
        seen: dict[ObjectRef, None] = {}
        for o in self.objects:
            seen.setdefault(ObjectRef.of(o), None)
        return list(seen)


# ---------------------------------------------------------------------------- static validation


def held_namespaces(scenario: Scenario) -> set[str]:
    """What the arena holds for a scenario: its faults' namespaces and the namespaces its prompt names."""
    from pytest_simian.session import named_namespaces

    return set(named_namespaces(scenario))


def static_scope(api_version: str, kind: str) -> bool | None:
    """True = namespaced, False = cluster-scoped, None = ask the cluster."""
    if kind in NAMESPACED_KINDS:
        return True
    if kind in CLUSTER_SCOPED_TIERS or kind in ("Namespace", "ClusterRole", "ClusterRoleBinding",
                                               "CustomResourceDefinition", "APIService",
                                               "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        return False
    return None


def _reject(stage: str, reason: str, message: str) -> ExecutorError:
    return ExecutorError(stage, reason, message)


def spec_namespaces(obj: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every place inside an object (outside its own metadata) that names or selects namespaces."""
    found: list[tuple[str, Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{path}.{k}" if path else k
            if p == "metadata":
                continue
            if k == "namespace" and isinstance(v, str):
                found.append((p, v))
            elif k == "namespaces" and isinstance(v, list):
                found.append((p, v))
            elif k == "namespaceSelector":
                found.append((p, v))
            else:
                found.extend(spec_namespaces(v, p))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found.extend(spec_namespaces(v, f"{path}[{i}]"))
    return found


def _selector_names(sel: Any) -> set[str] | None:
    """The namespace names a namespaceSelector pins by `kubernetes.io/metadata.name`, or None if it selects
    anything else (or everything)."""
    if not isinstance(sel, dict) or not sel:
        return None
    names: set[str] | None = None
    labels = sel.get("matchLabels") or {}
    exprs = sel.get("matchExpressions") or []
    for k, v in labels.items():
        if k != "kubernetes.io/metadata.name":
            return None
        names = {str(v)} if names is None else names & {str(v)}
    for e in exprs:
        if e.get("key") != "kubernetes.io/metadata.name" or e.get("operator") != "In":
            return None
        vals = {str(x) for x in e.get("values") or []}
        names = vals if names is None else names & vals
    return names


def validate(fault: FaultSpec, scenario: Scenario, bundle: Bundle, config: ExecutorConfig, *,
             scope: Callable[[str, str], bool | None] = static_scope) -> str:
    """Refuse what must never reach the cluster; return the effective tier. Pure: no cluster, no clock.

    Kinds `scope` cannot place are left for :func:`validate_scopes` (called with discovery before any
    write)."""
    # schema
    tier = getattr(fault, "tier", None)
    if tier not in TIER_RANK:
        raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, f"unknown tier {tier!r} (known: {', '.join(TIERS)})")
    if not bundle.objects:
        raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, "the fault renders no objects")
    for i, obj in enumerate(bundle.objects):
        if not isinstance(obj, dict):
            raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, f"object {i} is not a mapping")
        meta = obj.get("metadata")
        if not obj.get("apiVersion") or not obj.get("kind") or not isinstance(meta, dict) or not meta.get("name"):
            raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID,
                          f"object {i} needs apiVersion, kind and metadata.name")
        if meta.get("generateName"):
            raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID,
                          f"{obj['kind']}/{meta['name']}: generateName is not allowed (objects keep the names "
                          "the scenario gives them)")
        for key in list(meta.get("labels") or {}) + list(meta.get("annotations") or {}):
            if key.startswith("simian.chaos/") and key not in (MANAGED, BUNDLE, FAULT_UID, EXPIRES_AT):
                raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, f"{obj['kind']}/{meta['name']}: {key} is reserved")
    # duration
    seconds = fault.duration_seconds
    if seconds <= 0:
        raise _reject(STAGE_SAFETY, REASON_DURATION_OVER_CEILING, "duration must be positive")
    if seconds > config.duration_ceiling:
        raise _reject(STAGE_SAFETY, REASON_DURATION_OVER_CEILING,
                      f"duration {fault.duration} is over the ceiling of {config.duration_ceiling:g}s")
    # namespaces, metadata and spec
    held = held_namespaces(scenario)
    effective = tier
    for obj in bundle.objects:
        meta = obj["metadata"]
        where = f"{obj['kind']}/{meta['name']}"
        ns = meta.get("namespace")
        namespaced = scope(obj["apiVersion"], obj["kind"])
        if namespaced is True:
            if not ns:
                raise _reject(STAGE_SAFETY, REASON_NAMESPACE_NOT_ELIGIBLE, f"{where} has no namespace")
            if ns not in held:
                raise _reject(STAGE_SAFETY, REASON_NAMESPACE_NOT_ELIGIBLE,
                              f"{where} is in namespace {ns!r}, which the scenario does not hold "
                              f"(it holds {', '.join(sorted(held))})")
        elif namespaced is False:
            if ns:
                raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, f"{where} is cluster-scoped but names a namespace")
            need = CLUSTER_SCOPED_TIERS.get(obj["kind"], "external")
            if TIER_RANK[need] > TIER_RANK[effective]:
                effective = need
        for path, value in spec_namespaces(obj):
            if path.endswith("namespaceSelector"):
                names = _selector_names(value)
                if value is None:
                    continue
                if names is None or not names <= held:
                    raise _reject(STAGE_SAFETY, REASON_NAMESPACE_NOT_ELIGIBLE,
                                  f"{where} {path} selects namespaces beyond the ones the scenario holds")
                continue
            values = value if isinstance(value, list) else [value]
            bad = [str(v) for v in values if str(v) not in held]
            if bad:
                raise _reject(STAGE_SAFETY, REASON_NAMESPACE_NOT_ELIGIBLE,
                              f"{where} {path} names namespace(s) {', '.join(bad)}, which the scenario does not hold")
    if effective not in config.permitted_tiers:
        what = f"declared tier {tier!r}" if effective == tier else f"tier {effective!r} (cluster-scoped objects)"
        raise _reject(STAGE_SAFETY, REASON_TIER_NOT_PERMITTED,
                      f"{what} is not permitted (permitted: {', '.join(sorted(config.permitted_tiers))})")
    return effective


def validate_scopes(fault: FaultSpec, scenario: Scenario, bundle: Bundle, config: ExecutorConfig,
                    kube: Any) -> str:
    """:func:`validate` again with every kind placed by discovery (unknown kinds are refused)."""
    from pytest_simian.engines.kube_state_api import KubeError

    scopes: dict[tuple[str, str], bool] = {}
    for obj in bundle.objects:
        key = (obj["apiVersion"], obj["kind"])
        if key in scopes:
            continue
        try:
            scopes[key] = kube.for_kind(*key).namespaced
        except KubeError as exc:
            raise _reject(STAGE_SCHEMA, REASON_UNKNOWN_GVK, f"{key[1]} in {key[0]}: {exc.message}") from None
    return validate(fault, scenario, bundle, config, scope=lambda a, k: scopes[(a, k)])


def duplicate_objects(bundles: Sequence[Bundle]) -> list[str]:
    """Objects two faults of one scenario would both create (refused: they would fight over it)."""
    owner: dict[ObjectRef, int] = {}
    dups: list[str] = []
    for i, b in enumerate(bundles):
        for ref in b.refs():
            if ref in owner and owner[ref] != i:
                dups.append(f"{ref} (faults {owner[ref]} and {i})")
            owner.setdefault(ref, i)
    return dups


def fault_uid(attempt_id: str, index: int) -> str:
    return f"f-{attempt_id}-{index}"


# ---------------------------------------------------------------------------- the pipeline


@dataclass
class Environment:
    """What the executor needs from one attempt (built by the driver from its AttemptContext)."""

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


class Executor:
    """Applies and clears faults; one per process, shared by every attempt it runs."""

    def __init__(self, config: ExecutorConfig | None = None, *, registry: LeaseRegistry | None = None,
                 now: Callable[[], datetime] = clock.wall_now, sleep: Callable[[float], None] | None = None,
                 monotonic: Callable[[], float] = clock.monotonic) -> None:
        import time

        self.config = config or ExecutorConfig()
        self.registry = registry or LeaseRegistry()
        self.now = now
        self.sleep = sleep or time.sleep
        self.monotonic = monotonic
        self._lock = threading.Lock()
        self._slots: dict[str, str] = {}
        self._applied: dict[str, dict[ObjectRef, str]] = {}
        """attempt id → object → fault uid that created it (refuses a second fault creating the same)."""

    # ------------------------------------------------------------ inject

    def inject(self, fault: FaultSpec, index: int, bundle: Bundle, env: Environment, *,
               engine: str = "kube-state", before_write: Callable[[], None] | None = None) -> str:
        """received → validated → applied (staged) → lease → settled. Returns the fault uid.

        `before_write` runs once validation has passed and before anything of this fault is written (the
        driver takes the arena hold there), so a rejected fault writes nothing."""
        from pytest_simian import probes as P
        from pytest_simian.engines.kube_state_api import KubeError

        audit = env.audit
        uid = fault_uid(env.attempt_id, index)
        audit.emit(EXECUTOR_RECEIVED, fault_uid=uid, payload={"engine": engine, "kind": fault.kind,
                                                             "fault_index": index})

        def rejected(err: ExecutorError) -> ExecutorError:
            audit.emit(EXECUTOR_REJECTED, fault_uid=uid, reason=err.reason, payload={"error": str(err)})
            return err

        try:
            validate(fault, env.scenario, bundle, self.config)
            tier = validate_scopes(fault, env.scenario, bundle, self.config, env.kube)
        except ExecutorError as err:
            raise rejected(err) from None
        except KubeError as exc:
            raise rejected(ExecutorError(STAGE_SAFETY, REASON_SCHEMA_INVALID,
                                         "the cluster could not be asked about the objects", exc)) from None
        if before_write is not None:
            before_write()
        try:  # only once the namespaces are held: another attempt's objects are gone by then
            self._check_ownership(uid, bundle, env)
        except ExecutorError as err:
            raise rejected(err) from None
        except KubeError as exc:
            raise rejected(ExecutorError(STAGE_SAFETY, REASON_SCHEMA_INVALID,
                                         "the cluster could not be asked about the objects", exc)) from None
        slot = None
        with self._lock:  # the cap is counted and taken atomically with the apply that follows
            try:
                slot = self._take_slot(uid, env)
            except ExecutorError as err:
                raise rejected(err) from None
            deadline = expiry_after(fault.duration_seconds, self.now())
            refs = bundle.refs()
            self._applied.setdefault(env.attempt_id, {}).update({r: uid for r in refs})
            active = ActiveFault(uid, env.attempt_id, env.scenario.id, engine, fault.namespace, refs, self.now(),
                                 deadline)
            active.clear = lambda: self._clear_refs(active, env.kube, env.audit, env.cluster_clock, expired=True)
            # registered before the first write: a fault interrupted mid-apply is still cleared
            self.registry.register(active)
        audit.emit(EXECUTOR_VALIDATED, fault_uid=uid, payload={"tier": tier, "objects": [str(r) for r in refs]})
        waiter = P.Waiter(cluster_clock=env.cluster_clock, monotonic=self.monotonic, sleep=self.sleep)

        def on_result(probe: Any, outcome: P.ProbeOutcome, elapsed: float) -> None:
            audit.emit(P.EFFICACY_EVENT, fault_uid=uid, payload=P.efficacy_payload(index, probe, outcome, elapsed))

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
        for ref in bundle.refs():
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
        active = self.registry.get(uid) or ActiveFault(uid, env.attempt_id, env.scenario.id, "kube-state",
                                                       fault.namespace, bundle.refs(), self.now(), self.now())
        known = self.registry.get(uid) is not None
        self._clear_refs(active, env.kube, env.audit, env.cluster_clock, expired=False, announce=known, slots=env.slots)
        with self._lock:
            for ref in bundle.refs():
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
        from pytest_simian.engines.kube_state_api import KubeError

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
    import copy

    return copy.deepcopy(obj)


def objects_text(objs: Iterable[dict[str, Any]]) -> list[str]:
    return [str(ObjectRef.of(o)) for o in objs]
