"""The executor: the one path every fault takes onto a cluster.

Why: the eval must not have a privileged back door, or it stops measuring the product. The lifecycle
calls only this class to inject and to clear. For each fault it asks the fault's engine to *render* a
bundle (the engine's only job), then owns everything else: static validation at configure time
(`check`), the backend's NOT VALID answer before any write (`not_valid`), admission against the live
cluster, the session-start sweep of what dead runners left, the arena hold, leases, the concurrency cap,
apply, the efficacy probes (every `fault.efficacy` event is its own), clear and verify, and every audit
event on the way. An engine is handed a fault and a scenario, never the audit log, the cluster or the
arena, so nothing that can be wrong about a fault may grade it.
Must not: know what a fault kind means (engines do), talk to a subject, or score.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_simian import clock
from pytest_simian.arena import Arena, ArenaError, ArenaHold, HoldLocks
from pytest_simian.bundle import Bundle
from pytest_simian.cluster.base import ClusterBackend, ClusterHandle
from pytest_simian.cluster.kube import KubeError
from pytest_simian.engines.base import Engine
from pytest_simian.errors import ClearError, HarnessError, InjectError, PackError
from pytest_simian.executor.pipeline import Environment, Pipeline
from pytest_simian.executor.policy import ExecutorConfig, ExecutorError
from pytest_simian.executor.validation import check_bundle, duplicate_objects, held_namespaces
from pytest_simian.leases import Reaper, expiry_after
from pytest_simian.pack.catalog import Catalog
from pytest_simian.pack.models import FaultSpec, Scenario
from pytest_simian.record.audit import AuditLog


@dataclass
class AttemptRef:
    """What the executor is told about one attempt: who it is, what it runs, by when its faults must land."""

    attempt_id: str
    scenario: Scenario
    settle_deadline: float
    """Monotonic time by which every Settle probe must have passed (time waiting for the arena is added)."""
    progress: Callable[[str], None] = field(default=lambda _line: None)
    """Say what is pending (shown with -v)."""


class ClusterAccess(Protocol):
    """How the executor reaches its cluster: the backend (asked NOT VALID questions) and a handle started
    on first need. :class:`pytest_simian.cluster.manager.ClusterManager` is the one the plugin uses."""

    backend: ClusterBackend

    def get(self) -> ClusterHandle: ...


@dataclass
class _Runtime:
    """The per-process state behind every attempt: one client, one arena, one reaper, the holds."""

    handle: ClusterHandle
    kube: Any
    arena: Arena
    slots: HoldLocks
    reaper: Reaper
    swept: bool = False
    holds: dict[str, ArenaHold] = field(default_factory=dict)
    waited: dict[str, float] = field(default_factory=dict)
    """attempt id → seconds spent waiting for the arena (the settle deadline starts once it is held)."""


def engine_catalog(engines: Mapping[str, Engine]) -> Catalog:
    return Catalog.of((name, list(e.catalog())) for name, e in engines.items())


def check_scenario(scenario: Scenario, engines: Mapping[str, Engine], config: ExecutorConfig,
                   catalog: Catalog | None = None) -> None:
    """Everything that can be refused without a cluster, for every fault of `scenario`: the engine's own
    check, that it renders, and the executor's static validation of what it renders (the same checks run
    again at inject time on the attempt's own rendering). Raises PackError with the field that is wrong
    (`faults[1].params`)."""
    catalog = catalog or engine_catalog(engines)
    bundles = []
    for i, fault in enumerate(scenario.faults):
        engine = _engine(engines, fault, i)
        try:
            engine.check(fault, scenario)
        except PackError as exc:
            raise PackError(exc.detail, field=f"faults[{i}]" + (f".{exc.field}" if exc.field else "")) from None
        bundle = _render(engine, fault, field_prefix=f"faults[{i}]")
        try:
            check_bundle(fault, scenario, bundle, config, catalog)
        except ExecutorError as exc:
            raise PackError(f"the executor would refuse this fault: {exc}", field=f"faults[{i}]") from None
        bundles.append(bundle)
    dups = duplicate_objects(bundles)
    if dups:
        raise PackError("two faults of the scenario would create the same object: " + ", ".join(dups),
                        field="faults")


def _engine(engines: Mapping[str, Engine], fault: FaultSpec, index: int) -> Engine:
    engine = engines.get(fault.engine)
    if engine is None:
        raise PackError(f"no installed engine provides {fault.engine!r} (installed: "
                        f"{', '.join(sorted(engines)) or 'none'})", field=f"faults[{index}].engine")
    return engine


def _render(engine: Engine, fault: FaultSpec, *, field_prefix: str) -> Bundle:
    try:
        bundle = engine.render(fault)
    except PackError as exc:
        raise PackError(exc.detail, field=field_prefix + (f".{exc.field}" if exc.field else "")) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise PackError(f"params do not render a {fault.kind} bundle: {exc}",
                        field=f"{field_prefix}.params") from None
    if not isinstance(bundle, Bundle):
        raise PackError(f"engine {engine.name!r} rendered {type(bundle).__name__}, not a Bundle",
                        field=field_prefix)
    return bundle


class Executor:
    """The chokepoint. One per process, shared by every attempt the process runs."""

    def __init__(self, engines: Mapping[str, Engine], cluster: ClusterAccess, audit: AuditLog,
                 config: ExecutorConfig | None = None, *, pipeline: Pipeline | None = None) -> None:
        self.config = config or ExecutorConfig()
        self.engines = dict(engines)
        self.catalog = engine_catalog(self.engines)
        self.cluster = cluster
        self.audit = audit
        self.pipeline = pipeline or Pipeline(self.config)
        self.pipeline.failure_kinds = self.catalog.failure_kinds()
        self._lock = threading.Lock()
        self._rt: _Runtime | None = None
        self._bundles: dict[tuple[str, int], Bundle] = {}

    # ------------------------------------------------------------ configure time (no cluster)

    def check(self, scenario: Scenario) -> None:
        """:func:`check_scenario` with this executor's engines and policy."""
        check_scenario(scenario, self.engines, self.config, self.catalog)

    # ------------------------------------------------------------ one attempt

    def bundle(self, ref: AttemptRef, index: int) -> Bundle:
        """The attempt's rendering of fault `index`, rendered once (CertExpiry mints a key per render)."""
        key = (ref.attempt_id, index)
        with self._lock:
            if key not in self._bundles:
                fault = ref.scenario.faults[index]
                try:
                    self._bundles[key] = _render(_engine(self.engines, fault, index), fault,
                                                 field_prefix=f"faults[{index}]")
                except PackError as exc:
                    raise InjectError(f"the engine could not render the fault: {exc}", stage="render") from None
            return self._bundles[key]

    def not_valid(self, ref: AttemptRef) -> str | None:
        """Why the scenario cannot be represented on this cluster, asked of the backend before any write;
        None when it can."""
        for i in range(len(ref.scenario.faults)):
            why = self.cluster.backend.not_valid(self.bundle(ref, i), ref.scenario)
            if why:
                return f"fault {i}: {why}" if len(ref.scenario.faults) > 1 else why
        return None

    def inject(self, ref: AttemptRef, index: int) -> str:
        """Fault `index` of the attempt: admitted, arena held, applied, leased, gated on its probes. Returns
        the fault uid. Raises InjectError (NOT SCORED) when it does not land, HarnessError when the rig fails."""
        fault = ref.scenario.faults[index]
        engine = self.engines[fault.engine]
        bundle = self.bundle(ref, index)
        rt = self._runtime()
        env = self._environment(ref, rt)
        tier = self.pipeline.admit(fault, index, bundle, env, engine=engine.name)
        self._hold(ref, rt)
        env.settle_deadline = ref.settle_deadline + rt.waited.get(ref.attempt_id, 0.0)
        return self.pipeline.land(fault, index, bundle, env, tier=tier, engine=engine.name)

    def clear(self, ref: AttemptRef, index: int) -> None:
        """Delete what fault `index` created and verify it is gone. Idempotent; ClearError otherwise."""
        rt = self._rt
        if rt is None:
            return
        fault = ref.scenario.faults[index]
        try:
            self.pipeline.clear(fault, index, self.bundle(ref, index), self._environment(ref, rt))
        except KubeError as exc:
            raise ClearError(f"fault {index}: {exc}") from None

    def release(self, ref: AttemptRef) -> list[str]:
        """The attempt is over: give back its arena (deleting the namespaces the rig created). Returns what
        could not be removed."""
        with self._lock:
            for key in [k for k in self._bundles if k[0] == ref.attempt_id]:
                del self._bundles[key]
        rt = self._rt
        if rt is None:
            return []
        rt.waited.pop(ref.attempt_id, None)
        hold = rt.holds.pop(ref.attempt_id, None)
        return rt.arena.leave(hold) if hold is not None else []

    # ------------------------------------------------------------ the process's cluster state

    def _runtime(self) -> _Runtime:
        with self._lock:
            if self._rt is None:
                # asked once: at teardown after an interrupt the handle may already be closed, and asking
                # again would start another cluster instead of clearing this one
                try:
                    handle = self.cluster.get()
                    kube = handle.harness_client()
                except (KubeError, OSError) as exc:
                    raise HarnessError(f"the cluster cannot be reached: {exc}", stage="inject") from None
                self._rt = _Runtime(handle=handle, kube=kube,
                                    arena=Arena(kube, self.audit, cluster_clock=handle.clock),
                                    slots=HoldLocks(kube), reaper=Reaper(kube, self.audit))
            return self._rt

    def _environment(self, ref: AttemptRef, rt: _Runtime) -> Environment:
        return Environment(attempt_id=ref.attempt_id, scenario=ref.scenario, audit=self.audit, kube=rt.kube,
                           settle_deadline=ref.settle_deadline + rt.waited.get(ref.attempt_id, 0.0),
                           progress=ref.progress, cluster_clock=rt.handle.clock, slots=rt.slots)

    def _hold(self, ref: AttemptRef, rt: _Runtime) -> None:
        """The session-start sweep (once), then the attempt's arena hold (once per attempt)."""
        try:
            if not rt.swept:  # what a dead runner left past its expiry
                rt.swept = True
                rt.reaper.sweep_cluster()
                rt.arena.locks.reap_stale()
                rt.slots.reap_stale()
                rt.reaper.start(self.pipeline.registry)
            if ref.attempt_id not in rt.holds:
                longest = max(f.duration_seconds for f in ref.scenario.faults)
                t0 = clock.monotonic()
                rt.holds[ref.attempt_id] = rt.arena.enter(
                    ref.attempt_id, sorted(held_namespaces(ref.scenario)), control=ref.scenario.is_control,
                    expires_at=expiry_after(longest), progress=ref.progress)
                # time spent waiting for another attempt to finish is not this fault's settle time
                rt.waited[ref.attempt_id] = clock.monotonic() - t0
        except ArenaError as exc:
            raise HarnessError(str(exc), stage="arena") from None
        except KubeError as exc:
            raise HarnessError(f"the arena could not be prepared: {exc}", stage="arena") from None

    def close(self) -> None:
        """Shutdown: clear what interrupted attempts could not, give back every hold, stop the reaper."""
        rt = self._rt
        if rt is None:
            return
        rt.reaper.stop()
        try:  # faults an interrupted attempt could not clear itself: clear them first
            self.pipeline.clear_all(rt.kube, self.audit, rt.handle.clock, rt.slots)
        except Exception:  # noqa: BLE001 - best effort at shutdown; the reaper finds what is left
            pass
        for hold in list(rt.holds.values()):
            try:
                rt.arena.leave(hold)
            except Exception:  # noqa: BLE001 - best effort at shutdown
                pass
        rt.holds.clear()
        for locks in (rt.slots, rt.arena.locks):
            try:
                locks.close()
            except Exception:  # noqa: BLE001 - best effort at shutdown
                pass
        close = getattr(rt.kube, "close", None)
        if close is not None:
            close()
