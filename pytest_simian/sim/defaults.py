"""Server-side defaulting and the validation rules the embedded API server enforces.

Why: clients read defaulted fields (``kubectl describe deployment`` prints ``RollingUpdateStrategy: 25% max
unavailable, 25% max surge``; the Python client's pydantic models require fields a real server always
sets), and a subject must get the same 422 Invalid a real server gives for a broken manifest. The defaults
mirror k8s.io/kubernetes/pkg/apis/*/v1/defaults.go for the fields clients show.
Must not: run controllers or invent status a controller would write (that is issue 4's kubelet and
controllers).
"""

from __future__ import annotations

import base64
import re
from typing import TYPE_CHECKING, Any

from . import errors
from .resources import ResourceType

if TYPE_CHECKING:
    from .store import Store

_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_KINDS = {"Namespace", "Service"}

_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


#: scheduling.k8s.io built-in PriorityClasses (pkg/apis/scheduling/types.go SystemCriticalPriority)
_PRIORITY_CLASSES = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}

def validate(rt: ResourceType, obj: dict[str, Any]) -> None:
    md = obj.get("metadata") or {}
    name = md.get("name") or ""
    causes: list[tuple[str, str, str]] = []
    if not name:
        causes.append(("metadata.name", "FieldValueRequired", "Required value: name or generateName is required"))
    elif rt.kind in _LABEL_KINDS and (len(name) > 63 or not _DNS1123_LABEL.match(name)):
        causes.append(("metadata.name", "FieldValueInvalid", f'Invalid value: "{name}": {_LABEL_MSG}'))
    elif rt.kind not in _LABEL_KINDS and rt.group != "rbac.authorization.k8s.io" and (
            len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name)):
        causes.append(("metadata.name", "FieldValueInvalid", f'Invalid value: "{name}": {_SUBDOMAIN_MSG}'))
    spec = obj.get("spec") or {}
    if rt.kind == "Pod":
        causes += _pod_spec_causes(spec, "spec")
    elif rt.kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"):
        sel = spec.get("selector")
        tmpl_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if not sel:
            causes.append(("spec.selector", "FieldValueRequired", "Required value"))
        else:
            ml = sel.get("matchLabels") or {}
            if any(tmpl_labels.get(k) != v for k, v in ml.items()):
                shown = "map[string]string{" + ", ".join(f'"{k}":"{v}"' for k, v in sorted(tmpl_labels.items()))
                causes.append(("spec.template.metadata.labels", "FieldValueInvalid",
                               f"Invalid value: {shown}}}: `selector` does not match template `labels`"))
        causes += _pod_spec_causes((spec.get("template") or {}).get("spec") or {}, "spec.template.spec")
        r = spec.get("replicas")
        if isinstance(r, int) and r < 0:
            causes.append(("spec.replicas", "FieldValueInvalid",
                           f"Invalid value: {r}: must be greater than or equal to 0"))
    elif rt.kind == "Job":
        causes += _pod_spec_causes((spec.get("template") or {}).get("spec") or {}, "spec.template.spec")
    elif rt.kind == "ConfigMap":
        for k in list(obj.get("data") or {}) + list(obj.get("binaryData") or {}):
            if not re.match(r"^[-._a-zA-Z0-9]+$", k):
                causes.append((f"data[{k}]", "FieldValueInvalid", f'Invalid value: "{k}": a valid config key must '
                               "consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
                               "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"))
    if causes:
        raise errors.invalid(rt.kind, rt.group, name, causes)


def _pod_spec_causes(spec: dict[str, Any], path: str) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    containers = spec.get("containers")
    if not containers:
        out.append((f"{path}.containers", "FieldValueRequired", "Required value"))
        return out
    for i, c in enumerate(containers):
        if not c.get("name"):
            out.append((f"{path}.containers[{i}].name", "FieldValueRequired", "Required value"))
        if not c.get("image"):
            out.append((f"{path}.containers[{i}].image", "FieldValueRequired", "Required value"))
    return out


def _container(c: dict[str, Any]) -> None:
    image = c.get("image") or ""
    tag = image.rsplit("/", 1)[-1]
    if "imagePullPolicy" not in c:
        c["imagePullPolicy"] = "Always" if ("@" not in tag and (":" not in tag or tag.endswith(":latest"))) \
            else "IfNotPresent"
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    c.setdefault("resources", {})
    for p in c.get("ports") or []:
        p.setdefault("protocol", "TCP")
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        pr = c.get(probe)
        if isinstance(pr, dict):
            pr.setdefault("timeoutSeconds", 1)
            pr.setdefault("periodSeconds", 10)
            pr.setdefault("successThreshold", 1)
            pr.setdefault("failureThreshold", 3)
            if isinstance(pr.get("httpGet"), dict):
                pr["httpGet"].setdefault("path", "/")
                pr["httpGet"].setdefault("scheme", "HTTP")


def pod_spec_defaults(spec: dict[str, Any]) -> None:
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            _container(c)
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    if spec.get("serviceAccountName"):
        spec.setdefault("serviceAccount", spec["serviceAccountName"])
    for v in spec.get("volumes") or []:
        for src in ("configMap", "secret"):
            if isinstance(v.get(src), dict):
                v[src].setdefault("defaultMode", 420)


def _template(spec: dict[str, Any]) -> None:
    tmpl = spec.setdefault("template", {})
    tmpl.setdefault("metadata", {})
    pod_spec_defaults(tmpl.setdefault("spec", {}))


def apply_defaults(rt: ResourceType, obj: dict[str, Any], store: Store,
                   old: dict[str, Any] | None = None) -> None:
    kind = rt.kind
    md = obj["metadata"]
    spec = obj.get("spec")
    if kind == "Namespace":
        md.setdefault("labels", {})["kubernetes.io/metadata.name"] = md["name"]
        obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
        if old is None:
            obj["status"] = {"phase": "Active"}
    elif kind == "Pod":
        spec = obj.setdefault("spec", {})
        pod_spec_defaults(spec)
        if old is None:  # SetDefaults_Pod: requests default to limits (pods only, not templates)
            for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
                lims = (c.get("resources") or {}).get("limits") or {}
                for r, v in lims.items():
                    c["resources"].setdefault("requests", {}).setdefault(r, v)
        if spec.get("serviceAccountName") is None and old is None:
            spec["serviceAccountName"] = "default"
            spec["serviceAccount"] = "default"
        spec.setdefault("enableServiceLinks", True)
        spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
        if old is None and "priority" not in spec:  # the Priority admission plugin's built-in classes
            spec["priority"] = _PRIORITY_CLASSES.get(str(spec.get("priorityClassName") or ""), 0)
        spec.setdefault("priority", 0)
        if old is None:
            spec.setdefault("tolerations", [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                 "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                 "tolerationSeconds": 300},
            ])
            st = obj.setdefault("status", {})
            st.setdefault("phase", "Pending")
            st.setdefault("qosClass", _qos(spec))
    elif kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"):
        spec = obj.setdefault("spec", {})
        if kind != "DaemonSet":
            spec.setdefault("replicas", 1)
        _template(spec)
        if kind == "Deployment":
            strat = spec.setdefault("strategy", {})
            strat.setdefault("type", "RollingUpdate")
            if strat["type"] == "RollingUpdate":
                ru = strat.setdefault("rollingUpdate", {})
                ru.setdefault("maxUnavailable", "25%")
                ru.setdefault("maxSurge", "25%")
            spec.setdefault("revisionHistoryLimit", 10)
            spec.setdefault("progressDeadlineSeconds", 600)
        elif kind == "StatefulSet":
            spec.setdefault("podManagementPolicy", "OrderedReady")
            us = spec.setdefault("updateStrategy", {"type": "RollingUpdate"})
            if us.get("type") == "RollingUpdate":
                us.setdefault("rollingUpdate", {"partition": 0})
            spec.setdefault("revisionHistoryLimit", 10)
            spec.setdefault("persistentVolumeClaimRetentionPolicy",
                            {"whenDeleted": "Retain", "whenScaled": "Retain"})
        elif kind == "DaemonSet":
            us = spec.setdefault("updateStrategy", {"type": "RollingUpdate"})
            if us.get("type") == "RollingUpdate":
                us.setdefault("rollingUpdate", {"maxUnavailable": 1, "maxSurge": 0})
            spec.setdefault("revisionHistoryLimit", 10)
        if old is None:
            obj.setdefault("status", {})
    elif kind == "Job":
        spec = obj.setdefault("spec", {})
        _job_defaults(spec, md)
        if old is None:
            obj.setdefault("status", {})
    elif kind == "CronJob":
        spec = obj.setdefault("spec", {})
        spec.setdefault("concurrencyPolicy", "Allow")
        spec.setdefault("suspend", False)
        spec.setdefault("successfulJobsHistoryLimit", 3)
        spec.setdefault("failedJobsHistoryLimit", 1)
        jt = spec.setdefault("jobTemplate", {})
        jt.setdefault("metadata", {})
        js = jt.setdefault("spec", {})
        _template(js)
        js.setdefault("backoffLimit", 6)
        js.setdefault("completionMode", "NonIndexed")
        js.setdefault("suspend", False)
        if old is None:
            obj.setdefault("status", {})
    elif kind == "Service":
        _service_defaults(obj, store, old)
    elif kind == "Secret":
        obj.setdefault("type", "Opaque")
        sd = obj.pop("stringData", None)
        if isinstance(sd, dict):
            data = obj.setdefault("data", {})
            for k, v in sd.items():
                data[k] = base64.b64encode(str(v).encode()).decode()
    elif kind == "PersistentVolumeClaim":
        spec = obj.setdefault("spec", {})
        spec.setdefault("volumeMode", "Filesystem")
        if old is None:
            obj.setdefault("status", {"phase": "Pending"})
    elif kind == "PersistentVolume":
        spec = obj.setdefault("spec", {})
        spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
        spec.setdefault("volumeMode", "Filesystem")
        if old is None:
            obj.setdefault("status", {"phase": "Pending"})
    elif kind == "StorageClass":
        obj.setdefault("reclaimPolicy", "Delete")
        obj.setdefault("volumeBindingMode", "Immediate")
    elif kind == "PodDisruptionBudget" and old is None:
        obj.setdefault("status", {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                  "expectedPods": 0})
    elif kind == "NetworkPolicy":
        spec = obj.setdefault("spec", {})
        if "policyTypes" not in spec:
            spec["policyTypes"] = ["Ingress"] + (["Egress"] if "egress" in spec else [])


def _job_defaults(spec: dict[str, Any], md: dict[str, Any]) -> None:
    spec.setdefault("parallelism", 1)
    if "completions" not in spec and spec.get("completionMode") != "Indexed":
        spec["completions"] = 1
    spec.setdefault("backoffLimit", 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("manualSelector", None)
    if spec.get("manualSelector") is None:
        spec.pop("manualSelector")
    spec.setdefault("podReplacementPolicy", "TerminatingOrFailed")
    _template(spec)
    uid = md.get("uid", "")
    if not spec.get("manualSelector") and uid:
        spec.setdefault("selector", {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}})
        labels = spec["template"]["metadata"].setdefault("labels", {})
        labels.setdefault("batch.kubernetes.io/controller-uid", uid)
        labels.setdefault("batch.kubernetes.io/job-name", md.get("name", ""))
        labels.setdefault("controller-uid", uid)
        labels.setdefault("job-name", md.get("name", ""))


def _qos(spec: dict[str, Any]) -> str:
    reqs_any = False
    guaranteed = True
    for c in spec.get("containers") or []:
        res = c.get("resources") or {}
        lim, req = res.get("limits") or {}, res.get("requests") or {}
        if lim or req:
            reqs_any = True
        for r in ("cpu", "memory"):
            if r not in lim or (r in req and req[r] != lim[r]):
                guaranteed = False
    if not reqs_any:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _service_defaults(obj: dict[str, Any], store: Store, old: dict[str, Any] | None) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    if spec["type"] != "ExternalName":
        if old is not None and (old.get("spec") or {}).get("clusterIP"):
            spec.setdefault("clusterIP", old["spec"]["clusterIP"])
            spec.setdefault("clusterIPs", old["spec"].get("clusterIPs", [old["spec"]["clusterIP"]]))
        if not spec.get("clusterIP"):
            spec["clusterIP"] = store.next_ip()
        if spec["clusterIP"] != "None":
            spec.setdefault("clusterIPs", [spec["clusterIP"]])
        else:
            spec.setdefault("clusterIPs", ["None"])
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        spec.setdefault("internalTrafficPolicy", "Cluster")
    old_ports = {p.get("port"): p for p in ((old or {}).get("spec") or {}).get("ports") or []}
    for p in spec.get("ports") or []:
        p.setdefault("protocol", "TCP")
        p.setdefault("targetPort", p.get("port"))
        if spec["type"] in ("NodePort", "LoadBalancer") and "nodePort" not in p:
            prev = old_ports.get(p.get("port"), {}).get("nodePort")
            p["nodePort"] = prev or 30000 + (store.resource_version * 7919) % 2767
    if spec["type"] in ("NodePort", "LoadBalancer"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    if old is None:
        obj.setdefault("status", {"loadBalancer": {}})
