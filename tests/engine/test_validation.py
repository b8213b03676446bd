"""The executor refuses, before any write, every way a fault could reach beyond what its scenario holds."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_simian import clock
from pytest_simian.cluster.base import ClusterHandle, ClusterIdentity
from pytest_simian.engines.kube_state import KubeStateEngine, render
from pytest_simian.errors import InjectError, PackError
from pytest_simian.executor import (
    Environment,
    Executor,
    ExecutorConfig,
    ExecutorError,
    Pipeline,
    check_scenario,
    validate,
)
from pytest_simian.pack.models import FaultSpec, Scenario
from pytest_simian.record.audit import AuditLog
from pytest_simian.record.events import EXECUTOR_RECEIVED, EXECUTOR_REJECTED
from tests.engine.fakes import FakeKube
from tests.engine.harness import FixedCluster, context, events, names, scenario

ENGINES = {"kube-state": KubeStateEngine()}


class FakeHandle(ClusterHandle):
    """A started cluster whose harness client is a FakeKube (every write recorded)."""

    def __init__(self, kube: FakeKube) -> None:
        self.kube = kube
        self.identity = ClusterIdentity(backend="fake", description="fake")

    def harness_client(self) -> FakeKube:
        return self.kube

    def subject_kubeconfig(self, attempt_id: str, directory: Any) -> Any:
        raise AssertionError("no subject here")

    def close(self) -> None:
        pass


def with_fault(sc: Scenario, fault: FaultSpec) -> Scenario:
    """The scenario holding `fault` as built (model_copy: a fault that bypassed the model stays as it is)."""
    return sc.model_copy(update={"faults": [fault]})


def check(fault: FaultSpec, sc: Scenario) -> None:
    check_scenario(with_fault(sc, fault), ENGINES, ExecutorConfig())

PROBE = {"name": "it exists", "type": "k8s", "resource": "pods", "jsonpath": "{.items[*].metadata.name}",
         "contains": "x"}


def deploy(ns: str | None = "shop", **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "web"}
    if ns is not None:
        meta["namespace"] = ns
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "app", "image": "busybox:1.36"}]}}}, **extra}


ADVERSARIAL: list[tuple[str, list[dict[str, Any]], dict[str, Any], str]] = [
    ("escape through metadata", [deploy("kube-system")], {}, "namespace-not-eligible"),
    ("escape through a spec selector",
     [{"apiVersion": "chaos-mesh.org/v1alpha1", "kind": "PodChaos", "metadata": {"name": "p"},
       "spec": {"action": "pod-kill", "mode": "all", "selector": {"namespaces": ["kube-system"]}}}],
     {}, "namespace-not-eligible"),
    ("escape through a namespaceSelector that selects every namespace",
     [{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"},
       "spec": {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {}}]}]}}],
     {}, "namespace-not-eligible"),
    ("escape through a namespaceSelector naming another namespace",
     [{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"},
       "spec": {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {
           "kubernetes.io/metadata.name": "kube-system"}}}]}]}}],
     {}, "namespace-not-eligible"),
    ("escape through a subject's namespace",
     [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb"},
       "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "admin"},
       "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"}]}],
     {}, "namespace-not-eligible"),
    ("a cluster-scoped object", [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                                  "metadata": {"name": "everything"}, "rules": []}], {}, "tier-not-permitted"),
    ("a namespace object", [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}}], {},
     "tier-not-permitted"),
    ("a node object under a namespace tier", [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}], {},
     "tier-not-permitted"),
    ("an unknown tier", [deploy()], {"tier": "cluster"}, "schema-invalid"),
    ("a zero duration", [deploy()], {"duration": "0s"}, "duration-over-ceiling"),
    ("a duration over the ceiling", [deploy()], {"duration": "48h"}, "duration-over-ceiling"),
    ("a reserved mark", [{**deploy(), "metadata": {"name": "web", "namespace": "shop",
                                                   "labels": {"simian.chaos/kind": "ContainerExitLoop"}}}], {},
     "schema-invalid"),
    ("a generated name", [{**deploy(), "metadata": {"generateName": "web-", "name": "web", "namespace": "shop"}}], {},
     "schema-invalid"),
    ("a kind the cluster does not serve", [{"apiVersion": "example.com/v1", "kind": "Gadget",
                                            "metadata": {"name": "g", "namespace": "shop"}}], {}, "unknown-gvk"),
]


def _fault(objects: list[dict[str, Any]], **over: Any) -> FaultSpec:
    base = FaultSpec.model_validate({"kind": "Manifests", "namespace": "shop", "manifests": objects,
                                     "probes": [PROBE], "duration": "30m"})
    if over:  # bypass the model's own refusals: the executor must refuse on its own
        return FaultSpec.model_construct(**{**base.__dict__, **over})
    return base


@pytest.mark.parametrize(("what", "objects", "over", "reason"), ADVERSARIAL, ids=[a[0] for a in ADVERSARIAL])
def test_rejected_before_any_write(what: str, objects: list[dict[str, Any]], over: dict[str, Any], reason: str,
                                   audit: AuditLog) -> None:
    fault = _fault(objects, **over)
    sc = scenario([{"kind": "Manifests", "namespace": "shop", "manifests": [deploy()], "probes": [PROBE]}])
    kube = FakeKube()
    ex = Executor(ENGINES, FixedCluster(FakeHandle(kube)), audit)
    with pytest.raises(ExecutorError) as info:
        ex.inject(context(with_fault(sc, fault), settle_seconds=5, attempt_id="a1"), 0)
    assert info.value.reason == reason, str(info.value)
    assert isinstance(info.value, InjectError)
    assert str(info.value).startswith(f"executor[{info.value.stage}:{reason}]")
    assert kube.writes == []  # not even the arena's hold Lease: nothing was written
    evs = events(audit)
    assert names(evs) == [EXECUTOR_RECEIVED, EXECUTOR_REJECTED]
    assert evs[1]["reason"] == reason and "executor[" in evs[1]["payload"]["error"]


@pytest.mark.parametrize(("what", "objects", "over", "reason"),
                         [a for a in ADVERSARIAL if a[3] != "unknown-gvk"], ids=[a[0] for a in ADVERSARIAL
                                                                                 if a[3] != "unknown-gvk"])
def test_refused_at_load_too(what: str, objects: list[dict[str, Any]], over: dict[str, Any], reason: str) -> None:
    """What can be refused without a cluster is refused before anything runs (a usage error)."""
    fault = _fault(objects, **over)
    sc = scenario([{"kind": "Manifests", "namespace": "shop", "manifests": [deploy()], "probes": [PROBE]}])
    with pytest.raises(PackError):
        check(fault, sc)


def test_a_valid_manifest_passes_and_gets_its_namespace(audit: AuditLog) -> None:
    fault = _fault([deploy(None)])
    sc = scenario([{"kind": "Manifests", "namespace": "shop", "manifests": [deploy()], "probes": [PROBE]}])
    bundle = render(fault)
    assert bundle.objects[0]["metadata"]["namespace"] == "shop"
    assert validate(fault, sc, bundle, ExecutorConfig()) == "namespace"


def test_namespaces_the_prompt_names_are_held() -> None:
    sc = scenario([{"kind": "Manifests", "namespace": "shop", "manifests": [deploy()], "probes": [PROBE]}],
                  prompt_ns="shop")
    fault = _fault([deploy("shop")])
    assert validate(fault, sc, render(fault), ExecutorConfig()) == "namespace"


def test_the_tier_policy_is_configurable_and_enforced() -> None:
    node = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}]
    fault = _fault(node, tier="node")
    sc = scenario([{"kind": "Manifests", "namespace": "shop", "manifests": [deploy()], "probes": [PROBE]}])
    with pytest.raises(ExecutorError, match="tier-not-permitted"):
        validate(fault, sc, render(fault), ExecutorConfig())
    wider = ExecutorConfig(permitted_tiers=frozenset({"namespace", "node"}))
    assert validate(fault, sc, render(fault), wider) == "node"
    # an under-declared tier is escalated, never trusted
    with pytest.raises(ExecutorError, match="tier-not-permitted"):
        validate(_fault(node), sc, render(_fault(node)), ExecutorConfig(permitted_tiers=frozenset({"namespace"})))
    with pytest.raises(ValueError, match="unknown tier"):
        ExecutorConfig(permitted_tiers=frozenset({"namespace", "cluster"}))


def test_mutate_mode_and_node_tier_are_refused_with_a_reason() -> None:
    sc = scenario([{"kind": "ContainerExitLoop", "namespace": "shop"}])
    with pytest.raises(PackError, match="mutate"):
        check(FaultSpec.model_validate({"kind": "ContainerExitLoop", "namespace": "shop", "mode": "mutate"}), sc)
    with pytest.raises(PackError, match="node-tier"):
        check(FaultSpec.model_validate({"kind": "ContainerExitLoop", "namespace": "shop", "tier": "node"}), sc)


def test_names_that_leak_the_fault_are_refused() -> None:
    sc = scenario([{"kind": "ContainerExitLoop", "namespace": "shop",
                    "params": {"deployments": [{"name": "crashloop-demo"}]}}])
    with pytest.raises(PackError, match="name the fault"):
        check_scenario(sc, ENGINES, ExecutorConfig())
    sc = scenario([{"kind": "OOMKill", "namespace": "shop",
                    "params": {"deployments": [{"name": "web", "podLabels": {"scenario": "oomkill"}}]}}])
    with pytest.raises(PackError, match="name the fault"):
        check_scenario(sc, ENGINES, ExecutorConfig())


def test_two_faults_creating_one_object_are_refused() -> None:
    sc = scenario([{"kind": "ContainerExitLoop", "namespace": "shop"}, {"kind": "NoOp", "namespace": "shop"}])
    with pytest.raises(PackError, match="same object"):
        check_scenario(sc, ENGINES, ExecutorConfig())


def test_the_concurrency_cap_is_taken_with_the_apply(audit: AuditLog) -> None:
    from pytest_simian.arena import HoldLocks

    kube = FakeKube()
    sc = scenario([{"kind": "NoOp", "namespace": "shop", "params": {"deployments": [{"name": "a"}]},
                    "probes": [PROBE]},
                   {"kind": "NoOp", "namespace": "shop", "params": {"deployments": [{"name": "b"}]},
                    "probes": [PROBE]}])
    ex = Pipeline(ExecutorConfig(max_concurrent_faults=1))
    env = Environment(attempt_id="a1", scenario=sc, audit=audit, kube=kube, settle_deadline=clock.monotonic(),
                      progress=lambda _l: None, slots=HoldLocks(kube, namespace="kube-system"))
    f0, f1 = sc.faults
    with pytest.raises(ExecutorError, match="efficacy-failed"):  # applied, then its probe finds no pod
        ex.land(f0, 0, render(f0), env, tier=ex.admit(f0, 0, render(f0), env, engine="kube-state"), engine="kube-state")
    writes = len(kube.writes)
    with pytest.raises(ExecutorError) as info:
        ex.land(f1, 1, render(f1), env, tier=ex.admit(f1, 1, render(f1), env, engine="kube-state"), engine="kube-state")
    assert info.value.reason == "budget-exceeded"
    assert [w for w in kube.writes[writes:] if w[0] == "apply"] == []
    assert ex.registry.get("f-a1-0") is not None and ex.registry.get("f-a1-1") is None
