"""The merge metadata of the built-in types: one table for strategic merge patch and server-side apply.

Why: the real API server learns from Go struct tags (``patchStrategy``/``patchMergeKey``) how a strategic
merge patch merges each list, and from the OpenAPI extensions (``x-kubernetes-list-type``,
``x-kubernetes-list-map-keys``, ``x-kubernetes-map-type``) how server-side apply owns and merges it. kubectl's
patches (``label``, ``set image``, ``rollout restart``, client-side ``apply``) and its server-side applies only
come out right when we merge exactly as those tags say, so this module keeps a hand-written copy of them for
the types the simulator serves (core/v1, apps/v1, batch/v1, policy/v1, discovery/v1, networking/v1, rbac,
metav1.ObjectMeta), derived from the upstream ``types.go`` files.

A field missing from the table gets the upstream defaults: lists are atomic (replaced whole), objects are
merged key by key. Kinds missing from the table (custom resources) are treated like a structural schema without
list annotations: objects merge key by key, lists are atomic.

Must not: do I/O, know about HTTP, or hold any state; it is a pure lookup table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "FieldSpec",
    "DEDUCED",
    "UNKNOWN_STRUCT",
    "root_type",
    "field_spec",
    "is_builtin_kind",
    "list_keys_for",
]

FieldKind = Literal["struct", "map", "list", "scalar"]
ListType = Literal["atomic", "set", "map"]

DEDUCED = "__deduced__"  # untyped content (custom resources, preserve-unknown-fields): maps granular, lists atomic
UNKNOWN_STRUCT = "__struct__"  # a field of a built-in type that is not in the table: a struct of unknown fields


@dataclass(frozen=True)
class FieldSpec:
    """How one field of a type merges.

    ``kind``: ``struct`` (declared fields), ``map`` (free keys, each key owned as an entry; ``type`` is the
    value type if the values are structs),
    ``list`` (``type`` is the element type if the elements are structs), ``scalar``.
    SMP: ``smp_merge`` (patchStrategy merge) with ``merge_key`` (patchMergeKey; None for lists of primitives).
    SSA: ``list_type`` and ``list_keys`` for lists, ``atomic`` for structs and maps, ``key_defaults`` for list
    map keys that the schema defaults (a container port without ``protocol`` is keyed as TCP).
    ``retain_keys``: patchStrategy retainKeys. ``zero_present``: a Go non-pointer struct (or a list without
    ``omitempty``), present (empty) in a zero-valued object, which matters for the field sets an Update
    records.
    """

    kind: FieldKind
    type: str | None = None
    atomic: bool = False
    smp_merge: bool = False
    merge_key: str | None = None
    list_type: ListType = "atomic"
    list_keys: tuple[str, ...] = ()
    key_defaults: dict[str, object] = field(default_factory=dict)
    retain_keys: bool = False
    zero_present: bool = False


def _S(t: str = UNKNOWN_STRUCT, *, zero: bool = False, atomic: bool = False, retain: bool = False) -> FieldSpec:
    return FieldSpec("struct", t, atomic=atomic, retain_keys=retain, zero_present=zero)


def _M(t: str | None = None, *, atomic: bool = False) -> FieldSpec:
    return FieldSpec("map", t, atomic=atomic)


def _L(t: str | None = None, *, zero: bool = False) -> FieldSpec:
    """An atomic list with no SMP merge strategy (replaced whole by both SMP and SSA)."""
    return FieldSpec("list", t, zero_present=zero)


def _LM(
    t: str | None,
    smp_key: str,
    keys: tuple[str, ...] | None = None,
    *,
    defaults: dict[str, object] | None = None,
    retain: bool = False,
    zero: bool = False,
) -> FieldSpec:
    """patchStrategy=merge by ``smp_key``; listType=map with ``keys`` (default: the merge key)."""
    return FieldSpec(
        "list",
        t,
        smp_merge=True,
        merge_key=smp_key,
        list_type="map",
        list_keys=keys or (smp_key,),
        key_defaults=defaults or {},
        retain_keys=retain,
        zero_present=zero,
    )


def _LMA(t: str | None, smp_key: str) -> FieldSpec:
    """patchStrategy=merge by ``smp_key`` but listType=atomic for SSA."""
    return FieldSpec("list", t, smp_merge=True, merge_key=smp_key, list_type="atomic")


def _LS(*, smp: bool = True) -> FieldSpec:
    """A list of primitives: listType=set (SSA), patchStrategy=merge (SMP) unless ``smp`` is False."""
    return FieldSpec("list", None, smp_merge=smp, list_type="set")


_LABEL_SELECTOR = _S("LabelSelector", atomic=True)

TYPES: dict[str, dict[str, FieldSpec]] = {
    # --- metav1 ---------------------------------------------------------------------------------------------
    "ObjectMeta": {
        "labels": _M(),
        "annotations": _M(),
        "finalizers": _LS(),
        "ownerReferences": _LM("OwnerReference", "uid"),
        "managedFields": _L("ManagedFieldsEntry"),
    },
    "LabelSelector": {"matchLabels": _M(), "matchExpressions": _L()},
    # --- core/v1 Pod ----------------------------------------------------------------------------------------
    "Pod": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("PodSpec", zero=True),
            "status": _S("PodStatus", zero=True)},
    "PodTemplate": {"metadata": _S("ObjectMeta", zero=True), "template": _S("PodTemplateSpec", zero=True)},
    "PodTemplateSpec": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("PodSpec", zero=True)},
    "PodSpec": {
        "volumes": _LM("Volume", "name", retain=True),
        "initContainers": _LM("Container", "name"),
        "containers": _LM("Container", "name", zero=True),
        "ephemeralContainers": _LM("Container", "name"),
        "imagePullSecrets": _LM(None, "name"),
        "tolerations": _L(),
        "hostAliases": _LM("HostAlias", "ip"),
        "topologySpreadConstraints": _LM(
            "TopologySpreadConstraint", "topologyKey", ("topologyKey", "whenUnsatisfiable")
        ),
        "schedulingGates": _LM(None, "name"),
        "resourceClaims": _LM(None, "name", retain=True),
        "readinessGates": _L(),
        "nodeSelector": _M(atomic=True),
        "overhead": _M(),
        "affinity": _S("Affinity"),
        "securityContext": _S("PodSecurityContext"),
        "dnsConfig": _S("PodDNSConfig"),
        "resources": _S("ResourceRequirements"),
        "os": _S(),
    },
    "HostAlias": {"hostnames": _L()},
    "PodSecurityContext": {
        "supplementalGroups": _L(),
        "sysctls": _L(),
        "seLinuxOptions": _S(),
        "seccompProfile": _S(),
        "appArmorProfile": _S(),
        "windowsOptions": _S(),
    },
    "PodDNSConfig": {"nameservers": _L(), "searches": _L(), "options": _L()},
    "Affinity": {
        "nodeAffinity": _S("NodeAffinity"),
        "podAffinity": _S("PodAffinity"),
        "podAntiAffinity": _S("PodAffinity"),
    },
    "NodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": _S(atomic=True),
        "preferredDuringSchedulingIgnoredDuringExecution": _L(),
    },
    "PodAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": _L(),
        "preferredDuringSchedulingIgnoredDuringExecution": _L(),
    },
    "TopologySpreadConstraint": {"labelSelector": _LABEL_SELECTOR, "matchLabelKeys": _L()},
    "Container": {
        "ports": _LM(None, "containerPort", ("containerPort", "protocol"), defaults={"protocol": "TCP"}),
        "env": _LM("EnvVar", "name"),
        "envFrom": _L(),
        "volumeMounts": _LM(None, "mountPath"),
        "volumeDevices": _LM(None, "devicePath"),
        "command": _L(),
        "args": _L(),
        "resources": _S("ResourceRequirements", zero=True),
        "resizePolicy": _L(),
        "securityContext": _S("SecurityContext"),
        "livenessProbe": _S("Probe"),
        "readinessProbe": _S("Probe"),
        "startupProbe": _S("Probe"),
        "lifecycle": _S("Lifecycle"),
    },
    "EnvVar": {"valueFrom": _S("EnvVarSource")},
    "EnvVarSource": {
        "fieldRef": _S(atomic=True),
        "resourceFieldRef": _S(atomic=True),
        "configMapKeyRef": _S(atomic=True),
        "secretKeyRef": _S(atomic=True),
    },
    "ResourceRequirements": {"limits": _M(), "requests": _M(), "claims": _LM(None, "name")},
    "SecurityContext": {"capabilities": _S("Capabilities"), "seLinuxOptions": _S(), "seccompProfile": _S()},
    "Capabilities": {"add": _L(), "drop": _L()},
    "Probe": {"exec": _S("ExecAction"), "httpGet": _S("HTTPGetAction"), "tcpSocket": _S(), "grpc": _S()},
    "ExecAction": {"command": _L()},
    "HTTPGetAction": {"httpHeaders": _L()},
    "Lifecycle": {"postStart": _S("LifecycleHandler"), "preStop": _S("LifecycleHandler")},
    "LifecycleHandler": {"exec": _S("ExecAction"), "httpGet": _S("HTTPGetAction")},
    "Volume": {
        "configMap": _S("KeyToPathVolume"),
        "secret": _S("KeyToPathVolume"),
        "projected": _S("ProjectedVolume"),
        "downwardAPI": _S("DownwardAPIVolume"),
        "ephemeral": _S(),
        "csi": _S("CSIVolume"),
    },
    "KeyToPathVolume": {"items": _L()},
    "ProjectedVolume": {"sources": _L()},
    "DownwardAPIVolume": {"items": _L()},
    "CSIVolume": {"volumeAttributes": _M()},
    "PodStatus": {
        "conditions": _LM(None, "type"),
        "containerStatuses": _L(),
        "initContainerStatuses": _L(),
        "ephemeralContainerStatuses": _L(),
        "podIPs": _LMA(None, "ip"),
        "hostIPs": _LMA(None, "ip"),
        "resourceClaimStatuses": _LM(None, "name"),
    },
    # --- core/v1 others -------------------------------------------------------------------------------------
    "Service": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("ServiceSpec", zero=True),
                "status": _S("ServiceStatus", zero=True)},
    "ServiceSpec": {
        "ports": _LM(None, "port", ("port", "protocol"), defaults={"protocol": "TCP"}),
        "selector": _M(atomic=True),
        "externalIPs": _L(),
        "clusterIPs": _L(),
        "ipFamilies": _L(),
        "loadBalancerSourceRanges": _L(),
        "sessionAffinityConfig": _S(),
    },
    "ServiceStatus": {"loadBalancer": _S("LoadBalancerStatus"), "conditions": _LM(None, "type")},
    "LoadBalancerStatus": {"ingress": _L()},
    "Endpoints": {"metadata": _S("ObjectMeta", zero=True), "subsets": _L()},
    "ConfigMap": {"metadata": _S("ObjectMeta", zero=True), "data": _M(), "binaryData": _M()},
    "Secret": {"metadata": _S("ObjectMeta", zero=True), "data": _M(), "stringData": _M()},
    "Namespace": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("NamespaceSpec", zero=True),
                  "status": _S("NamespaceStatus", zero=True)},
    "NamespaceSpec": {"finalizers": _L()},
    "NamespaceStatus": {"conditions": _LM(None, "type")},
    "Node": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("NodeSpec", zero=True),
             "status": _S("NodeStatus", zero=True)},
    "NodeSpec": {"podCIDRs": _LS(), "taints": _L()},
    "NodeStatus": {
        "conditions": _LM(None, "type"),
        "addresses": _LMA(None, "type"),
        "capacity": _M(),
        "allocatable": _M(),
        "images": _L(),
        "volumesInUse": _L(),
        "volumesAttached": _L(),
        "daemonEndpoints": _S(zero=True),
        "nodeInfo": _S(zero=True),
    },
    "ServiceAccount": {"metadata": _S("ObjectMeta", zero=True), "secrets": _LM(None, "name"),
                       "imagePullSecrets": _L()},
    "PersistentVolumeClaim": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("PVCSpec", zero=True),
                              "status": _S("PVCStatus", zero=True)},
    "PVCSpec": {"accessModes": _L(), "selector": _LABEL_SELECTOR, "resources": _S("ResourceRequirements", zero=True),
                "dataSource": _S(), "dataSourceRef": _S()},
    "PVCStatus": {"accessModes": _L(), "capacity": _M(), "conditions": _LM(None, "type"),
                  "allocatedResources": _M()},
    "PersistentVolume": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("PVSpec", zero=True),
                         "status": _S(zero=True)},
    "PVSpec": {"accessModes": _L(), "capacity": _M(), "claimRef": _S(atomic=True), "mountOptions": _L(),
               "nodeAffinity": _S("VolumeNodeAffinity")},
    "VolumeNodeAffinity": {"required": _S(atomic=True)},
    "ResourceQuota": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("ResourceQuotaSpec", zero=True),
                      "status": _S("ResourceQuotaStatus", zero=True)},
    "ResourceQuotaSpec": {"hard": _M(), "scopes": _L(), "scopeSelector": _S()},
    "ResourceQuotaStatus": {"hard": _M(), "used": _M()},
    "LimitRange": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("LimitRangeSpec", zero=True)},
    "LimitRangeSpec": {"limits": _L()},
    "Event": {"metadata": _S("ObjectMeta", zero=True), "involvedObject": _S(zero=True), "source": _S(zero=True)},
    "ReplicationController": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("RCSpec", zero=True),
                              "status": _S("ReplicaSetStatus", zero=True)},
    "RCSpec": {"selector": _M(atomic=True), "template": _S("PodTemplateSpec")},
    # --- apps/v1 --------------------------------------------------------------------------------------------
    "Deployment": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("DeploymentSpec", zero=True),
                   "status": _S("WorkloadStatus", zero=True)},
    "DeploymentSpec": {
        "selector": _LABEL_SELECTOR,
        "template": _S("PodTemplateSpec", zero=True),
        "strategy": _S("DeploymentStrategy", zero=True, retain=True),
    },
    "DeploymentStrategy": {"rollingUpdate": _S()},
    "WorkloadStatus": {"conditions": _LM(None, "type")},
    "ReplicaSet": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("ReplicaSetSpec", zero=True),
                   "status": _S("ReplicaSetStatus", zero=True)},
    "ReplicaSetSpec": {"selector": _LABEL_SELECTOR, "template": _S("PodTemplateSpec", zero=True)},
    "ReplicaSetStatus": {"conditions": _LM(None, "type")},
    "StatefulSet": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("StatefulSetSpec", zero=True),
                    "status": _S("WorkloadStatus", zero=True)},
    "StatefulSetSpec": {
        "selector": _LABEL_SELECTOR,
        "template": _S("PodTemplateSpec", zero=True),
        "volumeClaimTemplates": _L(),
        "updateStrategy": _S(zero=True),
        "persistentVolumeClaimRetentionPolicy": _S(),
        "ordinals": _S(),
    },
    "DaemonSet": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("DaemonSetSpec", zero=True),
                  "status": _S("WorkloadStatus", zero=True)},
    "DaemonSetSpec": {
        "selector": _LABEL_SELECTOR,
        "template": _S("PodTemplateSpec", zero=True),
        "updateStrategy": _S(zero=True),
    },
    "ControllerRevision": {"metadata": _S("ObjectMeta", zero=True), "data": _S(DEDUCED)},
    # --- batch/v1 -------------------------------------------------------------------------------------------
    "Job": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("JobSpec", zero=True),
            "status": _S("JobStatus", zero=True)},
    "JobTemplateSpec": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("JobSpec", zero=True)},
    "JobSpec": {
        "selector": _LABEL_SELECTOR,
        "template": _S("PodTemplateSpec", zero=True),
        "podFailurePolicy": _S("RulesHolder"),
        "successPolicy": _S("RulesHolder"),
    },
    "RulesHolder": {"rules": _L()},
    "JobStatus": {"conditions": _LMA(None, "type"), "uncountedTerminatedPods": _S("UncountedTerminatedPods")},
    "UncountedTerminatedPods": {"succeeded": _LS(smp=False), "failed": _LS(smp=False)},
    "CronJob": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("CronJobSpec", zero=True),
                "status": _S("CronJobStatus", zero=True)},
    "CronJobSpec": {"jobTemplate": _S("JobTemplateSpec", zero=True)},
    "CronJobStatus": {"active": _L()},
    # --- policy/v1 ------------------------------------------------------------------------------------------
    "PodDisruptionBudget": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("PDBSpec", zero=True),
                            "status": _S("PDBStatus", zero=True)},
    "PDBSpec": {"selector": _LABEL_SELECTOR},
    "PDBStatus": {"conditions": _LM(None, "type"), "disruptedPods": _M()},
    # --- discovery/v1 ---------------------------------------------------------------------------------------
    "EndpointSlice": {"metadata": _S("ObjectMeta", zero=True), "endpoints": _L(zero=True), "ports": _L()},
    # --- networking/v1 --------------------------------------------------------------------------------------
    "Ingress": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("IngressSpec", zero=True),
                "status": _S("IngressStatus", zero=True)},
    "IngressSpec": {"rules": _L(), "tls": _L(), "defaultBackend": _S()},
    "IngressStatus": {"loadBalancer": _S("LoadBalancerStatus", zero=True)},
    "IngressClass": {"metadata": _S("ObjectMeta", zero=True), "spec": _S(zero=True)},
    "NetworkPolicy": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("NetworkPolicySpec", zero=True)},
    "NetworkPolicySpec": {"podSelector": _LABEL_SELECTOR, "ingress": _L(), "egress": _L(), "policyTypes": _L()},
    # --- rbac.authorization.k8s.io/v1 -----------------------------------------------------------------------
    "Role": {"metadata": _S("ObjectMeta", zero=True), "rules": _L(zero=True)},
    "ClusterRole": {"metadata": _S("ObjectMeta", zero=True), "rules": _L(zero=True), "aggregationRule": _S()},
    "RoleBinding": {"metadata": _S("ObjectMeta", zero=True), "subjects": _L(), "roleRef": _S(atomic=True)},
    # --- others served by the simulator ---------------------------------------------------------------------
    "Lease": {"metadata": _S("ObjectMeta", zero=True), "spec": _S(zero=True)},
    "StorageClass": {"metadata": _S("ObjectMeta", zero=True), "parameters": _M(), "mountOptions": _L(),
                     "allowedTopologies": _L()},
    "PriorityClass": {"metadata": _S("ObjectMeta", zero=True)},
    "HorizontalPodAutoscaler": {"metadata": _S("ObjectMeta", zero=True), "spec": _S("HPASpec", zero=True),
                                "status": _S("HPAStatus", zero=True)},
    "HPASpec": {"metrics": _L(), "scaleTargetRef": _S(zero=True)},
    "HPAStatus": {"conditions": _L(), "currentMetrics": _L()},
    "Scale": {"metadata": _S("ObjectMeta", zero=True), "spec": _S(zero=True), "status": _S(zero=True)},
}

# (API group, kind) -> root type. Versions within a group share their merge metadata for these kinds.
_ROOTS: dict[tuple[str, str], str] = {
    ("", "Pod"): "Pod",
    ("", "PodTemplate"): "PodTemplate",
    ("", "Service"): "Service",
    ("", "Endpoints"): "Endpoints",
    ("", "ConfigMap"): "ConfigMap",
    ("", "Secret"): "Secret",
    ("", "Namespace"): "Namespace",
    ("", "Node"): "Node",
    ("", "ServiceAccount"): "ServiceAccount",
    ("", "PersistentVolumeClaim"): "PersistentVolumeClaim",
    ("", "PersistentVolume"): "PersistentVolume",
    ("", "ResourceQuota"): "ResourceQuota",
    ("", "LimitRange"): "LimitRange",
    ("", "Event"): "Event",
    ("", "ReplicationController"): "ReplicationController",
    ("apps", "Deployment"): "Deployment",
    ("apps", "ReplicaSet"): "ReplicaSet",
    ("apps", "StatefulSet"): "StatefulSet",
    ("apps", "DaemonSet"): "DaemonSet",
    ("apps", "ControllerRevision"): "ControllerRevision",
    ("batch", "Job"): "Job",
    ("batch", "CronJob"): "CronJob",
    ("policy", "PodDisruptionBudget"): "PodDisruptionBudget",
    ("discovery.k8s.io", "EndpointSlice"): "EndpointSlice",
    ("networking.k8s.io", "Ingress"): "Ingress",
    ("networking.k8s.io", "IngressClass"): "IngressClass",
    ("networking.k8s.io", "NetworkPolicy"): "NetworkPolicy",
    ("rbac.authorization.k8s.io", "Role"): "Role",
    ("rbac.authorization.k8s.io", "ClusterRole"): "ClusterRole",
    ("rbac.authorization.k8s.io", "RoleBinding"): "RoleBinding",
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): "RoleBinding",
    ("coordination.k8s.io", "Lease"): "Lease",
    ("storage.k8s.io", "StorageClass"): "StorageClass",
    ("scheduling.k8s.io", "PriorityClass"): "PriorityClass",
    ("autoscaling", "HorizontalPodAutoscaler"): "HorizontalPodAutoscaler",
    ("autoscaling", "Scale"): "Scale",
    ("events.k8s.io", "Event"): "Event",
}

_DEDUCED_ROOT = "__deduced_root__"
TYPES[_DEDUCED_ROOT] = {"metadata": _S("ObjectMeta", zero=True)}


def _group(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def is_builtin_kind(api_version: str, kind: str) -> bool:
    """True when the table knows this kind (strategic merge patch is only defined for those)."""
    return (_group(api_version), kind) in _ROOTS


def root_type(api_version: str, kind: str) -> str:
    """The type name to start walking an object of this kind from (a deduced root for unknown kinds)."""
    return _ROOTS.get((_group(api_version), kind), _DEDUCED_ROOT)


_DEDUCED_OBJECT = FieldSpec("struct", DEDUCED)
_UNKNOWN_STRUCT_FIELD = FieldSpec("struct", UNKNOWN_STRUCT)
_ATOMIC_LIST = FieldSpec("list")


def field_spec(type_name: str | None, name: str, value: object = None) -> FieldSpec:
    """The merge metadata of field ``name`` of ``type_name``.

    Unknown fields are typed from their value: a list is atomic, an object a struct of unknown fields (or a
    granular map under a deduced type), anything else a scalar.
    """
    if type_name is not None:
        spec = TYPES.get(type_name, {}).get(name)
        if spec is not None:
            return spec
    if isinstance(value, list):
        return _ATOMIC_LIST
    if isinstance(value, dict):
        if type_name == DEDUCED or type_name == _DEDUCED_ROOT:
            return _DEDUCED_OBJECT
        return _UNKNOWN_STRUCT_FIELD
    return FieldSpec("scalar")


def is_deduced(type_name: str | None) -> bool:
    """True for untyped content (custom resources): objects merge key by key, lists are atomic."""
    return type_name in (DEDUCED, _DEDUCED_ROOT)


def list_keys_for(api_version: str, kind: str, path: str) -> tuple[str, ...] | None:
    """The SSA list-map keys of the list at dotted ``path`` (e.g. ``spec.template.spec.containers``).

    Returns None when the list is not an associative list (atomic or set). Mostly for callers and tests that
    want to check the table without walking objects.
    """
    t: str | None = root_type(api_version, kind)
    parts = path.split(".")
    for i, part in enumerate(parts):
        spec = field_spec(t, part)
        if i == len(parts) - 1:
            return spec.list_keys if spec.kind == "list" and spec.list_type == "map" else None
        t = spec.type
    return None
