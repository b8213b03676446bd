"""Endpoints and EndpointSlice controllers, and the PersistentVolume binder, of the embedded cluster.

Why: a Service whose selector matches nothing must show no endpoint addresses; one whose pods are not ready
must show ``conditions.ready: false`` endpoints (that is what ``kubectl get endpointslices`` and the parity
settle probes read); a claim naming a missing StorageClass must stay Pending with ProvisioningFailed
events, and a claim on kind's default WaitForFirstConsumer class must bind once a pod using it is scheduled.
Must not: read the host clock; write a slice or claim whose content did not change.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from pytest_simian.sim import messages as M
from pytest_simian.sim.controllers.base import pod_ready, run_loop
from pytest_simian.sim.eventrecorder import EventRecorder

__all__ = ["EndpointsController", "VolumeBinder"]

_SAFE = "bcdfghjklmnpqrstvwxz2456789"
PV_RESYNC = 15.0


def _suffix(seed: str) -> str:
    n = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")
    out = []
    for _ in range(5):
        n, r = divmod(n, len(_SAFE))
        out.append(_SAFE[r])
    return "".join(out)


def _target_port(pod: dict[str, Any], sp: dict[str, Any]) -> int | None:
    target = sp.get("targetPort", sp.get("port"))
    if isinstance(target, int) or (isinstance(target, str) and target.isdigit()):
        return int(target)
    for c in (pod.get("spec") or {}).get("containers") or []:
        for p in c.get("ports") or []:
            if p.get("name") == target:
                return int(p.get("containerPort", 0))
    return None


class EndpointsController:
    def __init__(self, store: Any) -> None:
        self.store = store

    async def run(self) -> None:
        await run_loop(self.store, self.reconcile, {"Service", "Pod", "EndpointSlice", "Endpoints"})

    def reconcile(self) -> float | None:
        for svc in self.store.items("services"):
            sel = (svc.get("spec") or {}).get("selector")
            if not sel or svc["metadata"].get("deletionTimestamp"):
                continue
            self._sync(svc, sel)
        return None

    def _sync(self, svc: dict[str, Any], sel: dict[str, str]) -> None:
        ns = svc["metadata"]["namespace"]
        name = svc["metadata"]["name"]
        ports = (svc.get("spec") or {}).get("ports") or []
        pods = [
            p
            for p in self.store.view("pods", ns)
            if all(((p["metadata"].get("labels") or {}).get(k) == v) for k, v in sel.items())
            and (p.get("status") or {}).get("podIP")
            and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        ]
        pods.sort(key=lambda p: p["metadata"]["name"])
        endpoints = []
        for p in pods:
            terminating = bool(p["metadata"].get("deletionTimestamp"))
            ready = pod_ready(p) and not terminating
            ep: dict[str, Any] = {
                "addresses": [p["status"]["podIP"]],
                "conditions": {"ready": ready, "serving": pod_ready(p), "terminating": terminating},
                "targetRef": {
                    "kind": "Pod",
                    "name": p["metadata"]["name"],
                    "namespace": ns,
                    "uid": p["metadata"]["uid"],
                },
            }
            if (p.get("spec") or {}).get("nodeName"):
                ep["nodeName"] = p["spec"]["nodeName"]
            endpoints.append(ep)
        slice_ports = []
        for sp in ports if pods else []:  # a placeholder slice (no endpoints) carries no ports
            tp = (
                _target_port(pods[0], sp)
                if pods
                else (sp.get("targetPort") if isinstance(sp.get("targetPort"), int) else None)
            )
            entry: dict[str, Any] = {
                "name": sp.get("name", ""),
                "port": tp if tp is not None else sp.get("port"),
                "protocol": sp.get("protocol", "TCP"),
            }
            slice_ports.append(entry)
        labels = {
            "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
            "kubernetes.io/service-name": name,
        }
        owner = {
            "apiVersion": "v1",
            "kind": "Service",
            "name": name,
            "uid": svc["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
        existing = [
            s
            for s in self.store.items("endpointslices", ns)
            if (s["metadata"].get("labels") or {}).get("kubernetes.io/service-name") == name
        ]
        body = {"addressType": "IPv4", "endpoints": endpoints or None, "ports": slice_ports or None}
        if existing:
            cur = existing[0]
            if any(cur.get(k) != v for k, v in body.items()):
                new = copy.deepcopy(cur)
                new.update(body)
                self.store.update("endpointslices", new, namespace=ns, manager="endpointslice-controller")
        else:
            obj = {
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "name": f"{name}-{_suffix(svc['metadata']['uid'])}",
                    "namespace": ns,
                    "labels": labels,
                    "ownerReferences": [owner],
                },
                **body,
            }
            self.store.create("endpointslices", obj, namespace=ns, manager="endpointslice-controller")
        # core/v1 Endpoints (deprecated, still maintained by the endpoints controller in 1.36)
        ready_addrs = [
            {"ip": e["addresses"][0], "nodeName": e.get("nodeName"), "targetRef": e["targetRef"]}
            for e in endpoints
            if e["conditions"]["ready"]
        ]
        unready = [
            {"ip": e["addresses"][0], "nodeName": e.get("nodeName"), "targetRef": e["targetRef"]}
            for e in endpoints
            if not e["conditions"]["ready"]
        ]
        subsets = []
        if endpoints:
            ss: dict[str, Any] = {"ports": [{k: v for k, v in p.items() if v != ""} for p in slice_ports]}
            if ready_addrs:
                ss["addresses"] = ready_addrs
            if unready:
                ss["notReadyAddresses"] = unready
            subsets.append(ss)
        cur_ep = self.store.get_or_none("endpoints", name, ns)
        if cur_ep is None:
            self.store.create(
                "endpoints",
                {
                    "apiVersion": "v1",
                    "kind": "Endpoints",
                    "metadata": {
                        "name": name,
                        "namespace": ns,
                        "labels": {"app.kubernetes.io/managed-by": "kube-controller-manager"},
                    },
                    **({"subsets": subsets} if subsets else {}),
                },
                namespace=ns,
                manager="kube-controller-manager",
            )
        elif (cur_ep.get("subsets") or []) != subsets:
            new_ep = copy.deepcopy(cur_ep)
            if subsets:
                new_ep["subsets"] = subsets
            else:
                new_ep.pop("subsets", None)
            self.store.update("endpoints", new_ep, namespace=ns, manager="kube-controller-manager")


class VolumeBinder:
    """PV controller: missing classes fail provisioning; WaitForFirstConsumer claims bind when consumed."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.recorder = EventRecorder(store, "persistentvolume-controller")
        self._emitted: dict[tuple[str, str], float] = {}  # (claim uid, reason) -> when last recorded

    async def run(self) -> None:
        await run_loop(self.store, self.reconcile, {"PersistentVolumeClaim", "Pod", "StorageClass"})

    def _record_once_per_resync(self, pvc: dict[str, Any], type_: str, reason: str, message: str) -> None:
        """The PV controller records a pending claim's event once per claim sync (every PV_RESYNC seconds),
        not on every change anywhere in the cluster."""
        key = (pvc["metadata"].get("uid", ""), reason)
        now = self.store.clock.timestamp()
        last = self._emitted.get(key)
        if last is not None and now - last < PV_RESYNC:
            return
        self._emitted[key] = now
        self.recorder.record(pvc, type_, reason, message)

    def reconcile(self) -> float | None:
        wake = False
        classes = {c["metadata"]["name"]: c for c in self.store.items("storageclasses")}
        default = next(
            (
                c
                for c in classes.values()
                if (c["metadata"].get("annotations") or {}).get("storageclass.kubernetes.io/is-default-class") == "true"
            ),
            None,
        )
        for pvc in self.store.items("persistentvolumeclaims"):
            if (pvc.get("status") or {}).get("phase") == "Bound" or pvc["metadata"].get("deletionTimestamp"):
                continue
            name = (pvc.get("spec") or {}).get("storageClassName")
            cls = classes.get(name) if name else default
            if cls is None:
                if name:
                    self._record_once_per_resync(
                        pvc, "Warning", M.REASON_PROVISIONING_FAILED, M.MSG_STORAGECLASS_NOT_FOUND.format(name=name)
                    )
                    wake = True
                continue
            if cls.get("volumeBindingMode") == "WaitForFirstConsumer" and not self._consumer_node(pvc):
                self._record_once_per_resync(pvc, "Normal", M.REASON_WAIT_FOR_FIRST_CONSUMER,
                                             M.MSG_WAIT_FOR_FIRST_CONSUMER)
                wake = True
                continue
            self._bind(pvc, cls)
        return self.store.clock.timestamp() + PV_RESYNC if wake else None

    def _consumer_node(self, pvc: dict[str, Any]) -> str | None:
        ns = pvc["metadata"]["namespace"]
        for p in self.store.view("pods", ns):
            node = (p.get("spec") or {}).get("nodeName")
            if not node:
                continue
            for v in (p.get("spec") or {}).get("volumes") or []:
                if (v.get("persistentVolumeClaim") or {}).get("claimName") == pvc["metadata"]["name"]:
                    return str(node)
        return None

    def _bind(self, pvc: dict[str, Any], cls: dict[str, Any]) -> None:
        ns = pvc["metadata"]["namespace"]
        pv_name = f"pvc-{pvc['metadata']['uid']}"
        size = ((pvc.get("spec") or {}).get("resources") or {}).get("requests", {}).get("storage", "1Gi")
        modes = (pvc.get("spec") or {}).get("accessModes") or ["ReadWriteOnce"]
        if self.store.get_or_none("persistentvolumes", pv_name) is None:
            self.store.create(
                "persistentvolumes",
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolume",
                    "metadata": {
                        "name": pv_name,
                        "annotations": {"pv.kubernetes.io/provisioned-by": cls.get("provisioner", "")},
                    },
                    "spec": {
                        "accessModes": modes,
                        "capacity": {"storage": size},
                        "claimRef": {
                            "apiVersion": "v1",
                            "kind": "PersistentVolumeClaim",
                            "name": pvc["metadata"]["name"],
                            "namespace": ns,
                            "uid": pvc["metadata"]["uid"],
                        },
                        "persistentVolumeReclaimPolicy": cls.get("reclaimPolicy", "Delete"),
                        "storageClassName": cls["metadata"]["name"],
                        "volumeMode": "Filesystem",
                        "hostPath": {
                            "path": f"/var/local-path-provisioner/{pv_name}_{ns}_{pvc['metadata']['name']}",
                            "type": "DirectoryOrCreate",
                        },
                    },
                },
                manager="persistentvolume-controller",
            )
            pv = self.store.get("persistentvolumes", pv_name)
            pv["status"] = {"phase": "Bound"}
            self.store.update_status("persistentvolumes", pv, manager="persistentvolume-controller")
        obj = copy.deepcopy(pvc)
        obj["spec"]["volumeName"] = pv_name
        obj["spec"].setdefault("storageClassName", cls["metadata"]["name"])
        obj = self.store.update("persistentvolumeclaims", obj, namespace=ns, manager="persistentvolume-controller")
        obj["status"] = {"accessModes": modes, "capacity": {"storage": size}, "phase": "Bound"}
        self.store.update_status("persistentvolumeclaims", obj, namespace=ns, manager="persistentvolume-controller")
