"""Server-side apply and managedFields, after sigs.k8s.io/structured-merge-diff and the apiserver's fieldmanager.

Scenarios follow structured-merge-diff's merge tests (multiple_appliers_test.go, leaf_test.go, set_test.go:
shared ownership, conflicts, force, pruning of fields an applier stopped applying) on built-in kinds, and the
apiserver's wording (internal/conflict.go: ``Apply failed with 1 conflict: conflict with "m" using apps/v1:
.spec.replicas``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pytest_simian.sim.fieldmanager import (
    BEFORE_FIRST_APPLY,
    ApplyConflict,
    ApplyError,
    apply,
    fields_to_set,
    path_string,
    record_update,
    set_to_fields,
)
from pytest_simian.sim.patch import PatchError

T0, T1, T2, T3, T4 = (f"2026-11-29T10:0{i}:00Z" for i in range(5))


def deployment(replicas: int | None = 2, image: str = "nginx:1.25", **extra_spec: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "nginx", "image": image}]},
        },
    }
    if replicas is not None:
        spec["replicas"] = replicas
    spec.update(extra_spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}}, "spec": spec}


def dapply(live: dict | None, cfg: dict, manager: str = "kubectl", *, force: bool = False, now: str = T1) -> dict:
    return apply(live, cfg, manager=manager, force=force, api_version="apps/v1", kind="Deployment", now=now)


def entries(obj: dict) -> dict[str, dict]:
    return {e["manager"]: e for e in obj["metadata"]["managedFields"]}


def owned(obj: dict, manager: str) -> set[str]:
    return {path_string(p) for p in fields_to_set(entries(obj)[manager]["fieldsV1"])}


# --------------------------------------------------------------------------------------------------------------
# FieldsV1 encoding
# --------------------------------------------------------------------------------------------------------------


def test_fields_v1_round_trip_and_order() -> None:
    fields = {
        "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
        "f:spec": {
            "f:template": {"f:spec": {"f:containers": {
                'k:{"name":"nginx"}': {".": {}, "f:image": {}, "f:name": {},
                                       "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {
                                           ".": {}, "f:containerPort": {}}}}}}},
            "f:replicas": {},
        },
        "f:metadata2": {"v:\"a\"": {}},
    }
    paths = fields_to_set(fields)
    assert ("f:metadata", "f:labels") in paths
    assert ("f:spec",) not in paths
    back = set_to_fields(paths)
    assert back == fields
    # keys come out sorted the way structured-merge-diff serializes them: "." first, fields before keys
    assert list(back["f:spec"]) == ["f:replicas", "f:template"]
    assert list(back["f:metadata"]["f:labels"]) == [".", "f:app"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (("f:spec", "f:replicas"), ".spec.replicas"),
        (("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"nginx"}', "f:image"),
         '.spec.template.spec.containers[name="nginx"].image'),
        (("f:spec", "f:ports", 'k:{"port":80,"protocol":"TCP"}'), '.spec.ports[port=80,protocol="TCP"]'),
        (("f:metadata", "f:finalizers", 'v:"example.com/x"'), '.metadata.finalizers[="example.com/x"]'),
    ],
)
def test_path_string(path: tuple[str, ...], text: str) -> None:
    assert path_string(path) == text


# --------------------------------------------------------------------------------------------------------------
# apply: create, no-op, field sets
# --------------------------------------------------------------------------------------------------------------


def test_apply_create_records_the_applied_fields() -> None:
    obj = dapply(None, deployment(), now=T0)
    (entry,) = obj["metadata"]["managedFields"]
    assert {k: v for k, v in entry.items() if k != "fieldsV1"} == {
        "manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1", "time": T0, "fieldsType": "FieldsV1"}
    assert entry["fieldsV1"] == {
        "f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {
            "f:replicas": {},
            "f:selector": {},  # metav1.LabelSelector is an atomic struct
            "f:template": {
                "f:metadata": {"f:labels": {"f:app": {}}},
                "f:spec": {"f:containers": {'k:{"name":"nginx"}': {".": {}, "f:image": {}, "f:name": {}}}},
            },
        },
    }
    assert obj["spec"]["replicas"] == 2


def test_reapplying_the_same_configuration_is_a_no_op() -> None:
    live = dapply(None, deployment(), now=T0)
    again = dapply(copy.deepcopy(live), deployment(), now=T2)
    assert again == live
    assert entries(again)["kubectl"]["time"] == T0


def test_apply_with_live_server_defaults_is_still_a_no_op() -> None:
    live = dapply(None, deployment(), now=T0)
    live["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "IfNotPresent"  # defaulted
    live["metadata"]["resourceVersion"] = "12"
    live["status"] = {"replicas": 2}
    assert dapply(copy.deepcopy(live), deployment(), now=T2) == live


def test_apply_ignores_status_and_server_metadata() -> None:
    cfg = deployment()
    cfg["status"] = {"replicas": 9}
    cfg["metadata"].update({"uid": "x", "resourceVersion": "5", "creationTimestamp": "2020-01-01T00:00:00Z"})
    obj = dapply(None, cfg, now=T0)
    assert "status" not in obj
    assert "uid" not in obj["metadata"]
    fields = entries(obj)["kubectl"]["fieldsV1"]
    assert "f:status" not in fields
    assert set(fields["f:metadata"]) == {"f:labels"}


def test_apply_changes_a_value_and_bumps_time() -> None:
    live = dapply(None, deployment(), now=T0)
    new = dapply(live, deployment(replicas=3), now=T1)
    assert new["spec"]["replicas"] == 3
    assert entries(new)["kubectl"]["time"] == T1


# --------------------------------------------------------------------------------------------------------------
# apply: removal of fields the manager stopped applying
# --------------------------------------------------------------------------------------------------------------


def test_removing_a_field_from_the_configuration_removes_it() -> None:
    live = dapply(None, deployment(), now=T0)
    cfg = deployment()
    del cfg["metadata"]["labels"]
    cfg["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "A", "value": "1"}]
    new = dapply(live, cfg, now=T1)
    assert "labels" not in new["metadata"]
    assert new["spec"]["template"]["spec"]["containers"][0]["env"] == [{"name": "A", "value": "1"}]
    # and dropping the env var again removes the list
    new2 = dapply(new, deployment(), now=T2)
    assert "env" not in new2["spec"]["template"]["spec"]["containers"][0]
    assert new2["metadata"]["labels"] == {"app": "web"}


def test_removing_a_list_item_removes_it_with_its_defaults() -> None:
    cfg = deployment()
    cfg["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "busybox"})
    live = dapply(None, cfg, now=T0)
    # the server defaulted a field nobody owns
    live["spec"]["template"]["spec"]["containers"][1]["terminationMessagePath"] = "/dev/termination-log"
    new = dapply(live, deployment(), now=T1)
    assert [c["name"] for c in new["spec"]["template"]["spec"]["containers"]] == ["nginx"]


def test_unowned_fields_are_never_pruned() -> None:
    live = dapply(None, deployment(), now=T0)
    live["spec"]["revisionHistoryLimit"] = 10  # defaulted by the server, owned by nobody
    cfg = deployment(replicas=None)
    new = dapply(live, cfg, now=T1)
    assert "replicas" not in new["spec"]
    assert new["spec"]["revisionHistoryLimit"] == 10


# --------------------------------------------------------------------------------------------------------------
# apply: two managers
# --------------------------------------------------------------------------------------------------------------


def test_two_appliers_share_a_field_with_the_same_value() -> None:
    live = dapply(None, deployment(), "alice", now=T0)
    both = dapply(live, deployment(), "bob", now=T1)  # same values: no conflict, shared ownership
    assert ".spec.replicas" in owned(both, "alice")
    assert ".spec.replicas" in owned(both, "bob")
    # alice stops applying replicas: bob still owns it, so it stays
    after_alice = dapply(both, deployment(replicas=None), "alice", now=T2)
    assert after_alice["spec"]["replicas"] == 2
    assert ".spec.replicas" not in owned(after_alice, "alice")
    # bob stops too: now nobody owns it and it goes
    after_bob = dapply(after_alice, deployment(replicas=None), "bob", now=T3)
    assert "replicas" not in after_bob["spec"]


def test_conflict_with_another_applier() -> None:
    live = dapply(None, deployment(), "alice", now=T0)
    with pytest.raises(ApplyConflict) as ei:
        dapply(live, deployment(replicas=5), "bob", now=T1)
    e = ei.value
    assert e.conflicts == [("alice", ".spec.replicas")]
    assert e.message == 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas'
    assert e.causes == [{"reason": "FieldManagerConflict", "message": 'conflict with "alice"',
                         "field": ".spec.replicas"}]
    assert e.code == 409


def test_conflict_with_an_updater_names_its_api_version() -> None:
    # kubectl apply (client side) records its writes as Update operations
    created = deployment()
    created["metadata"]["managedFields"] = record_update(
        None, created, manager="kubectl-client-side-apply", operation="Update", api_version="apps/v1", now=T0)
    with pytest.raises(ApplyConflict) as ei:
        dapply(created, deployment(replicas=3), "kubectl", now=T1)
    assert ei.value.message == (
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas')


def test_several_conflicts_are_grouped_by_manager() -> None:
    live = dapply(None, deployment(), "alice", now=T0)
    scaled = copy.deepcopy(live)
    scaled["spec"]["replicas"] = 7
    scaled["metadata"]["managedFields"] = record_update(
        live, scaled, manager="hpa", operation="Update", api_version="apps/v1", now=T1)
    with pytest.raises(ApplyConflict) as ei:
        dapply(scaled, deployment(replicas=4, image="nginx:2"), "bob", now=T2)
    assert ei.value.message == (
        "Apply failed with 2 conflicts: conflicts with \"alice\":\n"
        "- .spec.template.spec.containers[name=\"nginx\"].image\n"
        "conflicts with \"hpa\" using apps/v1:\n"
        "- .spec.replicas"
    )
    assert sorted(ei.value.conflicts) == [
        ("alice", '.spec.template.spec.containers[name="nginx"].image'),
        ("hpa", ".spec.replicas"),
    ]


def test_force_takes_ownership() -> None:
    live = dapply(None, deployment(), "alice", now=T0)
    forced = dapply(live, deployment(replicas=5), "bob", force=True, now=T1)
    assert forced["spec"]["replicas"] == 5
    assert ".spec.replicas" in owned(forced, "bob")
    assert ".spec.replicas" not in owned(forced, "alice")
    # alice applying her old value now conflicts with bob
    with pytest.raises(ApplyConflict) as ei:
        dapply(forced, deployment(), "alice", now=T2)
    assert ei.value.conflicts == [("bob", ".spec.replicas")]


def test_force_removes_an_entry_left_empty() -> None:
    cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v1"}}
    live = apply(None, cfg, manager="alice", force=False, api_version="v1", kind="ConfigMap", now=T0)
    cfg2 = copy.deepcopy(cfg)
    cfg2["data"]["k"] = "v2"
    new = apply(live, cfg2, manager="bob", force=True, api_version="v1", kind="ConfigMap", now=T1)
    assert [e["manager"] for e in new["metadata"]["managedFields"]] == ["bob"]
    assert new["data"] == {"k": "v2"}


def test_associative_list_items_are_owned_per_key() -> None:
    cfg_a = deployment()
    live = dapply(None, cfg_a, "alice", now=T0)
    cfg_b = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
             "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "busybox"}]}}}}
    both = dapply(live, cfg_b, "bob", now=T1)
    assert [c["name"] for c in both["spec"]["template"]["spec"]["containers"]] == ["nginx", "sidecar"]
    assert '.spec.template.spec.containers[name="sidecar"]' in owned(both, "bob")
    assert '.spec.template.spec.containers[name="sidecar"]' not in owned(both, "alice")
    # alice drops her container; bob's stays
    cfg_a2 = deployment()
    cfg_a2["spec"]["template"]["spec"]["containers"] = [{"name": "other", "image": "x"}]
    after = dapply(both, cfg_a2, "alice", now=T2)
    assert [c["name"] for c in after["spec"]["template"]["spec"]["containers"]] == ["sidecar", "other"]


def test_applier_stopping_a_field_an_updater_owns_keeps_it() -> None:
    live = dapply(None, deployment(), "kubectl", now=T0)
    edited = copy.deepcopy(live)
    edited["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:9"
    edited["metadata"]["managedFields"] = record_update(
        live, edited, manager="kubectl-set", operation="Update", api_version="apps/v1", now=T1)
    assert '.spec.template.spec.containers[name="nginx"].image' in owned(edited, "kubectl-set")
    cfg = deployment()
    del cfg["spec"]["template"]["spec"]["containers"][0]["image"]
    new = dapply(edited, cfg, "kubectl", now=T2)
    assert new["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:9"


def test_list_item_an_applier_drops_goes_even_if_an_updater_changed_a_field_in_it() -> None:
    # structured-merge-diff prunes a list item unless someone owns the item itself; owning a field inside
    # (kubectl set env on the applier's container) does not keep it.
    cfg = deployment()
    cfg["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "busybox"})
    live = dapply(None, cfg, "kubectl", now=T0)
    edited = copy.deepcopy(live)
    edited["spec"]["template"]["spec"]["containers"][1]["env"] = [{"name": "A", "value": "1"}]
    edited["metadata"]["managedFields"] = record_update(
        live, edited, manager="kubectl-set", operation="Update", api_version="apps/v1", now=T1)
    assert '.spec.template.spec.containers[name="sidecar"].env' in owned(edited, "kubectl-set")
    new = dapply(edited, deployment(), "kubectl", now=T2)
    assert [c["name"] for c in new["spec"]["template"]["spec"]["containers"]] == ["nginx"]


def test_list_item_added_by_an_updater_survives_the_applier() -> None:
    live = dapply(None, deployment(), "kubectl", now=T0)
    edited = copy.deepcopy(live)
    edited["spec"]["template"]["spec"]["containers"].append({"name": "debug", "image": "busybox"})
    edited["metadata"]["managedFields"] = record_update(
        live, edited, manager="kubectl-edit", operation="Update", api_version="apps/v1", now=T1)
    new = dapply(edited, deployment(image="nginx:2"), "kubectl", now=T2)
    assert [c["name"] for c in new["spec"]["template"]["spec"]["containers"]] == ["nginx", "debug"]


def test_set_lists_merge_by_value() -> None:
    cfg_a = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["a.io/x"]}}
    live = apply(None, cfg_a, manager="alice", force=False, api_version="v1", kind="ConfigMap", now=T0)
    assert entries(live)["alice"]["fieldsV1"] == {"f:metadata": {"f:finalizers": {'v:"a.io/x"': {}}}}
    cfg_b = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["b.io/y"]}}
    both = apply(live, cfg_b, manager="bob", force=False, api_version="v1", kind="ConfigMap", now=T1)
    assert both["metadata"]["finalizers"] == ["a.io/x", "b.io/y"]
    cfg_a_none = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    after = apply(both, cfg_a_none, manager="alice", force=False, api_version="v1", kind="ConfigMap", now=T2)
    assert after["metadata"]["finalizers"] == ["b.io/y"]


def test_atomic_lists_and_maps_are_replaced_whole() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "i"}], "nodeSelector": {"a": "1"},
                    "tolerations": [{"key": "k1", "operator": "Exists"}]}}
    live = apply(None, pod, manager="alice", force=False, api_version="v1", kind="Pod", now=T0)
    spec_fields = entries(live)["alice"]["fieldsV1"]["f:spec"]
    assert spec_fields["f:nodeSelector"] == {} and spec_fields["f:tolerations"] == {}
    pod2 = copy.deepcopy(pod)
    pod2["spec"]["nodeSelector"] = {"b": "2"}
    pod2["spec"]["tolerations"] = [{"key": "k2", "operator": "Exists"}]
    new = apply(live, pod2, manager="alice", force=False, api_version="v1", kind="Pod", now=T1)
    assert new["spec"]["nodeSelector"] == {"b": "2"}
    assert new["spec"]["tolerations"] == [{"key": "k2", "operator": "Exists"}]


def test_service_ports_are_keyed_by_port_and_defaulted_protocol() -> None:
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
           "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}}
    live = apply(None, svc, manager="kubectl", force=False, api_version="v1", kind="Service", now=T0)
    fields = entries(live)["kubectl"]["fieldsV1"]["f:spec"]
    assert 'k:{"port":80,"protocol":"TCP"}' in fields["f:ports"]
    # the server defaults protocol; applying the same config again changes nothing
    live["spec"]["ports"][0]["protocol"] = "TCP"
    assert apply(copy.deepcopy(live), svc, manager="kubectl", force=False, api_version="v1", kind="Service",
                 now=T1) == live


def test_custom_resources_have_atomic_lists() -> None:
    cr = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
          "spec": {"items": [{"name": "a"}], "size": 1}}
    live = apply(None, cr, manager="alice", force=False, api_version="example.com/v1", kind="Widget", now=T0)
    assert entries(live)["alice"]["fieldsV1"] == {"f:spec": {"f:items": {}, "f:size": {}}}


def test_object_without_managed_fields_is_owned_before_first_apply() -> None:
    legacy = deployment()
    with pytest.raises(ApplyConflict) as ei:
        dapply(legacy, deployment(replicas=4), "kubectl", now=T1)
    assert ei.value.conflicts == [(BEFORE_FIRST_APPLY, ".spec.replicas")]
    assert "conflict with \"before-first-apply\" using apps/v1: .spec.replicas" in ei.value.message


def test_status_subresource_apply_owns_status_only() -> None:
    live = dapply(None, deployment(), "kubectl", now=T0)
    cfg = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"x": "y"}},
           "spec": {"replicas": 9}, "status": {"replicas": 2, "conditions": [{"type": "Available", "status": "True"}]}}
    new = apply(live, cfg, manager="ctrl", force=False, api_version="apps/v1", kind="Deployment", now=T1,
                subresource="status")
    assert new["spec"]["replicas"] == 2 and new["metadata"]["labels"] == {"app": "web"}
    assert new["status"]["conditions"] == [{"type": "Available", "status": "True"}]
    e = entries(new)["ctrl"]
    assert e["subresource"] == "status" and e["operation"] == "Apply"
    assert e["fieldsV1"] == {"f:status": {"f:conditions": {'k:{"type":"Available"}': {
        ".": {}, "f:status": {}, "f:type": {}}}, "f:replicas": {}}}
    # dropping the condition from the next status apply removes it
    cfg["status"] = {"replicas": 2}
    again = apply(new, cfg, manager="ctrl", force=False, api_version="apps/v1", kind="Deployment", now=T2,
                  subresource="status")
    assert again["status"] == {"replicas": 2}


# --------------------------------------------------------------------------------------------------------------
# apply: malformed configurations
# --------------------------------------------------------------------------------------------------------------


def test_apply_rejects_a_list_item_without_its_key() -> None:
    cfg = deployment()
    cfg["spec"]["template"]["spec"]["containers"] = [{"image": "nginx"}]
    with pytest.raises(ApplyError) as ei:
        dapply(None, cfg)
    assert ei.value.message == (
        "failed to create typed patch object (apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: "
        "associative list with keys has an element that omits key field \"name\" (and doesn't have default value)")
    assert isinstance(ei.value, PatchError)


def test_apply_rejects_duplicate_keys() -> None:
    cfg = deployment()
    cfg["spec"]["template"]["spec"]["containers"] = [{"name": "a"}, {"name": "a"}]
    with pytest.raises(ApplyError, match=r'duplicate entries for key \[name="a"\]'):
        dapply(None, cfg)


def test_apply_rejects_managed_fields_in_the_configuration() -> None:
    cfg = deployment()
    cfg["metadata"]["managedFields"] = [{"manager": "x"}]
    with pytest.raises(ApplyError, match="metadata.managedFields must be nil") as ei:
        dapply(None, cfg)
    assert ei.value.code == 400


def test_apply_does_not_mutate_arguments() -> None:
    live = dapply(None, deployment(), "alice", now=T0)
    live_before = copy.deepcopy(live)
    cfg = deployment(replicas=3)
    cfg_before = copy.deepcopy(cfg)
    dapply(live, cfg, "alice", now=T1)
    assert live == live_before and cfg == cfg_before


# --------------------------------------------------------------------------------------------------------------
# record_update (create/update/patch)
# --------------------------------------------------------------------------------------------------------------


def test_record_update_on_create_matches_kubectl_create() -> None:
    obj = deployment()
    obj["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}}
    obj["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "protocol": "TCP"}]
    obj["spec"]["template"]["spec"]["containers"][0]["resources"] = {}
    obj["metadata"].update({"uid": "u", "resourceVersion": "1", "generation": 1,
                            "creationTimestamp": "2026-11-29T10:00:00Z"})
    obj["status"] = {"replicas": 0}
    (entry,) = record_update(None, obj, manager="kubectl-create", operation="Update", api_version="apps/v1", now=T0)
    assert entry["manager"] == "kubectl-create" and entry["operation"] == "Update" and entry["time"] == T0
    # A zero-valued Deployment already holds spec, spec.strategy, spec.template and the containers list, so
    # those carry no "." of their own; new maps (labels, rollingUpdate, the items) do.
    assert entry["fieldsV1"] == {
        "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
        "f:spec": {
            "f:replicas": {},
            "f:selector": {},
            "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}}, "f:type": {}},
            "f:template": {
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {"f:containers": {'k:{"name":"nginx"}': {
                    ".": {}, "f:image": {}, "f:name": {},
                    "f:ports": {".": {}, 'k:{"containerPort":80,"protocol":"TCP"}': {
                        ".": {}, "f:containerPort": {}, "f:protocol": {}}},
                    "f:resources": {},
                }}},
            },
        },
    }


def _with_mf(obj: dict, mf: list[dict]) -> dict:
    obj = copy.deepcopy(obj)
    obj["metadata"]["managedFields"] = mf
    return obj


def test_record_update_moves_changed_fields_to_the_writer() -> None:
    created = _with_mf(deployment(), record_update(None, deployment(), manager="kubectl-create",
                                                   operation="Update", api_version="apps/v1", now=T0))
    scaled = copy.deepcopy(created)
    scaled["spec"]["replicas"] = 5
    mf = record_update(created, scaled, manager="kubectl-scale", operation="Update", subresource="scale",
                       api_version="apps/v1", now=T1)
    by = {e["manager"]: e for e in mf}
    assert by["kubectl-scale"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    assert by["kubectl-scale"]["subresource"] == "scale"
    assert "f:replicas" not in by["kubectl-create"]["fieldsV1"]["f:spec"]
    assert by["kubectl-create"]["time"] == T0  # it lost a field but changed nothing itself


def test_record_update_time_changes_only_when_the_writer_changes_something() -> None:
    created = _with_mf(deployment(), record_update(None, deployment(), manager="m", operation="Update",
                                                   api_version="apps/v1", now=T0))
    same = copy.deepcopy(created)
    same["metadata"]["resourceVersion"] = "99"  # never owned
    mf = record_update(created, same, manager="m", operation="Update", api_version="apps/v1", now=T2)
    assert mf == created["metadata"]["managedFields"]
    changed = copy.deepcopy(created)
    changed["metadata"]["labels"]["tier"] = "fe"
    mf2 = record_update(created, changed, manager="m", operation="Update", api_version="apps/v1", now=T3)
    (e,) = mf2
    assert e["time"] == T3
    assert "f:tier" in e["fieldsV1"]["f:metadata"]["f:labels"]


def test_record_update_drops_removed_fields_and_empty_entries() -> None:
    base = deployment()
    live = dapply(None, base, "alice", now=T0)
    labelled = copy.deepcopy(live)
    labelled["metadata"]["labels"]["team"] = "a"
    labelled["metadata"]["managedFields"] = record_update(
        live, labelled, manager="kubectl-label", operation="Update", api_version="apps/v1", now=T1)
    assert "kubectl-label" in entries(labelled)
    unlabelled = copy.deepcopy(labelled)
    del unlabelled["metadata"]["labels"]["team"]
    mf = record_update(labelled, unlabelled, manager="kubectl-label", operation="Update", api_version="apps/v1",
                       now=T2)
    assert [e["manager"] for e in mf] == ["alice"]


def test_record_update_status_subresource_owns_status_only() -> None:
    live = dapply(None, deployment(), "kubectl", now=T0)
    new = copy.deepcopy(live)
    new["status"] = {"replicas": 2, "conditions": [{"type": "Available", "status": "True"}]}
    new["spec"]["replicas"] = 9  # ignored: the status endpoint resets spec
    mf = record_update(live, new, manager="kube-controller-manager", operation="Update", subresource="status",
                       api_version="apps/v1", now=T1)
    by = {e["manager"]: e for e in mf}
    kcm = by["kube-controller-manager"]
    assert kcm["subresource"] == "status"
    # status is a non-pointer struct (no "." of its own); conditions is a new list keyed by type
    assert kcm["fieldsV1"] == {"f:status": {"f:conditions": {".": {}, 'k:{"type":"Available"}': {
        ".": {}, "f:status": {}, "f:type": {}}}, "f:replicas": {}}}
    assert "f:replicas" in by["kubectl"]["fieldsV1"]["f:spec"]


def test_record_update_entries_are_ordered_apply_first_then_by_time() -> None:
    live = dapply(None, deployment(), "kubectl", now=T2)
    a = copy.deepcopy(live)
    a["metadata"]["labels"]["x"] = "1"
    a["metadata"]["managedFields"] = record_update(live, a, manager="zeta", operation="Update",
                                                   api_version="apps/v1", now=T0)
    b = copy.deepcopy(a)
    b["metadata"]["labels"]["y"] = "1"
    mf = record_update(a, b, manager="alpha", operation="Update", api_version="apps/v1", now=T1)
    assert [(e["operation"], e["manager"]) for e in mf] == [("Apply", "kubectl"), ("Update", "zeta"),
                                                            ("Update", "alpha")]


def test_record_update_honours_client_supplied_managed_fields_and_reset() -> None:
    live = dapply(None, deployment(), "kubectl", now=T0)
    new = copy.deepcopy(live)
    new["metadata"]["managedFields"] = [{}]
    assert record_update(live, new, manager="m", operation="Update", api_version="apps/v1", now=T1) == []
    custom = copy.deepcopy(live)
    custom["metadata"]["managedFields"] = [{"manager": "someone", "operation": "Update", "apiVersion": "apps/v1",
                                            "time": T0, "fieldsType": "FieldsV1",
                                            "fieldsV1": {"f:spec": {"f:replicas": {}}}}]
    mf = record_update(live, custom, manager="m", operation="Update", api_version="apps/v1", now=T1)
    assert [e["manager"] for e in mf] == ["someone"]


def test_update_managers_are_capped_into_ancient_changes() -> None:
    obj = _with_mf(deployment(), [])
    for i in range(12):
        new = copy.deepcopy(obj)
        new["metadata"]["labels"][f"l{i}"] = "v"
        new["metadata"]["managedFields"] = record_update(
            obj, new, manager=f"writer-{i:02d}", operation="Update", api_version="apps/v1",
            now=f"2026-11-29T10:{i:02d}:00Z")
        obj = new
    managers = [e["manager"] for e in obj["metadata"]["managedFields"]]
    assert len(managers) == 10
    assert "ancient-changes" in managers
    assert "writer-11" in managers and "writer-00" not in managers
