"""kubectl JSONPath templates render exactly as the pinned kubectl prints them."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from pytest_simian.jsonpath import JSONPathError, go_json, parse_jsonpath, render_jsonpath
from pytest_simian.kubectl import pinned_kubectl_dir

PODS: dict[str, Any] = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [
    {"kind": "Pod", "metadata": {"name": "a", "labels": {"app": "x", "kubernetes.io/name": "n"}},
     "status": {"phase": "Running", "containerStatuses": [
         {"name": "app", "ready": True, "restartCount": 2, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}},
    {"kind": "Pod", "metadata": {"name": "b"},
     "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                    "reason": "Unschedulable", "message": "0/1 nodes <ok> & more"}]}},
]}

CASES = [
    ("{.items[*].status.phase}", "Running Pending"),
    ("{.items[*].status.containerStatuses[*].state.waiting.reason}", "CrashLoopBackOff"),
    ("{.items[*].status.conditions[*].reason}", "Unschedulable"),
    ('{range .items[*]}{.metadata.name}{"\\t"}{.status.phase}{"\\n"}{end}', "a\tRunning\nb\tPending\n"),
    ("{range .items[*]}[{.metadata.name}]{end} after", "[a][b] after"),
    ('{.items[?(@.status.phase=="Pending")].metadata.name}', "b"),
    ("{.items[?(@.status.conditions)].metadata.name}", "b"),
    ("{.items[0].metadata.labels}", '{"app":"x","kubernetes.io/name":"n"}'),
    ("{.items[0].metadata.labels.kubernetes\\.io/name}", "n"),
    ("{.items[*].status.containerStatuses[0].restartCount}", "2"),
    ("{.items[-1:].metadata.name}", "b"),
    ("{.items[0,1].metadata.name}", "a b"),
    ("{.items[*]['metadata']['name']}", "a b"),
    ("{.items[*].status.containerStatuses[*]}",
     '{"name":"app","ready":true,"restartCount":2,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}'),
    ("{.items[1].status.conditions[0].message}", "0/1 nodes <ok> & more"),
    ("{.items[1].status.conditions}",
     '[{"message":"0/1 nodes \\u003cok\\u003e \\u0026 more","reason":"Unschedulable","status":"False",'
     '"type":"PodScheduled"}]'),
    ("{.items[*].missing.field}", ""),
    ("{.items[*].status.containerStatuses[*].ready}", "true"),
    ("plain text", "plain text"),
    ("{.kind}{.items[0].kind}", "ListPod"),
]


@pytest.mark.parametrize(("template", "expected"), CASES)
def test_renders_as_kubectl_does(template: str, expected: str) -> None:
    assert render_jsonpath(template, PODS) == expected


def test_an_empty_slice_ends_the_walk_as_client_go_does() -> None:
    # client-go returns from evalArray at the first empty list: later inputs are dropped
    data = {"items": [{"l": []}, {"l": [1]}]}
    assert render_jsonpath("{.items[*].l[*]}", data) == ""
    assert render_jsonpath("{.items[*].l[*]}", {"items": [{"l": [1]}, {"l": []}]}) == "1"


def test_index_out_of_bounds_is_an_error() -> None:
    with pytest.raises(JSONPathError, match="array index out of bounds"):
        render_jsonpath("{.items[5].metadata.name}", PODS)


@pytest.mark.parametrize("template", ["{.items[*]", "{.items[}", '{"unterminated}', "{range .items[*]}{end}{end}"])
def test_refuses_what_kubectl_refuses(template: str) -> None:
    with pytest.raises(JSONPathError):
        render_jsonpath(template, PODS)


def test_numbers_print_as_go_prints_them() -> None:
    data = {"i": 2, "f": 2.0, "h": 0.5, "big": 1e21, "small": 1e-7, "n": None, "b": False}
    assert render_jsonpath("{.i} {.f} {.h} {.big} {.small} {.n} {.b}", data) == "2 2 0.5 1e+21 1e-07 <nil> false"
    assert go_json({"f": 2.0, "s": 1e-7, "a": [True, None]}) == '{"a":[true,null],"f":2,"s":1e-7}'


def test_parses_every_parity_template() -> None:
    from pytest_simian.pack.loader import load_packs
    from pytest_simian.pack.models import K8sProbe

    for lp in load_packs(["parity"]):
        for sc in lp.pack.scenarios:
            for f in sc.faults:
                for p in f.probes:
                    if isinstance(p, K8sProbe):
                        parse_jsonpath(p.jsonpath)


KUBECTL_TEMPLATES = [
    "{.items[*].metadata.name}",
    "{.items[*].status.phase}",
    "{.items[*].status.containerStatuses[*].state.waiting.reason}",
    "{.items[*].status.containerStatuses[*]}",
    "{.items[*].status.conditions[*].reason}",
    "{.items[*].metadata.labels}",
    '{range .items[*]}{.metadata.name}{"="}{.spec.containers[0].image}{"\\n"}{end}',
    '{.items[?(@.status.phase=="Running")].metadata.name}',
    "{.items[0].spec.containers[0].resources}",
    "{.items[*].spec.containers[*].command}",
    "{..image}",
    "{.items[*].status.containerStatuses[*].restartCount}",
    "{.kind} {.apiVersion}",
]


@pytest.mark.skipif(pinned_kubectl_dir() is None, reason="the pinned kubectl wheel is not installed")
def test_matches_the_pinned_kubectl_on_live_objects(sim: Any, kube: Any) -> None:
    """Against the embedded cluster: the same list, rendered by kubectl and by us."""
    kubectl = str(pinned_kubectl_dir() / "kubectl")  # type: ignore[operator]
    ns = "jsonpath-check"
    kube.create(kube.for_kind("v1", "Namespace"), None, {"metadata": {"name": ns}})
    for name, cmd in (("one", ["sh", "-c", "sleep 3600"]), ("two", ["sh", "-c", "echo 'a <b> & c'; exit 1"])):
        kube.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns,
                                                                     "labels": {"app": name}},
                    "spec": {"containers": [{"name": "app", "image": "busybox:1.36", "command": cmd,
                                             "resources": {"limits": {"memory": "64Mi", "cpu": "200m"}}}]}})
    sim.clock.advance(5)
    pods = kube.resolve("pods")

    def versions(items: list[dict[str, Any]]) -> list[str]:
        return [i["metadata"]["resourceVersion"] for i in items]

    for template in KUBECTL_TEMPLATES:
        for _ in range(10):  # compare over a list that did not move while kubectl read it
            before = kube.list(pods, ns)
            out = subprocess.run([kubectl, "--kubeconfig", str(sim.harness_kubeconfig), "get", "pods", "-n", ns,
                                  "-o", f"jsonpath={template}"], capture_output=True, text=True, check=True).stdout
            after = kube.list(pods, ns)
            if versions(before) == versions(after):
                break
        ours = render_jsonpath(template, {"apiVersion": "v1", "kind": "List", "items": after,
                                          "metadata": {"resourceVersion": ""}})
        if ".." in template:  # kubectl walks maps in Go's random order there; the values must agree
            assert sorted(out.split()) == sorted(ours.split()), template
        else:
            assert out == ours, template
    # object form: a single object as `kubectl get pod NAME -o jsonpath=...`
    out = subprocess.run([kubectl, "--kubeconfig", str(sim.harness_kubeconfig), "get", "pod", "one", "-n", ns,
                          "-o", "jsonpath={.spec.containers[0]}"], capture_output=True, text=True, check=True).stdout
    assert out == render_jsonpath("{.spec.containers[0]}", kube.get(pods, ns, "one"))
    assert json.loads(out)["name"] == "app"
