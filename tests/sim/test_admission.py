"""LimitRange and ResourceQuota admission on create, and quota status bookkeeping, in the plugins' words."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_simian.sim.clock import VirtualClock
from pytest_simian.sim.errors import ApiError
from pytest_simian.sim.store import Store


def _store() -> Store:
    s = Store(VirtualClock(realtime=False))
    s.create("namespaces", {"metadata": {"name": "q"}})
    return s


def _pod(name: str, **resources: Any) -> dict[str, Any]:
    c: dict[str, Any] = {"name": "web", "image": "nginx:1.27"}
    if resources:
        c["resources"] = resources
    return {"metadata": {"name": name, "namespace": "q"}, "spec": {"containers": [c]}}


def test_quota_refuses_what_exceeds_it_and_tracks_used() -> None:
    s = _store()
    s.create("resourcequotas", {"metadata": {"name": "compute", "namespace": "q"},
                                "spec": {"hard": {"pods": "2", "limits.memory": "1Gi"}}})
    assert s.get("resourcequotas", "compute", "q")["status"] == {
        "hard": {"pods": "2", "limits.memory": "1Gi"}, "used": {"pods": "0", "limits.memory": "0"}}
    with pytest.raises(ApiError) as e:
        s.create("pods", _pod("nolimit"))
    assert e.value.code == 403
    assert e.value.message == ('pods "nolimit" is forbidden: failed quota: compute: must specify limits.memory '
                               "for: web")
    s.create("pods", _pod("a", limits={"memory": "512Mi"}))
    s.create("pods", _pod("b", limits={"memory": "256Mi"}))
    assert s.get("resourcequotas", "compute", "q")["status"]["used"] == {"pods": "2", "limits.memory": "768Mi"}
    with pytest.raises(ApiError) as e:
        s.create("pods", _pod("c", limits={"memory": "512Mi"}))
    assert e.value.message == ('pods "c" is forbidden: exceeded quota: compute, requested: '
                               "limits.memory=512Mi,pods=1, used: limits.memory=768Mi,pods=2, limited: "
                               "limits.memory=1Gi,pods=2")
    assert e.value.reason == "Forbidden"
    s.delete("pods", "b", "q")
    assert s.get("resourcequotas", "compute", "q")["status"]["used"] == {"pods": "1", "limits.memory": "512Mi"}
    s.create("pods", _pod("c", limits={"memory": "512Mi"}))


def test_object_count_quota() -> None:
    s = _store()  # the namespace already holds kube-root-ca.crt
    s.create("resourcequotas", {"metadata": {"name": "objects", "namespace": "q"},
                                "spec": {"hard": {"configmaps": "2"}}})
    s.create("configmaps", {"metadata": {"name": "one", "namespace": "q"}})
    with pytest.raises(ApiError) as e:
        s.create("configmaps", {"metadata": {"name": "two", "namespace": "q"}})
    assert e.value.message == ('configmaps "two" is forbidden: exceeded quota: objects, requested: configmaps=1, '
                               "used: configmaps=2, limited: configmaps=2")


def test_limit_range_defaults_and_bounds() -> None:
    s = _store()
    s.create("limitranges", {"metadata": {"name": "lr", "namespace": "q"}, "spec": {"limits": [{
        "type": "Container", "default": {"memory": "256Mi"}, "defaultRequest": {"memory": "128Mi"},
        "max": {"memory": "512Mi"}}]}})
    p = s.create("pods", _pod("d"))
    assert p["status"]["qosClass"] == "Burstable"
    assert p["spec"]["containers"][0]["resources"] == {"limits": {"memory": "256Mi"},
                                                       "requests": {"memory": "128Mi"}}
    with pytest.raises(ApiError) as e:
        s.create("pods", _pod("big", limits={"memory": "1Gi"}))
    assert e.value.message == 'pods "big" is forbidden: maximum memory usage per Container is 512Mi, but limit is 1Gi'


def test_requests_default_to_limits_on_pods() -> None:
    s = _store()
    p = s.create("pods", _pod("g", limits={"cpu": "1", "memory": "1Gi"}))
    assert p["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1Gi"}
    assert p["status"]["qosClass"] == "Guaranteed"
