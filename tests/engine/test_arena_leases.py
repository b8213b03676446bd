"""Holds are exclusive through the cluster; only the rig's namespaces are deleted; the reaper finds what a
dead runner left and attributes it to the old attempt."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_simian import clock
from pytest_simian.arena import ARENA_ADOPTED, ELIGIBLE, Arena, ArenaError, HoldLocks
from pytest_simian.leases import (
    BUNDLE,
    EXPIRES_AT,
    FAULT_UID,
    MANAGED,
    Reaper,
    format_expiry,
)
from pytest_simian.record.audit import AuditLog
from tests.engine.harness import context, events, executor, names, scenario


def _arena(kube: Any, audit: AuditLog, token: str, **kw: Any) -> Arena:
    return Arena(kube, audit, holder_token=token, wait_timeout=kw.pop("wait_timeout", 1.0), poll=0.1, **kw)


def _later() -> Any:
    return clock.wall_now() + timedelta(hours=1)


def test_a_namespace_is_held_by_one_attempt_at_a_time(kube: Any, audit: AuditLog) -> None:
    a, b = _arena(kube, audit, "one"), _arena(kube, audit, "two")
    hold = a.enter("a1", ["ledger"], control=False, expires_at=_later())
    try:
        with pytest.raises(ArenaError, match="another attempt"):
            b.enter("a2", ["ledger", "other"], control=False, expires_at=_later())
        # a disjoint namespace is fine
        other = b.enter("a3", ["other"], control=False, expires_at=_later())
        b.leave(other)
    finally:
        a.leave(hold)
    again = b.enter("a2", ["ledger"], control=False, expires_at=_later())
    b.leave(again)
    a.close()
    b.close()


def test_a_control_holds_the_whole_cluster(kube: Any, audit: AuditLog) -> None:
    a, c = _arena(kube, audit, "fault"), _arena(kube, audit, "ctl")
    hold = a.enter("a1", ["ledger"], control=False, expires_at=_later())
    with pytest.raises(ArenaError):
        c.enter("a9", ["quiet"], control=True, expires_at=_later())  # a fault is live somewhere
    a.leave(hold)
    ctl = c.enter("a9", ["quiet"], control=True, expires_at=_later())
    with pytest.raises(ArenaError):
        a.enter("a1", ["ledger"], control=False, expires_at=_later())  # the control holds everything
    c.leave(ctl)
    a.close()
    c.close()


def test_a_dead_holders_lock_is_taken_over_once_stale(kube: Any) -> None:
    dead = HoldLocks(kube, ttl=30)
    assert dead.try_acquire("arena-ns-stale", "dead-runner")
    dead._stop.set()  # the runner died: nobody renews
    alive = HoldLocks(kube, ttl=30)
    assert not alive.try_acquire("arena-ns-stale", "next-run")
    later = HoldLocks(kube, ttl=30, now=lambda: clock.wall_now() + timedelta(seconds=61))
    assert later.try_acquire("arena-ns-stale", "next-run")
    later.release("arena-ns-stale")
    # the session-start sweep removes a dead runner's holds outright
    assert dead.try_acquire("arena-ns-left", "dead-runner")
    assert alive.reap_stale() == []
    assert later.reap_stale() == ["arena-ns-left"]
    later.close()
    alive.close()


def test_only_namespaces_the_rig_created_are_deleted(kube: Any, audit: AuditLog) -> None:
    ns_res = kube.for_kind("v1", "Namespace")
    kube.create(ns_res, None, {"metadata": {"name": "existing"}})
    a = _arena(kube, audit, "pre")
    hold = a.enter("a1", ["existing", "fresh"], control=False, expires_at=_later())
    assert hold.created == ["fresh"] and hold.adopted == ["existing"]
    fresh = kube.get(ns_res, None, "fresh")["metadata"]
    assert fresh["labels"][MANAGED] == "true" and fresh["labels"][BUNDLE] == "a1" and EXPIRES_AT in fresh["annotations"]
    assert a.leave(hold) == []
    existing = kube.get_or_none(ns_res, None, "existing")
    assert existing is not None and existing["metadata"]["annotations"][ELIGIBLE] == "true"
    assert MANAGED not in (existing["metadata"].get("labels") or {})
    assert kube.get_or_none(ns_res, None, "fresh") is None
    adopted = [e for e in events(audit) if e["event"] == ARENA_ADOPTED]
    assert adopted and adopted[0]["payload"]["namespace"] == "existing"
    kube.delete(ns_res, None, "existing")
    a.close()


def _managed_cm(name: str, ns: str, bundle: str, expires: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ns,
                         "labels": {MANAGED: "true", BUNDLE: bundle, FAULT_UID: f"f-{bundle}-0"},
                         "annotations": {EXPIRES_AT: format_expiry(expires)}}, "data": {"k": "v"}}


def test_the_reaper_clears_what_a_dead_run_left_under_the_old_attempt(kube: Any, audit: AuditLog) -> None:
    cms = kube.for_kind("v1", "ConfigMap")
    kube.apply(_managed_cm("left-behind", "default", "aold00000001", clock.wall_now() - timedelta(minutes=5)))
    kube.apply(_managed_cm("still-live", "default", "alive0000001", _later()))
    kube.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "not-ours", "namespace": "default"}})
    with audit.attempt("anew00000001", "some-scenario"):
        reaped = Reaper(kube, audit).sweep_cluster()
    assert [r.attempt_id for r in reaped] == ["aold00000001"]
    assert kube.get_or_none(cms, "default", "left-behind") is None
    assert kube.get_or_none(cms, "default", "still-live") is not None
    assert kube.get_or_none(cms, "default", "not-ours") is not None
    ev = [e for e in events(audit) if e["event"] == "lease.expired"]
    assert len(ev) == 1 and ev[0]["attempt_id"] == "aold00000001" and ev[0]["reason"] == "deadline-reached"
    assert "scenario_id" not in ev[0]  # never joins this run's attempt
    for name in ("still-live", "not-ours"):
        kube.delete(cms, "default", name)


def test_a_lapsed_lease_during_the_run_is_an_expiry_not_a_remediation(sim: Any, kube: Any, audit: AuditLog) -> None:
    sc = scenario([{"kind": "NoOp", "namespace": "shop", "duration": "1s"}])
    ex = executor(sim, audit)
    ctx = context(sc, audit, sim, attempt_id="a0000000000f1")
    with audit.attempt(ctx.attempt_id, sc.id):
        ex.inject(ctx, 0)
    reaper = Reaper(kube, audit, now=lambda: clock.wall_now() + timedelta(seconds=5))
    done = reaper.sweep_registry(ex.pipeline.registry)  # from the reaper's thread: no attempt context
    assert [f.fault_uid for f in done] == ["f-a0000000000f1-0"]
    with audit.attempt(ctx.attempt_id, sc.id):
        ex.clear(ctx, 0)  # the lifecycle's clear afterwards finds nothing left to do
        ex.release(ctx)
    ex.close()
    evs = events(audit)
    expired = [e for e in evs if e["event"] == "lease.expired"]
    assert len(expired) == 1 and expired[0]["attempt_id"] == ctx.attempt_id and expired[0]["scenario_id"] == sc.id
    assert "lease.cleared" not in names(evs)
    assert kube.get_or_none(kube.for_kind("apps/v1", "Deployment"), "shop", "web") is None


def test_an_interrupted_settle_still_clears_and_releases(sim: Any, kube: Any, audit: AuditLog) -> None:
    """Ctrl-C during settle: the lifecycle's teardown clears what was applied and the holds go."""
    sc = scenario([{"kind": "ContainerExitLoop", "namespace": "shop"}])
    ex = executor(sim, audit)
    ctx = context(sc, audit, sim, attempt_id="a0000000000f2")
    import pytest_simian.probes as P

    real = P.evaluate

    def interrupt(*a: Any, **kw: Any) -> Any:
        raise KeyboardInterrupt

    P.evaluate = interrupt  # type: ignore[assignment]
    try:
        with pytest.raises(KeyboardInterrupt), audit.attempt(ctx.attempt_id, sc.id):
            ex.inject(ctx, 0)
    finally:
        P.evaluate = real  # type: ignore[assignment]
    assert kube.get_or_none(kube.for_kind("apps/v1", "Deployment"), "shop", "web") is not None
    with audit.attempt(ctx.attempt_id, sc.id):
        ex.clear(ctx, 0)
        ex.release(ctx)
    ex.close()
    assert kube.get_or_none(kube.for_kind("v1", "Namespace"), None, "shop") is None
    holds = [h["metadata"]["name"] for h in kube.list(kube.resolve("leases"), "kube-system")
             if h["metadata"]["name"].startswith("arena-")]
    assert holds == []
    # the virtual clock is back in real time for whatever comes next
    assert "realtime" in sim.clock._pipe.call("now") and sim.clock._pipe.call("now")["realtime"] is True
