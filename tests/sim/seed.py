"""A small, fixed 'shop' namespace for the kubectl and Python client tests, written through the store's
in-process API the way controllers and the kubelet will write it (status included)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pytest_simian.sim.clock import format_time
from pytest_simian.sim.store import Store

NS = "shop"
HOUR = 3600.0


def _t(store: Store, ago: float) -> str:
    return format_time(store.clock.now() - timedelta(seconds=ago))


def seed_shop(store: Store) -> dict[str, Any]:
    """Create the objects at virtual t0; the caller then advances the clock by HOUR."""
    store.create("namespaces", {"metadata": {"name": NS}})
    labels = {"app": "web"}
    tmpl = {"metadata": {"labels": labels},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}]}}
    dep = store.create("deployments", {"metadata": {"name": "web", "namespace": NS},
                                       "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                                                "template": tmpl}}, manager="kubectl")
    rs_labels = {"app": "web", "pod-template-hash": "7d4b9c"}
    rs = store.create("replicasets", {
        "metadata": {"name": "web-7d4b9c", "namespace": NS, "labels": rs_labels,
                     "annotations": {"deployment.kubernetes.io/revision": "1"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                          "uid": dep["metadata"]["uid"], "controller": True,
                                          "blockOwnerDeletion": True}]},
        "spec": {"replicas": 2, "selector": {"matchLabels": rs_labels},
                 "template": {"metadata": {"labels": rs_labels}, "spec": tmpl["spec"]}}},
        manager="kube-controller-manager")
    pods = []
    for name in (("web-7d4b9c-abcde", "web-7d4b9c-fghij")):
        p = store.create("pods", {
            "metadata": {"name": name, "namespace": NS, "labels": rs_labels,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c",
                                              "uid": rs["metadata"]["uid"], "controller": True,
                                              "blockOwnerDeletion": True}]},
            "spec": {"nodeName": "kind-control-plane", **tmpl["spec"]}}, manager="kube-controller-manager")
        pods.append(p)
    svc = store.create("services", {"metadata": {"name": "web", "namespace": NS},
                                    "spec": {"selector": labels, "ports": [{"port": 80, "targetPort": 80}]}})
    store.create("endpointslices", {
        "metadata": {"name": "web-x1y2z", "namespace": NS,
                     "labels": {"kubernetes.io/service-name": "web",
                                "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.244.0.5"], "conditions": {"ready": True, "serving": True,
                                                                    "terminating": False},
                       "nodeName": "kind-control-plane"}],
        "ports": [{"name": "", "port": 80, "protocol": "TCP"}]})
    job = store.create("jobs", {"metadata": {"name": "once", "namespace": NS},
                                "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                                    {"name": "c", "image": "busybox:1.36", "command": ["true"]}]}}}})
    return {"deployment": dep, "replicaset": rs, "pods": pods, "service": svc, "job": job}


def set_status(store: Store, objs: dict[str, Any]) -> None:
    """After the clock moved HOUR: write the status a controller and kubelet would have written."""
    ok, bad = objs["pods"]
    start = _t(store, HOUR - 2)
    for p, ip in ((ok, "10.244.0.5"), (bad, "10.244.0.6")):
        good = p is ok
        cur = store.get("pods", p["metadata"]["name"], NS)
        cs: dict[str, Any] = {
            "name": "web", "image": "docker.io/library/nginx:1.27",
            "imageID": "docker.io/library/nginx@sha256:" + "a" * 64,
            "containerID": "containerd://" + ("b" if good else "c") * 64,
            "ready": good, "started": good, "restartCount": 0 if good else 7,
        }
        if good:
            cs["state"] = {"running": {"startedAt": start}}
            cs["lastState"] = {}
        else:
            cs["state"] = {"waiting": {"reason": "CrashLoopBackOff", "message": (
                f"back-off 5m0s restarting failed container=web pod={p['metadata']['name']}_{NS}"
                f"({p['metadata']['uid']})")}}
            cs["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": _t(store, 121),
                                              "finishedAt": _t(store, 120),
                                              "containerID": "containerd://" + "c" * 64}}
        ready = "True" if good else "False"
        conds = [
            {"type": "PodReadyToStartContainers", "status": "True", "lastProbeTime": None,
             "lastTransitionTime": start},
            {"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": start},
            {"type": "Ready", "status": ready, "lastProbeTime": None, "lastTransitionTime": start},
            {"type": "ContainersReady", "status": ready, "lastProbeTime": None, "lastTransitionTime": start},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": start},
        ]
        if not good:
            for c in conds[2:4]:
                c["reason"] = "ContainersNotReady"
                c["message"] = "containers with unready status: [web]"
        cur["status"] = {"phase": "Running", "conditions": conds, "hostIP": "172.18.0.2",
                         "hostIPs": [{"ip": "172.18.0.2"}], "podIP": ip, "podIPs": [{"ip": ip}],
                         "startTime": start, "qosClass": "BestEffort", "containerStatuses": [cs],
                         "observedGeneration": 1}
        store.update_status("pods", cur, manager="kubelet")
    dep = store.get("deployments", "web", NS)
    dep["status"] = {"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 1,
                     "availableReplicas": 1, "unavailableReplicas": 1, "conditions": [
                         {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
                          "message": "Deployment does not have minimum availability.",
                          "lastUpdateTime": start, "lastTransitionTime": start},
                         {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
                          "message": 'ReplicaSet "web-7d4b9c" has successfully progressed.',
                          "lastUpdateTime": start, "lastTransitionTime": start}]}
    store.update_status("deployments", dep, manager="kube-controller-manager")
    rs = store.get("replicasets", "web-7d4b9c", NS)
    rs["status"] = {"replicas": 2, "fullyLabeledReplicas": 2, "readyReplicas": 1, "availableReplicas": 1,
                    "observedGeneration": 1}
    store.update_status("replicasets", rs, manager="kube-controller-manager")
    job = store.get("jobs", "once", NS)
    job["status"] = {"startTime": start, "completionTime": _t(store, HOUR - 7), "succeeded": 1,
                     "ready": 0, "terminating": 0, "uncountedTerminatedPods": {}, "conditions": [
                         {"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached",
                          "message": "Reached expected number of succeeded pods",
                          "lastProbeTime": _t(store, HOUR - 7), "lastTransitionTime": _t(store, HOUR - 7)},
                         {"type": "Complete", "status": "True", "reason": "CompletionsReached",
                          "message": "Reached expected number of succeeded pods",
                          "lastProbeTime": _t(store, HOUR - 7), "lastTransitionTime": _t(store, HOUR - 7)}]}
    store.update_status("jobs", job, manager="kube-controller-manager")
    bad_name, bad_uid = bad["metadata"]["name"], bad["metadata"]["uid"]
    ok_name, ok_uid = ok["metadata"]["name"], ok["metadata"]["uid"]
    for name, reason, typ, msg, count, first, last, obj, uid, fp in (
        (f"{ok_name}.1", "Scheduled", "Normal",
         f"Successfully assigned {NS}/{ok_name} to kind-control-plane", 1, HOUR - 1, HOUR - 1, ok_name, ok_uid, ""),
        (f"{bad_name}.1", "BackOff", "Warning", "Back-off restarting failed container web in pod "
         f"{bad_name}_{NS}({bad_uid})", 31, HOUR - 60, 1230, bad_name, bad_uid, "spec.containers{web}"),
    ):
        ev: dict[str, Any] = {
            "metadata": {"name": name, "namespace": NS},
            "involvedObject": {"kind": "Pod", "namespace": NS, "name": obj, "uid": uid, "apiVersion": "v1"},
            "reason": reason, "message": msg, "type": typ, "count": count,
            "source": {"component": "default-scheduler" if reason == "Scheduled" else "kubelet",
                       **({} if reason == "Scheduled" else {"host": "kind-control-plane"})},
            "firstTimestamp": _t(store, first), "lastTimestamp": _t(store, last),
            "reportingComponent": "default-scheduler" if reason == "Scheduled" else "kubelet",
            "reportingInstance": "" if reason == "Scheduled" else "kind-control-plane",
        }
        if fp:
            ev["involvedObject"]["fieldPath"] = fp
        store.create("events", ev)


def log_provider(namespace: str, pod: dict[str, Any], container: str, *, previous: bool,
                 tail_lines: int | None, timestamps: bool) -> str:
    if previous:
        lines = ["starting web", "fatal: cannot bind :80"]
    else:
        lines = ["starting web", "listening on :80", f"ready ({pod['metadata']['name']})"]
    if tail_lines is not None:
        lines = lines[-tail_lines:] if tail_lines else []
    return "".join(line + "\n" for line in lines)
