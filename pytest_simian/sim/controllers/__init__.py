"""The embedded cluster's controllers and kubelets, registered on a store in one call.

Why: the API server assembly (``server.py``) and tests need one entry point that makes a store behave like
a running cluster: ``install(store)`` registers the scheduler, the ReplicaSet, Deployment, Job, Endpoints/
EndpointSlice, PersistentVolume and disruption (PDB status) controllers and one simulated kubelet per node
as store controllers (started as asyncio tasks by ``store.start_controllers()`` or by the server).
Must not: start anything itself outside the store's controller mechanism; read the host clock.
"""

from __future__ import annotations

from typing import Any

__all__ = ["install", "drive"]


def install(store: Any) -> dict[str, Any]:
    """Register every controller and a kubelet per node on ``store``; returns them by name."""
    from pytest_simian.sim.controllers.disruption import DisruptionController
    from pytest_simian.sim.controllers.jobs import JobController
    from pytest_simian.sim.controllers.network import EndpointsController, VolumeBinder
    from pytest_simian.sim.controllers.scheduler import Scheduler
    from pytest_simian.sim.controllers.workloads import DeploymentController, ReplicaSetController
    from pytest_simian.sim.kubelet import Kubelet, StoreEnvironment

    made: dict[str, Any] = {
        "scheduler": Scheduler(store),
        "replicaset": ReplicaSetController(store),
        "deployment": DeploymentController(store),
        "job": JobController(store),
        "endpoints": EndpointsController(store),
        "volumes": VolumeBinder(store),
        "disruption": DisruptionController(store),
    }
    env = StoreEnvironment(store, [])
    for node in store.items("nodes"):
        name = node["metadata"]["name"]
        k = Kubelet(store, name, env=env)
        k.install()
        made[f"kubelet/{name}"] = k
    for name, ctl in made.items():
        store.add_controller(name, lambda _s, c=ctl: c.run())
    return made


def _reconcile(ctl: Any) -> float | None:
    fn = getattr(ctl, "reconcile", None) or ctl.sync_once
    return fn()  # type: ignore[no-any-return]


def drive(store: Any, made: dict[str, Any], seconds: float, *, max_rounds: int = 100000) -> None:
    """Run every controller synchronously while moving a frozen virtual clock ``seconds`` forward.

    Deterministic stand-in for the asyncio tasks (tests, benchmarks, a harness fast-forward): reconcile
    until nothing writes, then jump the clock to the earliest wake-up, until ``seconds`` have passed.
    """
    clock = store.clock
    end = clock.timestamp() + seconds
    for _ in range(max_rounds):
        wakes: list[float] = []
        for _quiet in range(200):
            before = store.resource_version
            wakes = [w for w in (_reconcile(c) for c in made.values()) if w is not None]
            if store.resource_version == before:
                break
        now = clock.timestamp()
        nxt = min([w for w in wakes if w > now] + [end])
        if nxt <= now:
            nxt = min(end, now + 0.001)
        if now >= end:
            return
        clock.advance(nxt - now)
    raise RuntimeError("the embedded cluster did not settle")
