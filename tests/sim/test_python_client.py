"""The PyPI ``kubernetes`` client (JSON request bodies, legacy discovery, pydantic-free v37 models) against
the embedded API server: CoreV1Api, AppsV1Api, DynamicClient server-side apply, and Watch."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, config, dynamic, watch
from kubernetes.client.exceptions import ApiException

from .conftest import RunningSim

NS = "pyclient"


@pytest.fixture(scope="module")
def api(sim: RunningSim) -> Iterator[client.ApiClient]:
    c = config.new_client_from_config(config_file=str(sim.harness_kubeconfig))
    client.CoreV1Api(c).create_namespace({"metadata": {"name": NS}})
    yield c
    c.close()


def _pod(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36", "command": ["sleep", "3600"]}]}}


def test_core_v1_create_list_selectors_patch_delete(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    created = core.create_namespaced_pod(NS, _pod("a", {"app": "x", "tier": "fe"}))
    assert created.metadata.uid and created.metadata.resource_version
    assert created.spec.containers[0].image_pull_policy == "IfNotPresent"
    assert created.status.phase == "Pending"
    core.create_namespaced_pod(NS, _pod("b", {"app": "x", "tier": "be"}))
    core.create_namespaced_pod(NS, _pod("c", {"app": "y"}))
    names = [p.metadata.name for p in core.list_namespaced_pod(NS, label_selector="app=x").items]
    assert names == ["a", "b"]
    names = [p.metadata.name for p in core.list_namespaced_pod(NS, label_selector="app in (x,y),tier!=fe").items]
    assert names == ["b", "c"]
    names = [p.metadata.name for p in core.list_namespaced_pod(NS, field_selector="metadata.name=c").items]
    assert names == ["c"]
    page = core.list_namespaced_pod(NS, limit=2)
    assert len(page.items) == 2 and page.metadata._continue and page.metadata.remaining_item_count == 1
    rest = core.list_namespaced_pod(NS, limit=2, _continue=page.metadata._continue)
    assert [p.metadata.name for p in rest.items] == ["c"] and not rest.metadata._continue
    patched = core.patch_namespaced_pod("a", NS, {"metadata": {"labels": {"tier": "edge"}}})
    assert patched.metadata.labels == {"app": "x", "tier": "edge"}
    with pytest.raises(ApiException) as e:
        core.read_namespaced_pod("zzz", NS)
    assert e.value.status == 404 and '"pods \\"zzz\\" not found"' in e.value.body
    with pytest.raises(ApiException) as e:
        core.create_namespaced_pod(NS, _pod("a", {}))
    assert e.value.status == 409 and "AlreadyExists" in e.value.body
    stale = core.read_namespaced_pod("b", NS)
    core.patch_namespaced_pod("b", NS, {"metadata": {"labels": {"v": "2"}}})
    with pytest.raises(ApiException) as e:
        core.replace_namespaced_pod("b", NS, stale)
    assert e.value.status == 409 and "the object has been modified" in e.value.body
    core.delete_namespaced_pod("c", NS)
    assert [p.metadata.name for p in core.list_namespaced_pod(NS).items] == ["a", "b"]


def test_core_v1_invalid_and_missing_namespace(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map("nowhere", {"metadata": {"name": "x"}})
    assert e.value.status == 404 and 'namespaces \\"nowhere\\" not found' in e.value.body
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map(NS, {"metadata": {}})
    assert e.value.status == 422
    assert "metadata.name: Required value: name or generateName is required" in e.value.body


def test_apps_v1_deployment_scale_and_status(api: client.ApiClient) -> None:
    apps = client.AppsV1Api(api)
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
           "spec": {"selector": {"matchLabels": {"app": "d"}},
                    "template": {"metadata": {"labels": {"app": "d"}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}}
    out = apps.create_namespaced_deployment(NS, dep)
    assert out.spec.replicas == 1 and out.spec.strategy.rolling_update.max_surge == "25%"
    assert out.metadata.generation == 1
    scale = apps.patch_namespaced_deployment_scale("d", NS, {"spec": {"replicas": 4}})
    assert scale.spec.replicas == 4 and scale.status.selector == "app=d"
    got = apps.read_namespaced_deployment("d", NS)
    assert got.spec.replicas == 4 and got.metadata.generation == 2
    got.status.replicas = 4
    got.status.observed_generation = 2
    apps.replace_namespaced_deployment_status("d", NS, got)
    after = apps.read_namespaced_deployment("d", NS)
    assert after.status.replicas == 4 and after.metadata.generation == 2, "status writes do not bump generation"
    # the main resource ignores status
    after.status.replicas = 99
    after.spec.paused = True
    apps.replace_namespaced_deployment("d", NS, after)
    again = apps.read_namespaced_deployment("d", NS)
    assert again.status.replicas == 4 and again.spec.paused is True


def test_dynamic_client_server_side_apply_and_conflict(api: client.ApiClient) -> None:
    dyn = dynamic.DynamicClient(api)
    res = dyn.resources.get(api_version="v1", kind="ConfigMap")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "namespace": NS},
            "data": {"a": "1"}}
    first = res.server_side_apply(body=body, field_manager="eval-harness", force_conflicts=True)
    rv = first.metadata.resourceVersion
    again = res.server_side_apply(body=body, field_manager="eval-harness", force_conflicts=True)
    assert again.metadata.resourceVersion == rv
    managers = [(m.manager, m.operation) for m in again.metadata.managedFields]
    assert managers == [("eval-harness", "Apply")]
    other = dict(body, data={"a": "2"})
    with pytest.raises(ApiException) as e:
        res.server_side_apply(body=other, field_manager="someone-else")
    assert e.value.status == 409
    status = json.loads(e.value.body)
    assert status["reason"] == "Conflict"
    assert status["message"].startswith('Apply failed with 1 conflict: conflict with "eval-harness"')
    assert [(c["reason"], c["field"]) for c in status["details"]["causes"]] == [("FieldManagerConflict", ".data.a")]
    forced = res.server_side_apply(body=other, field_manager="someone-else", force_conflicts=True)
    assert forced.to_dict()["data"] == {"a": "2"}


def test_watch_stream_and_resume(api: client.ApiClient, sim: RunningSim) -> None:
    core = client.CoreV1Api(api)
    core.create_namespaced_config_map(NS, {"metadata": {"name": "w1"}})
    rv = core.list_namespaced_config_map(NS).metadata.resource_version

    def later() -> None:
        time.sleep(0.3)
        core.patch_namespaced_config_map("w1", NS, {"data": {"k": "v"}})
        core.delete_namespaced_config_map("w1", NS)

    t = threading.Thread(target=later)
    t.start()
    events = []
    w = watch.Watch()
    for ev in w.stream(core.list_namespaced_config_map, NS, resource_version=rv, timeout_seconds=3):
        events.append((ev["type"], ev["object"].metadata.name))
        if ev["type"] == "DELETED":
            w.stop()
    t.join()
    assert events == [("MODIFIED", "w1"), ("DELETED", "w1")]


def test_watch_too_old_resource_version_is_410(api: client.ApiClient, sim: RunningSim) -> None:
    core = client.CoreV1Api(api)
    sim.call(lambda: setattr(sim.store, "_history_floor", max(sim.store._history_floor, 5)))
    with pytest.raises(ApiException) as e:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, NS, resource_version="2",
                                      timeout_seconds=2):
            pass
    assert e.value.status == 410


def test_subject_python_client_is_read_only(sim: RunningSim, tmp_path: Path) -> None:
    kc = sim.subject_kubeconfig(tmp_path, "subject:py")
    c = config.new_client_from_config(config_file=str(kc))
    core = client.CoreV1Api(c)
    assert core.list_namespace().items
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map(NS, {"metadata": {"name": "nope"}})
    assert e.value.status == 403
    assert ('configmaps is forbidden: User \\"subject\\" cannot create resource \\"configmaps\\" in API group '
            '\\"\\" in the namespace \\"pyclient\\"') in e.value.body
    ssar = client.AuthorizationV1Api(c).create_self_subject_access_review(
        {"spec": {"resourceAttributes": {"verb": "delete", "resource": "pods", "namespace": NS}}})
    assert ssar.status.allowed is False
    c.close()
