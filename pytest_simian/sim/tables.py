"""Server-side Tables (``meta.k8s.io/v1 Table``) for the simulated API server.

Why this exists: ``kubectl get`` (plain, ``-o wide`` and ``-w``) does not format
objects itself. It sends ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...``
and prints whatever columns and cells the API server returns. A real
kube-apiserver builds those rows with the printers in kubernetes
``pkg/printers/internalversion/printers.go``; a subject that runs
``kubectl get pods`` against this cluster must see exactly what a real 1.36
cluster would show (``1/2  CrashLoopBackOff  7 (2m ago)  3h15m``), so every printer
here is a line-by-line transliteration of its upstream function, cited next to it.

Upstream sources (kubernetes/kubernetes):

* ``pkg/printers/internalversion/printers.go`` - ``AddHandlers`` (column
  definitions) and one ``printX`` function per kind;
* ``pkg/printers/storage/storage.go`` - ``TableConvertor.ConvertToTable`` always
  generates with ``Wide: true``: the server sends every column, priority-1 ones
  included, and kubectl hides priority > 0 unless ``-o wide``;
* ``pkg/printers/tablegenerator.go`` - ``GenerateTable`` (ListMeta copying,
  ``NoHeaders`` drops ``columnDefinitions``);
* ``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go`` -
  ``asTable`` (``includeObject`` = ``None`` / ``Metadata`` / ``Object``);
* ``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go`` - only the
  first watch event carries headers (callers pass ``no_headers=True`` after it);
* ``staging/src/k8s.io/apiserver/pkg/registry/rest/table.go`` - the default
  ``Name`` / ``Created At`` table of kinds without a printer (roles, limitranges,
  CRDs, ...);
* ``staging/src/k8s.io/apiextensions-apiserver/.../tableconvertor/tableconvertor.go``
  - custom resources (``Name`` + ``additionalPrinterColumns``, default ``Age``).

What it must not do: I/O, logging, reading the clock (``now`` is a parameter),
importing aiohttp or the store, or mutating the objects it is given. It takes
plain JSON-shaped dicts (the versioned objects as stored) and returns a
JSON-shaped dict that the server serialises as it is. Key order follows the Go
structs, so ``json.dumps`` of the result matches the real wire format.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pytest_simian.sim.humanize import human_duration

__all__ = [
    "INCLUDE_OBJECT_VALUES",
    "render_table",
    "supports",
    "table_options_error",
    "uses_default_table",
]

INCLUDE_OBJECT_VALUES = ("None", "Metadata", "Object")

Obj = Mapping[str, Any]

# ---------------------------------------------------------------------------
# Column descriptions.  Upstream fills them from the generated SwaggerDoc() maps
# of the k8s.io/api types (the same comments the OpenAPI descriptions come from).
# ---------------------------------------------------------------------------

# metav1.ObjectMeta{}.SwaggerDoc()["name"] / ["creationTimestamp"]
_D_NAME = (
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name automatically. "
    "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
    "updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_D_CREATED = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. "
    "It is not guaranteed to be set in happens-before order across separate operations. Clients may "
    "not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. "
    "Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_D_CONTAINERS = "Names of each container in the template."
_D_IMAGES = "Images referenced by each container in the template."

# core/v1 (PodStatus, PodSpec)
_D_POD_IP = "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."
_D_POD_NODE = (
    "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for "
    "scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this "
    "node becomes responsible for the lifecycle of this pod. This field should not be used to express a "
    "desire for the pod to be scheduled on a specific node. "
    "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
)
_D_POD_NOMINATED = (
    "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be "
    "scheduled right away as preemption victims receive their graceful termination periods. This field "
    "does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the "
    "pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the "
    "resources on this node to a higher priority pod that is created after preemption. As a result, "
    "this field may be different than PodSpec.nodeName when the pod is scheduled."
)
_D_POD_READINESS_GATES = (
    "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
    'containers are ready AND all conditions specified in the readiness gates have status equal to "True" '
    "More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"
)
_D_NODE_SELECTOR = (
    "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must "
    "match a node's labels for the pod to be scheduled on that node. More info: "
    "https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"
)
# core/v1 ReplicationController
_D_RC_SPEC_REPLICAS = (
    "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero "
    "and unspecified. Defaults to 1. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"
)
_D_RC_STATUS_REPLICAS = (
    "Replicas is the most recently observed number of replicas. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"
)
_D_RC_READY = "The number of ready replicas for this replication controller."
_D_RC_SELECTOR = (
    "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it "
    "is defaulted to the labels present on the Pod template. Label keys and values that must match in "
    "order to be controlled by this replication controller, if empty defaulted to labels on Pod "
    "template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
)
# extensions/v1beta1 ReplicaSet / DaemonSet / Deployment / NetworkPolicy (printers.go uses these docs)
_D_RS_SPEC_REPLICAS = (
    "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero "
    "and unspecified. Defaults to 1. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller"
)
_D_RS_STATUS_REPLICAS = (
    "Replicas is the most recently observed number of non-terminating pods. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller"
)
_D_RS_READY = "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition."
_D_RS_SELECTOR = (
    "Selector is a label query over pods that should match the replica count. If the selector is empty, "
    "it is defaulted to the labels present on the pod template. Label keys and values that must match "
    "in order to be controlled by this replica set. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
)
_D_DS_DESIRED = (
    "The total number of nodes that should be running the daemon pod (including nodes correctly running "
    "the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"
)
_D_DS_CURRENT = (
    "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. "
    "More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"
)
_D_DS_READY = (
    "numberReady is the number of nodes that should be running the daemon pod and have one or more of "
    "the daemon pod running with a Ready Condition."
)
_D_DS_UPDATED = "The total number of nodes that are running updated daemon pod"
_D_DS_AVAILABLE = (
    "The number of nodes that should be running the daemon pod and have one or more of the daemon pod "
    "running and available (ready for at least spec.minReadySeconds)"
)
_D_DS_SELECTOR = (
    "A label query over pods that are managed by the daemon set. Must match in order to be controlled. "
    "If empty, defaulted to labels on Pod template. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
)
_D_DEPLOY_UPDATED = (
    "Total number of non-terminating pods targeted by this deployment that have the desired template spec."
)
_D_DEPLOY_AVAILABLE = (
    "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment."
)
_D_DEPLOY_SELECTOR = (
    "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones "
    "affected by this deployment."
)
_D_NETPOL_POD_SELECTOR = (
    "Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied "
    "to any pods selected by this field. Multiple network policies can select the same set of pods. In "
    "this case, the ingress rules for each are combined additively. This field is NOT optional and "
    "follows standard label selector semantics. An empty podSelector matches all pods in this namespace."
)
# batch
_D_JOB_SUCCEEDED = (
    "The number of pods which reached phase Succeeded. The value increases monotonically for a given "
    "spec. However, it may decrease in reaction to scale down of elastic indexed jobs."
)
_D_JOB_SELECTOR = (
    "A label query over pods that should match the pod count. Normally, the system sets this field for "
    "you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
)
_D_CJ_SCHEDULE = "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."
_D_CJ_TIMEZONE = (
    "The time zone name for the given schedule, see "
    "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default "
    "to the time zone of the kube-controller-manager process. The set "
    "of valid time zone names and the time zone offset is loaded from the system-wide time zone database "
    "by the API server during CronJob validation and the controller manager during execution. If no "
    "system-wide time zone database can be found a bundled version of the database is used instead. If "
    "the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host "
    "configuration, the controller will stop creating new new Jobs and will create a system event with "
    "the reason UnknownTimeZone. More information can be found in "
    "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"
)
_D_CJ_SUSPEND = (
    "This flag tells the controller to suspend subsequent executions, it does not apply to already "
    "started executions.  Defaults to false."
)
_D_CJ_ACTIVE = "A list of pointers to currently running jobs."
_D_CJ_LAST_SCHEDULE = "Information when was the last time the job was successfully scheduled."
# core/v1 Service
_D_SVC_TYPE = (
    "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, "
    'ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for '
    "load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, "
    'by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no '
    "virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual "
    'IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same '
    'endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer '
    "(if supported in the current cloud) which routes to the same endpoints as the clusterIP. "
    '"ExternalName" aliases this service to the specified externalName. Several other fields do not '
    "apply to ExternalName services. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"
)
_D_SVC_CLUSTER_IP = (
    "clusterIP is the IP address of the service and is usually assigned randomly. If an address is "
    "specified manually, is in-range (as per system configuration), and is not in use, it will be "
    "allocated to the service; otherwise creation of the service will fail. This field may not be changed "
    "through updates unless the type field is also being changed to ExternalName (which requires this "
    "field to be blank) or the type field is being changed from ExternalName (in which case this field "
    'may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a '
    'valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful '
    "when direct endpoint connections are preferred and proxying is not required.  Only applies to types "
    "ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type "
    "ExternalName, creation will fail. This field will be wiped when updating a Service to type "
    "ExternalName. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
)
_D_SVC_EXTERNAL_IPS = (
    "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for "
    "this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that "
    "traffic arrives at a node with this IP.  A common example is external load-balancers that are not "
    "part of the Kubernetes system."
)
_D_SVC_PORTS = (
    "The list of ports that are exposed by this service. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
)
_D_SVC_SELECTOR = (
    "Route service traffic to pods with label keys and values matching this selector. If empty or not "
    "present, the service is assumed to have an external process managing its endpoints, which "
    "Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if "
    "type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/"
)
_D_ENDPOINTS_SUBSETS = (
    "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according "
    "to the IPs they share. A single address with multiple ports, some of which are ready and some of "
    "which are not (because they come from different containers) will result in the address being "
    "displayed in different subsets for the different ports. No address will appear in both Addresses "
    "and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service."
)
# core/v1 Node
_D_NODE_KUBELET = "Kubelet Version reported by the node."
_D_NODE_ADDRESSES = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
    "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as "
    "mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is "
    "merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an "
    "example. Consumers should assume that addresses can change during the lifetime of a Node. However, "
    "there are some exceptions where this may not be possible, such as Pods that inherit a Node's "
    "address in its own status or consumers of the downward API (status.hostIP)."
)
_D_NODE_OS_IMAGE = "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."
_D_NODE_KERNEL = "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."
_D_NODE_RUNTIME = "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."
# core/v1 Event
_D_EV_LAST = "The time at which the most recent occurrence of this event was recorded."
_D_EV_TYPE = "Type of this event (Normal, Warning), new types could be added in the future"
_D_EV_REASON = (
    "This should be a short, machine understandable string that gives the reason for the transition into "
    "the object's current status."
)
_D_EV_OBJECT = "The object that this event is about."
_D_EV_FIELD_PATH = (
    "If referring to a piece of an object instead of an entire object, this string should contain a "
    "valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if "
    "the object reference is to a container within a pod, this would take on a value like: "
    '"spec.containers{name}" (where "name" refers to the name of the container that triggered the event) '
    'or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). '
    "This syntax is chosen only to have some well-defined way of referencing a part of an object."
)
_D_EV_SOURCE = "The component reporting this event. Should be a short machine understandable string."
_D_EV_MESSAGE = "A human-readable description of the status of this operation."
_D_EV_FIRST = "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"
_D_EV_COUNT = "The number of times this event has occurred."
# core/v1 Secret, ServiceAccount, ConfigMap
_D_SECRET_TYPE = (
    "Used to facilitate programmatic handling of secret data. More info: "
    "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"
)
_D_SECRET_DATA = (
    "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. "
    "The serialized form of the secret data is a base64 encoded string, representing the arbitrary "
    "(possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"
)
_D_SA_SECRETS = (
    "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount "
    "are allowed to use. Pods are only limited to this list if this service account has a "
    '"kubernetes.io/enforce-mountable-secrets" annotation set to "true". The '
    '"kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate '
    "namespaces to isolate access to mounted secrets. This field should not be used to find "
    "auto-generated service account token secrets for use outside of pods. Instead, tokens can be "
    "requested directly using the TokenRequest API, or service account token secrets can be manually "
    "created. More info: https://kubernetes.io/docs/concepts/configuration/secret"
)
_D_CM_DATA = (
    "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or "
    "'.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data "
    "must not overlap with the keys in the BinaryData field, this is enforced during validation process."
)
# core/v1 PersistentVolume(Claim)
_D_PV_CAPACITY = (
    "capacity is the description of the persistent volume's resources and capacity. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"
)
_D_PV_ACCESS_MODES = (
    "accessModes contains all ways the volume can be mounted. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"
)
_D_PV_RECLAIM = (
    "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its "
    "claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default "
    "for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported "
    "by the volume plugin underlying this PersistentVolume. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"
)
_D_PV_PHASE = (
    "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"
)
_D_PV_CLAIM = (
    "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. "
    "Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. "
    "More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"
)
_D_PV_REASON = (
    "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and "
    "tidy display in the CLI."
)
_D_PV_VOLUME_MODE = (
    "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in "
    "raw block state. Value of Filesystem is implied when not included in spec."
)
_D_PVC_PHASE = "phase represents the current phase of PersistentVolumeClaim."
_D_PVC_VOLUME = "volumeName is the binding reference to the PersistentVolume backing this claim."
_D_PVC_CAPACITY = "capacity represents the actual resources of the underlying volume."
_D_PVC_ACCESS_MODES = (
    "accessModes contains the actual access modes the volume backing the PVC has. More info: "
    "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"
)
_D_PVC_VOLUME_MODE = (
    "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied "
    "when not included in claim spec."
)
# coordination, storage, scheduling, node, discovery, apps, storage
_D_LEASE_HOLDER = (
    "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader "
    "Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."
)
_D_SC_PROVISIONER = "provisioner indicates the type of the provisioner."
_D_SC_RECLAIM = (
    "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this "
    "storage class. Defaults to Delete."
)
_D_SC_BINDING = (
    "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When "
    "unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the "
    "VolumeScheduling feature."
)
_D_SC_EXPANSION = "allowVolumeExpansion shows whether the storage class allow volume expand."
_D_PC_VALUE = (
    "value represents the integer value of this priority class. This is the actual priority that pods "
    "receive when they have the name of this class in their pod spec."
)
_D_PC_DEFAULT = (
    "globalDefault specifies whether this PriorityClass should be considered as the default priority for "
    "pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. "
    "However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the "
    "smallest value of such global default PriorityClasses will be used as the default priority."
)
_D_PC_PREEMPTION = (
    "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, "
    "PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."
)
_D_CR_REVISION = "Revision indicates the revision of the state represented by Data."
_D_EPS_ADDRESS_TYPE = (
    "addressType specifies the type of address carried by this EndpointSlice. All addresses in this "
    "slice must be the same type. This field is immutable after creation. The following address types "
    "are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. "
    "* FQDN: Represents a Fully Qualified Domain Name."
)
_D_EPS_PORTS = (
    "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must "
    "have a unique name. When ports is empty, it indicates that there are no defined ports. When a port "
    'is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of '
    "100 ports."
)
_D_EPS_ENDPOINTS = (
    "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints."
)
_D_VA_ATTACHER = (
    "attacher indicates the name of the volume driver that MUST handle this request. This is the name "
    "returned by GetPluginName()."
)
_D_VA_PV = "persistentVolumeName represents the name of the persistent volume to attach."
_D_VA_NODE = "nodeName represents the node that the volume should be attached to."
_D_VA_ATTACHED = (
    "attached indicates the volume is successfully attached. This field must only be set by the entity "
    "completing the attach operation, i.e. the external-attacher."
)
_D_RB_ROLE_REF = (
    "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If "
    "the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable."
)
_D_CRB_ROLE_REF = (
    "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, "
    "the Authorizer must return an error. This field is immutable."
)


@dataclass(frozen=True)
class _Col:
    name: str
    type: str = "string"
    description: str = ""
    format: str = ""
    priority: int = 0

    def as_json(self) -> dict[str, Any]:
        # metav1.TableColumnDefinition: no omitempty on any field.
        return {
            "name": self.name,
            "type": self.type,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        }


_NAME = _Col("Name", format="name", description=_D_NAME)
_AGE = _Col("Age", description=_D_CREATED)
_WIDE_CONTAINERS = _Col("Containers", priority=1, description=_D_CONTAINERS)
_WIDE_IMAGES = _Col("Images", priority=1, description=_D_IMAGES)


@dataclass
class _Ctx:
    now: datetime

    def since(self, ts: Any) -> str:
        """translateTimestampSince / translateMicroTimestampSince (printers.go)."""
        t = _parse_time(ts)
        if t is None:
            return "<unknown>"
        return human_duration(self.now - t)


Row = dict[str, Any]
Printer = Callable[[Obj, _Ctx], Row]


# ---------------------------------------------------------------------------
# Small helpers mirroring apimachinery / printers.go helpers.
# ---------------------------------------------------------------------------


def _get(obj: Any, *path: str, default: Any = None) -> Any:
    cur = obj
    for key in path:
        if not isinstance(cur, Mapping):
            return default
        cur = cur.get(key)
        if cur is None:
            return default
    return cur


def _parse_time(value: Any) -> datetime | None:
    """metav1.Time / MicroTime from their RFC 3339 JSON form; ``None`` is the zero time."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    # Python < 3.11 cannot take more than 6 fractional digits; Go can emit up to 9.
    if "." in text:
        head, _, rest = text.partition(".")
        digits = ""
        i = 0
        while i < len(rest) and rest[i].isdigit():
            digits += rest[i]
            i += 1
        text = head + "." + (digits[:6] or "0") + rest[i:]
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    if t.year == 1 and t.month == 1 and t.day == 1 and t.hour == 0 and t.minute == 0 and t.second == 0:
        return None  # Go's zero time: IsZero() is true
    return t


def _format_labels(labels: Any) -> str:
    """labels.FormatLabels: sorted ``k=v`` joined by ``,``; ``<none>`` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


class _SelectorError(ValueError):
    pass


def _selector_string(selector: Any) -> str:
    """metav1.LabelSelectorAsSelector(selector).String().

    nil -> labels.Nothing() and empty -> labels.Everything(): both print "".
    Requirements are sorted by key; In/NotIn values are sorted.
    """
    if not isinstance(selector, Mapping):
        return ""
    match_labels = selector.get("matchLabels") or {}
    exprs = selector.get("matchExpressions") or []
    if not match_labels and not exprs:
        return ""
    reqs: list[tuple[str, str]] = []
    for key, value in match_labels.items():
        reqs.append((key, f"{key}={value}"))
    for expr in exprs:
        key = expr.get("key", "")
        op = expr.get("operator")
        values = sorted(expr.get("values") or [])
        if op == "In":
            reqs.append((key, f"{key} in ({','.join(values)})"))
        elif op == "NotIn":
            reqs.append((key, f"{key} notin ({','.join(values)})"))
        elif op == "Exists":
            reqs.append((key, key))
        elif op == "DoesNotExist":
            reqs.append((key, f"!{key}"))
        else:
            raise _SelectorError(f"{op!r} is not a valid label selector operator")
    reqs.sort(key=lambda r: r[0])
    return ",".join(text for _, text in reqs)


def _format_label_selector(selector: Any, *, nil_is_empty: bool = False) -> str:
    """metav1.FormatLabelSelector: ``<none>`` when the selector prints empty, ``<error>`` when invalid."""
    if selector is None and nil_is_empty:
        selector = {}
    try:
        text = _selector_string(selector)
    except _SelectorError:
        return "<error>"
    return text or "<none>"


def _layout_container_cells(containers: Any) -> tuple[str, str]:
    """layoutContainerCells (printers.go)."""
    containers = containers or []
    names = ",".join(str(c.get("name", "")) for c in containers)
    images = ",".join(str(c.get("image", "")) for c in containers)
    return names, images


def _int_or_string(value: Any) -> str:
    """intstr.IntOrString.String()."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return str(value)


def _quantity(value: Any) -> str:
    """resource.Quantity.String() of an already-canonical JSON quantity; the zero Quantity prints "0"."""
    if value is None or value == "":
        return "0"
    return str(value)


def _join_host_port(host: str, port: int | str) -> str:
    """net.JoinHostPort: brackets around hosts that contain a colon."""
    if ":" in host:
        return f"[{host}]:{port}"
    return f"{host}:{port}"


def _first_non_empty(*values: Any) -> str:
    for v in values:
        if v:
            return str(v)
    return ""


def _row(obj: Obj, cells: list[Any], conditions: list[dict[str, Any]] | None = None) -> Row:
    row: Row = {"cells": cells}
    if conditions:
        row["conditions"] = conditions
    return row


# ---------------------------------------------------------------------------
# Printers.  Each mirrors the function of the same name in
# kubernetes pkg/printers/internalversion/printers.go, called with Wide: true.
# ---------------------------------------------------------------------------

_POD_COLUMNS = [
    _NAME,
    _Col("Ready", description="The aggregate readiness state of this pod for accepting traffic."),
    _Col("Status", description="The aggregate status of the containers in this pod."),
    _Col(
        "Restarts",
        description=(
            "The number of times the containers in this pod have been restarted and when the last "
            "container in this pod has restarted."
        ),
    ),
    _AGE,
    _Col("IP", priority=1, description=_D_POD_IP),
    _Col("Node", priority=1, description=_D_POD_NODE),
    _Col("Nominated Node", priority=1, description=_D_POD_NOMINATED),
    _Col("Readiness Gates", priority=1, description=_D_POD_READINESS_GATES),
]

# podSuccessConditions / podFailedConditions (printers.go)
_POD_SUCCESS_CONDITIONS = [
    {
        "type": "Completed",
        "status": "True",
        "reason": "Succeeded",
        "message": "The pod has completed successfully.",
    }
]
_POD_FAILED_CONDITIONS = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


def _is_restartable_init_container(container: Any) -> bool:
    """podutil.IsRestartableInitContainer: a sidecar (``restartPolicy: Always``)."""
    return isinstance(container, Mapping) and container.get("restartPolicy") == "Always"


def _later(current: datetime | None, candidate: Any) -> datetime | None:
    """``if lastRestartDate.Before(&terminatedDate) { lastRestartDate = terminatedDate }``."""
    t = _parse_time(candidate)
    if t is None:
        return current
    if current is None or current < t:
        return t
    return current


def _print_pod(pod: Obj, ctx: _Ctx) -> Row:
    """printPod (printers.go)."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    meta = pod.get("metadata") or {}

    restarts = 0
    restartable_init_restarts = 0
    total_containers = len(spec.get("containers") or [])
    ready_containers = 0
    last_restart: datetime | None = None
    last_restartable_init_restart: datetime | None = None

    pod_phase = status.get("phase") or ""
    reason = pod_phase
    if status.get("reason"):
        reason = status["reason"]

    # If the Pod carries {type:PodScheduled, reason:SchedulingGated}, set reason to 'SchedulingGated'.
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    conditions = None
    if pod_phase == "Succeeded":
        conditions = copy.deepcopy(_POD_SUCCESS_CONDITIONS)
    elif pod_phase == "Failed":
        conditions = copy.deepcopy(_POD_FAILED_CONDITIONS)

    init_specs = spec.get("initContainers") or []
    init_containers = {c.get("name"): c for c in init_specs}
    for c in init_specs:
        if _is_restartable_init_container(c):
            total_containers += 1

    initializing = False
    for i, container in enumerate(status.get("initContainerStatuses") or []):
        restarts += int(container.get("restartCount") or 0)
        last_terminated = _get(container, "lastState", "terminated")
        if last_terminated is not None:
            last_restart = _later(last_restart, last_terminated.get("finishedAt"))
        restartable = _is_restartable_init_container(init_containers.get(container.get("name")))
        if restartable:
            restartable_init_restarts += int(container.get("restartCount") or 0)
            if last_terminated is not None:
                last_restartable_init_restart = _later(last_restartable_init_restart, last_terminated.get("finishedAt"))
        state = container.get("state") or {}
        terminated = state.get("terminated")
        waiting = state.get("waiting")
        if terminated is not None and int(terminated.get("exitCode") or 0) == 0:
            continue
        if restartable and container.get("started") is True:
            if container.get("ready"):
                ready_containers += 1
            continue
        if terminated is not None:
            # initialization is failed
            if not terminated.get("reason"):
                if int(terminated.get("signal") or 0) != 0:
                    reason = f"Init:Signal:{int(terminated['signal'])}"
                else:
                    reason = f"Init:ExitCode:{int(terminated.get('exitCode') or 0)}"
            else:
                reason = "Init:" + terminated["reason"]
            initializing = True
        elif waiting is not None and waiting.get("reason") and waiting.get("reason") != "PodInitializing":
            reason = "Init:" + waiting["reason"]
            initializing = True
        else:
            reason = f"Init:{i}/{len(init_specs)}"
            initializing = True
        break

    if not initializing or _is_pod_initialized_condition_true(status):
        restarts = restartable_init_restarts
        last_restart = last_restartable_init_restart
        has_running = False
        for container in reversed(status.get("containerStatuses") or []):
            restarts += int(container.get("restartCount") or 0)
            last_terminated = _get(container, "lastState", "terminated")
            if last_terminated is not None:
                last_restart = _later(last_restart, last_terminated.get("finishedAt"))
            state = container.get("state") or {}
            waiting = state.get("waiting")
            terminated = state.get("terminated")
            if waiting is not None and waiting.get("reason"):
                reason = waiting["reason"]
            elif terminated is not None and terminated.get("reason"):
                reason = terminated["reason"]
            elif terminated is not None and not terminated.get("reason"):
                if int(terminated.get("signal") or 0) != 0:
                    reason = f"Signal:{int(terminated['signal'])}"
                else:
                    reason = f"ExitCode:{int(terminated.get('exitCode') or 0)}"
            elif container.get("ready") and state.get("running") is not None:
                has_running = True
                ready_containers += 1

        # change pod status back to "Running" if there is at least one container still reporting
        # as "Running" status
        if reason == "Completed" and has_running:
            if _has_pod_ready_condition(status.get("conditions") or []):
                reason = "Running"
            else:
                reason = "NotReady"

    if meta.get("deletionTimestamp") is not None and status.get("reason") == "NodeLost":
        # node.NodeUnreachablePodReason
        reason = "Unknown"
    elif meta.get("deletionTimestamp") is not None and pod_phase not in ("Failed", "Succeeded"):
        reason = "Terminating"

    restarts_str = str(restarts)
    if restarts != 0 and last_restart is not None:
        restarts_str = f"{restarts} ({human_duration(ctx.now - last_restart)} ago)"

    cells: list[Any] = [
        meta.get("name", ""),
        f"{ready_containers}/{total_containers}",
        reason,
        restarts_str,
        ctx.since(meta.get("creationTimestamp")),
    ]

    # options.Wide
    node_name = spec.get("nodeName") or ""
    nominated = status.get("nominatedNodeName") or ""
    # pod.Status.PodIPs[0] of the internal object: Convert_v1_PodStatus_To_core_PodStatus makes
    # v1 podIP authoritative when it is set (and fills PodIPs from it when PodIPs is empty).
    pod_ips = status.get("podIPs") or []
    pod_ip = status.get("podIP") or ((pod_ips[0].get("ip") or "") if pod_ips else "")
    if pod_ip == "":
        pod_ip = "<none>"
    if node_name == "":
        node_name = "<none>"
    if nominated == "":
        nominated = "<none>"
    readiness_gates = "<none>"
    gates = spec.get("readinessGates") or []
    if gates:
        true_conditions = 0
        for gate in gates:
            for cond in status.get("conditions") or []:
                if cond.get("type") == gate.get("conditionType"):
                    if cond.get("status") == "True":
                        true_conditions += 1
                    break
        readiness_gates = f"{true_conditions}/{len(gates)}"
    cells += [pod_ip, node_name, nominated, readiness_gates]
    return _row(pod, cells, conditions)


def _has_pod_ready_condition(conditions: list[Any]) -> bool:
    """hasPodReadyCondition (printers.go)."""
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _is_pod_initialized_condition_true(status: Obj) -> bool:
    """isPodInitializedConditionTrue (printers.go): the first Initialized condition decides."""
    for cond in status.get("conditions") or []:
        if cond.get("type") != "Initialized":
            continue
        return cond.get("status") == "True"
    return False


_POD_TEMPLATE_COLUMNS = [
    _NAME,
    _Col("Containers", description=_D_CONTAINERS),
    _Col("Images", description=_D_IMAGES),
    _Col("Pod Labels", description="The labels for the pod template."),
]


def _print_pod_template(obj: Obj, ctx: _Ctx) -> Row:
    """printPodTemplate (printers.go)."""
    names, images = _layout_container_cells(_get(obj, "template", "spec", "containers"))
    labels = _get(obj, "template", "metadata", "labels")
    return _row(obj, [_get(obj, "metadata", "name", default=""), names, images, _format_labels(labels)])


_PDB_COLUMNS = [
    _NAME,
    _Col("Min Available", description="The minimum number of pods that must be available."),
    _Col("Max Unavailable", description="The maximum number of pods that may be unavailable."),
    _Col(
        "Allowed Disruptions",
        type="integer",
        description="Calculated number of pods that may be disrupted at this time.",
    ),
    _AGE,
]


def _print_pod_disruption_budget(obj: Obj, ctx: _Ctx) -> Row:
    """printPodDisruptionBudget (printers.go)."""
    spec = obj.get("spec") or {}
    min_available = _int_or_string(spec["minAvailable"]) if spec.get("minAvailable") is not None else "N/A"
    max_unavailable = _int_or_string(spec["maxUnavailable"]) if spec.get("maxUnavailable") is not None else "N/A"
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            min_available,
            max_unavailable,
            int(_get(obj, "status", "disruptionsAllowed", default=0)),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_RC_COLUMNS = [
    _NAME,
    _Col("Desired", type="integer", description=_D_RC_SPEC_REPLICAS),
    _Col("Current", type="integer", description=_D_RC_STATUS_REPLICAS),
    _Col("Ready", type="integer", description=_D_RC_READY),
    _AGE,
    _WIDE_CONTAINERS,
    _WIDE_IMAGES,
    _Col("Selector", priority=1, description=_D_RC_SELECTOR),
]


def _replicas(obj: Obj) -> int:
    """spec.replicas as the API server has defaulted it (1 when unset)."""
    value = _get(obj, "spec", "replicas")
    return 1 if value is None else int(value)


def _print_replication_controller(obj: Obj, ctx: _Ctx) -> Row:
    """printReplicationController (printers.go)."""
    names, images = _layout_container_cells(_get(obj, "spec", "template", "spec", "containers"))
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            _replicas(obj),
            int(_get(obj, "status", "replicas", default=0)),
            int(_get(obj, "status", "readyReplicas", default=0)),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            names,
            images,
            _format_labels(_get(obj, "spec", "selector")),
        ],
    )


_RS_COLUMNS = [
    _NAME,
    _Col("Desired", type="integer", description=_D_RS_SPEC_REPLICAS),
    _Col("Current", type="integer", description=_D_RS_STATUS_REPLICAS),
    _Col("Ready", type="integer", description=_D_RS_READY),
    _AGE,
    _WIDE_CONTAINERS,
    _WIDE_IMAGES,
    _Col("Selector", priority=1, description=_D_RS_SELECTOR),
]


def _print_replica_set(obj: Obj, ctx: _Ctx) -> Row:
    """printReplicaSet (printers.go)."""
    names, images = _layout_container_cells(_get(obj, "spec", "template", "spec", "containers"))
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            _replicas(obj),
            int(_get(obj, "status", "replicas", default=0)),
            int(_get(obj, "status", "readyReplicas", default=0)),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            names,
            images,
            _format_label_selector(_get(obj, "spec", "selector")),
        ],
    )


_JOB_COLUMNS = [
    _NAME,
    _Col("Status", description="Status of the job."),
    _Col("Completions", description=_D_JOB_SUCCEEDED),
    _Col("Duration", description="Time required to complete the job."),
    _AGE,
    _WIDE_CONTAINERS,
    _WIDE_IMAGES,
    _Col("Selector", priority=1, description=_D_JOB_SELECTOR),
]


def _has_job_condition(conditions: list[Any], condition_type: str) -> bool:
    """hasJobCondition (printers.go): the first condition of that type decides."""
    for cond in conditions:
        if cond.get("type") == condition_type:
            return cond.get("status") == "True"
    return False


def _print_job(obj: Obj, ctx: _Ctx) -> Row:
    """printJob (printers.go)."""
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    succeeded = int(status.get("succeeded") or 0)
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{int(spec['completions'])}"
    else:
        parallelism = int(spec.get("parallelism") or 0)
        if parallelism > 1:
            completions = f"{succeeded}/1 of {parallelism}"
        else:
            completions = f"{succeeded}/1"

    start = _parse_time(status.get("startTime"))
    completion = _parse_time(status.get("completionTime"))
    if start is None:
        job_duration = ""
    elif completion is None:
        job_duration = human_duration(ctx.now - start)
    else:
        job_duration = human_duration(completion - start)

    conditions = status.get("conditions") or []
    if _has_job_condition(conditions, "Complete"):
        job_status = "Complete"
    elif _has_job_condition(conditions, "Failed"):
        job_status = "Failed"
    elif _get(obj, "metadata", "deletionTimestamp") is not None:
        job_status = "Terminating"
    elif _has_job_condition(conditions, "Suspended"):
        job_status = "Suspended"
    elif _has_job_condition(conditions, "FailureTarget"):
        job_status = "FailureTarget"
    elif _has_job_condition(conditions, "SuccessCriteriaMet"):
        # Added in 1.33 ("kubectl get job now displays the SuccessCriteriaMet status"), after
        # the printers.go revision this file was read from.
        job_status = "SuccessCriteriaMet"
    else:
        job_status = "Running"

    names, images = _layout_container_cells(_get(spec, "template", "spec", "containers"))
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            job_status,
            completions,
            job_duration,
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            names,
            images,
            _format_label_selector(spec.get("selector")),
        ],
    )


_CRONJOB_COLUMNS = [
    _NAME,
    _Col("Schedule", description=_D_CJ_SCHEDULE),
    _Col("Timezone", description=_D_CJ_TIMEZONE),
    _Col("Suspend", type="boolean", description=_D_CJ_SUSPEND),
    _Col("Active", type="integer", description=_D_CJ_ACTIVE),
    _Col("Last Schedule", description=_D_CJ_LAST_SCHEDULE),
    _AGE,
    _WIDE_CONTAINERS,
    _WIDE_IMAGES,
    _Col("Selector", priority=1, description=_D_JOB_SELECTOR),
]


def _print_bool_ptr(value: Any) -> str:
    """printBoolPtr (printers.go)."""
    if value is None:
        return "<unset>"
    return "True" if value else "False"


def _print_cron_job(obj: Obj, ctx: _Ctx) -> Row:
    """printCronJob (printers.go)."""
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    last_schedule = "<none>"
    if status.get("lastScheduleTime") is not None:
        last_schedule = ctx.since(status["lastScheduleTime"])
    time_zone = spec["timeZone"] if spec.get("timeZone") is not None else "<none>"
    job_spec = _get(spec, "jobTemplate", "spec", default={})
    names, images = _layout_container_cells(_get(job_spec, "template", "spec", "containers"))
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            spec.get("schedule", ""),
            time_zone,
            _print_bool_ptr(spec.get("suspend")),
            len(status.get("active") or []),
            last_schedule,
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            names,
            images,
            _format_label_selector(job_spec.get("selector")),
        ],
    )


_SERVICE_COLUMNS = [
    _NAME,
    _Col("Type", description=_D_SVC_TYPE),
    _Col("Cluster-IP", description=_D_SVC_CLUSTER_IP),
    _Col("External-IP", description=_D_SVC_EXTERNAL_IPS),
    _Col("Port(s)", description=_D_SVC_PORTS),
    _AGE,
    _Col("Selector", priority=1, description=_D_SVC_SELECTOR),
]

_LOAD_BALANCER_WIDTH = 16


def _load_balancer_status_stringer(lb: Any, wide: bool) -> str:
    """loadBalancerStatusStringer (printers.go): sorted unique IPs/hostnames."""
    result: set[str] = set()
    for ingress in _get(lb, "ingress", default=[]) or []:
        if ingress.get("ip"):
            result.add(ingress["ip"])
        elif ingress.get("hostname"):
            result.add(ingress["hostname"])
    r = ",".join(sorted(result))
    if not wide and len(r) > _LOAD_BALANCER_WIDTH:
        r = r[: _LOAD_BALANCER_WIDTH - 3] + "..."
    return r


def _service_external_ip(svc: Obj, wide: bool) -> str:
    """getServiceExternalIP (printers.go)."""
    spec = svc.get("spec") or {}
    svc_type = spec.get("type") or "ClusterIP"
    external_ips = spec.get("externalIPs") or []
    if svc_type in ("ClusterIP", "NodePort"):
        return ",".join(external_ips) if external_ips else "<none>"
    if svc_type == "LoadBalancer":
        lb_ips = _load_balancer_status_stringer(_get(svc, "status", "loadBalancer"), wide)
        if external_ips:
            results: list[str] = []
            if lb_ips:
                results.extend(lb_ips.split(","))
            results.extend(external_ips)
            return ",".join(results)
        if lb_ips:
            return lb_ips
        return "<pending>"
    if svc_type == "ExternalName":
        return spec.get("externalName") or ""
    return "<unknown>"


def _make_port_string(ports: Any) -> str:
    """makePortString (printers.go). Protocol defaults to TCP as the API server defaults it."""
    pieces = []
    for port in ports or []:
        protocol = port.get("protocol") or "TCP"
        node_port = int(port.get("nodePort") or 0)
        if node_port > 0:
            pieces.append(f"{int(port.get('port') or 0)}:{node_port}/{protocol}")
        else:
            pieces.append(f"{int(port.get('port') or 0)}/{protocol}")
    return ",".join(pieces)


def _print_service(obj: Obj, ctx: _Ctx) -> Row:
    """printService (printers.go)."""
    spec = obj.get("spec") or {}
    svc_type = spec.get("type") or "ClusterIP"
    cluster_ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
    internal_ip = cluster_ips[0] if cluster_ips else "<none>"
    svc_ports = _make_port_string(spec.get("ports")) or "<none>"
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            svc_type,
            internal_ip,
            _service_external_ip(obj, wide=True),
            svc_ports,
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            _format_labels(spec.get("selector")),
        ],
    )


_INGRESS_COLUMNS = [
    _NAME,
    _Col(
        "Class",
        description="The name of the IngressClass resource that should be used for additional configuration",
    ),
    _Col("Hosts", description="Hosts that incoming requests are matched against before the ingress rule"),
    _Col("Address", description="Address is a list containing ingress points for the load-balancer"),
    _Col("Ports", description="Ports of TLS configurations that open"),
    _AGE,
]


def _format_hosts(rules: list[Any]) -> str:
    """formatHosts (printers.go)."""
    hosts: list[str] = []
    max_hosts = 3
    more = False
    for rule in rules:
        if len(hosts) == max_hosts:
            more = True
        if not more and rule.get("host"):
            hosts.append(rule["host"])
    if not hosts:
        return "*"
    ret = ",".join(hosts)
    if more:
        return f"{ret} + {len(rules) - max_hosts} more..."
    return ret


def _print_ingress(obj: Obj, ctx: _Ctx) -> Row:
    """printIngress (printers.go)."""
    spec = obj.get("spec") or {}
    class_name = spec["ingressClassName"] if spec.get("ingressClassName") is not None else "<none>"
    ports = "80, 443" if spec.get("tls") else "80"
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            class_name,
            _format_hosts(spec.get("rules") or []),
            _load_balancer_status_stringer(_get(obj, "status", "loadBalancer"), wide=True),
            ports,
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_INGRESS_CLASS_COLUMNS = [
    _NAME,
    _Col("Controller", description="Controller that is responsible for handling this class"),
    _Col("Parameters", description="A reference to a resource with additional parameters"),
    _AGE,
]


def _print_ingress_class(obj: Obj, ctx: _Ctx) -> Row:
    """printIngressClass (printers.go)."""
    params = _get(obj, "spec", "parameters")
    parameters = "<none>"
    if params is not None:
        parameters = params.get("kind", "")
        if params.get("apiGroup") is not None:
            parameters = parameters + "." + params["apiGroup"]
        parameters = parameters + "/" + params.get("name", "")
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            _get(obj, "spec", "controller", default=""),
            parameters,
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_STATEFULSET_COLUMNS = [
    _NAME,
    _Col("Ready", description="Number of the pod with ready state"),
    _AGE,
    _WIDE_CONTAINERS,
    _WIDE_IMAGES,
]


def _print_stateful_set(obj: Obj, ctx: _Ctx) -> Row:
    """printStatefulSet (printers.go)."""
    names, images = _layout_container_cells(_get(obj, "spec", "template", "spec", "containers"))
    ready = int(_get(obj, "status", "readyReplicas", default=0))
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            f"{ready}/{_replicas(obj)}",
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            names,
            images,
        ],
    )


_DAEMONSET_COLUMNS = [
    _NAME,
    _Col("Desired", type="integer", description=_D_DS_DESIRED),
    _Col("Current", type="integer", description=_D_DS_CURRENT),
    _Col("Ready", type="integer", description=_D_DS_READY),
    _Col("Up-to-date", type="integer", description=_D_DS_UPDATED),
    _Col("Available", type="integer", description=_D_DS_AVAILABLE),
    _Col("Node Selector", description=_D_NODE_SELECTOR),
    _AGE,
    _WIDE_CONTAINERS,
    _WIDE_IMAGES,
    _Col("Selector", priority=1, description=_D_DS_SELECTOR),
]


def _print_daemon_set(obj: Obj, ctx: _Ctx) -> Row:
    """printDaemonSet (printers.go)."""
    status = obj.get("status") or {}
    template_spec = _get(obj, "spec", "template", "spec", default={})
    names, images = _layout_container_cells(template_spec.get("containers"))
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            int(status.get("desiredNumberScheduled") or 0),
            int(status.get("currentNumberScheduled") or 0),
            int(status.get("numberReady") or 0),
            int(status.get("updatedNumberScheduled") or 0),
            int(status.get("numberAvailable") or 0),
            _format_labels(template_spec.get("nodeSelector")),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            names,
            images,
            _format_label_selector(_get(obj, "spec", "selector")),
        ],
    )


_ENDPOINTS_COLUMNS = [_NAME, _Col("Endpoints", description=_D_ENDPOINTS_SUBSETS), _AGE]


def _format_endpoints(endpoints: Obj) -> str:
    """formatEndpoints(endpoints, nil) (printers.go)."""
    subsets = endpoints.get("subsets") or []
    if not subsets:
        return "<none>"
    items: list[str] = []
    max_items = 3
    more = False
    count = 0
    for ss in subsets:
        addresses = ss.get("addresses") or []
        ports = ss.get("ports") or []
        if not ports:
            # It's possible to have headless services with no ports.
            count += len(addresses)
            for addr in addresses:
                if len(items) == max_items:
                    more = True
                    break
                items.append(addr.get("ip", ""))
            continue
        # "Normal" services with ports defined.
        for port in ports:
            count += len(addresses)
            for addr in addresses:
                if len(items) == max_items:
                    more = True
                    break
                items.append(_join_host_port(addr.get("ip", ""), int(port.get("port") or 0)))
    ret = ",".join(items)
    if more:
        return f"{ret} + {count - max_items} more..."
    return ret


def _print_endpoints(obj: Obj, ctx: _Ctx) -> Row:
    """printEndpoints (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            _format_endpoints(obj),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_ENDPOINT_SLICE_COLUMNS = [
    _NAME,
    _Col("AddressType", description=_D_EPS_ADDRESS_TYPE),
    _Col("Ports", description=_D_EPS_PORTS),
    _Col("Endpoints", description=_D_EPS_ENDPOINTS),
    _AGE,
]


def _list_with_more_string(items: list[str], more: bool, count: int, max_items: int) -> str:
    """listWithMoreString (printers.go)."""
    ret = ",".join(items)
    if more:
        return f"{ret} + {count - max_items} more..."
    if ret == "":
        ret = "<unset>"
    return ret


def _format_discovery_ports(ports: list[Any]) -> str:
    """formatDiscoveryPorts (printers.go)."""
    items: list[str] = []
    max_items = 3
    more = False
    count = 0
    for port in ports:
        if len(items) < max_items:
            port_num = "*"
            if port.get("port") is not None:
                port_num = str(int(port["port"]))
            elif port.get("name") is not None:
                port_num = port["name"]
            items.append(port_num)
        elif len(items) == max_items:
            more = True
        count += 1
    return _list_with_more_string(items, more, count, max_items)


def _format_discovery_endpoints(endpoints: list[Any]) -> str:
    """formatDiscoveryEndpoints (printers.go)."""
    items: list[str] = []
    max_items = 3
    more = False
    count = 0
    for endpoint in endpoints:
        for address in endpoint.get("addresses") or []:
            if len(items) < max_items:
                items.append(address)
            elif len(items) == max_items:
                more = True
            count += 1
    return _list_with_more_string(items, more, count, max_items)


def _print_endpoint_slice(obj: Obj, ctx: _Ctx) -> Row:
    """printEndpointSlice (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            obj.get("addressType", ""),
            _format_discovery_ports(obj.get("ports") or []),
            _format_discovery_endpoints(obj.get("endpoints") or []),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_NODE_COLUMNS = [
    _NAME,
    _Col("Status", description="The status of the node"),
    _Col("Roles", description="The roles of the node"),
    _AGE,
    _Col("Version", description=_D_NODE_KUBELET),
    _Col("Internal-IP", priority=1, description=_D_NODE_ADDRESSES),
    _Col("External-IP", priority=1, description=_D_NODE_ADDRESSES),
    _Col("OS-Image", priority=1, description=_D_NODE_OS_IMAGE),
    _Col("Kernel-Version", priority=1, description=_D_NODE_KERNEL),
    _Col("Container-Runtime", priority=1, description=_D_NODE_RUNTIME),
]

_LABEL_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
_NODE_LABEL_ROLE = "kubernetes.io/role"


def _find_node_roles(node: Obj) -> list[str]:
    """findNodeRoles (printers.go): sorted set of roles."""
    roles: set[str] = set()
    for key, value in (_get(node, "metadata", "labels", default={}) or {}).items():
        if key.startswith(_LABEL_NODE_ROLE_PREFIX):
            role = key[len(_LABEL_NODE_ROLE_PREFIX) :]
            if role:
                roles.add(role)
        elif key == _NODE_LABEL_ROLE and value != "":
            roles.add(value)
    return sorted(roles)


def _node_address(node: Obj, address_type: str) -> str:
    """getNodeInternalIP / getNodeExternalIP (printers.go)."""
    for address in _get(node, "status", "addresses", default=[]) or []:
        if address.get("type") == address_type:
            return address.get("address", "")
    return "<none>"


def _print_node(obj: Obj, ctx: _Ctx) -> Row:
    """printNode (printers.go)."""
    condition_map = {c.get("type"): c for c in _get(obj, "status", "conditions", default=[]) or []}
    node_status: list[str] = []
    for valid in ("Ready",):  # NodeAllConditions
        cond = condition_map.get(valid)
        if cond is not None:
            if cond.get("status") == "True":
                node_status.append(valid)
            else:
                node_status.append("Not" + valid)
    if not node_status:
        node_status.append("Unknown")
    if _get(obj, "spec", "unschedulable"):
        node_status.append("SchedulingDisabled")
    roles = ",".join(_find_node_roles(obj)) or "<none>"
    info = _get(obj, "status", "nodeInfo", default={}) or {}
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            ",".join(node_status),
            roles,
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            info.get("kubeletVersion", ""),
            _node_address(obj, "InternalIP"),
            _node_address(obj, "ExternalIP"),
            info.get("osImage") or "<unknown>",
            info.get("kernelVersion") or "<unknown>",
            info.get("containerRuntimeVersion") or "<unknown>",
        ],
    )


_EVENT_COLUMNS = [
    _Col("Last Seen", description=_D_EV_LAST),
    _Col("Type", description=_D_EV_TYPE),
    _Col("Reason", description=_D_EV_REASON),
    _Col("Object", description=_D_EV_OBJECT),
    _Col("Subobject", priority=1, description=_D_EV_FIELD_PATH),
    _Col("Source", priority=1, description=_D_EV_SOURCE),
    _Col("Message", description=_D_EV_MESSAGE),
    _Col("First Seen", priority=1, description=_D_EV_FIRST),
    _Col("Count", priority=1, description=_D_EV_COUNT),
    _Col("Name", priority=1, format="name", description=_D_NAME),
]


def _events_k8s_io_as_core(obj: Obj) -> dict[str, Any]:
    """The fields printEvent reads, from an events.k8s.io/v1 Event.

    Both API groups are served by one storage with the internal core Event type,
    so the events.k8s.io table is the core one (conversion in
    pkg/apis/events/v1/conversion.go: regarding -> involvedObject, note -> message,
    deprecated* -> the old timestamps, count and source).
    """
    return {
        "metadata": obj.get("metadata") or {},
        "involvedObject": obj.get("regarding") or {},
        "message": obj.get("note", ""),
        "reason": obj.get("reason", ""),
        "type": obj.get("type", ""),
        "firstTimestamp": obj.get("deprecatedFirstTimestamp"),
        "lastTimestamp": obj.get("deprecatedLastTimestamp"),
        "count": obj.get("deprecatedCount", 0),
        "source": obj.get("deprecatedSource") or {},
        "eventTime": obj.get("eventTime"),
        "series": obj.get("series"),
        "reportingComponent": obj.get("reportingController", ""),
        "reportingInstance": obj.get("reportingInstance", ""),
    }


def _format_event_source(source: Any, reporting_controller: str, reporting_instance: str) -> str:
    """formatEventSource (printers.go)."""
    component = _first_non_empty(_get(source, "component"), reporting_controller)
    instance = _first_non_empty(_get(source, "host"), reporting_instance)
    if not instance:
        return component
    return component + ", " + instance


def _print_event(obj: Obj, ctx: _Ctx) -> Row:
    """printEvent (printers.go). Ordering of an event list is done client-side by kubectl."""
    first_seen = ctx.since(obj.get("firstTimestamp"))
    if _parse_time(obj.get("firstTimestamp")) is None:
        first_seen = ctx.since(obj.get("eventTime"))

    last_seen = ctx.since(obj.get("lastTimestamp"))
    if _parse_time(obj.get("lastTimestamp")) is None:
        last_seen = first_seen

    count = int(obj.get("count") or 0)
    series = obj.get("series")
    if series is not None:
        last_seen = ctx.since(series.get("lastObservedTime"))
        count = int(series.get("count") or 0)
    elif count == 0:
        # Singleton events don't have a count set in the new API.
        count = 1

    involved = obj.get("involvedObject") or {}
    kind = str(involved.get("kind") or "").lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind

    # JSON of core/v1 Event calls it reportingComponent; events.k8s.io calls it reportingController.
    reporting_controller = obj.get("reportingComponent") or obj.get("reportingController") or ""
    return _row(
        obj,
        [
            last_seen,
            obj.get("type", ""),
            obj.get("reason", ""),
            target,
            involved.get("fieldPath", ""),
            _format_event_source(obj.get("source"), reporting_controller, obj.get("reportingInstance") or ""),
            str(obj.get("message") or "").strip(),
            first_seen,
            count,
            _get(obj, "metadata", "name", default=""),
        ],
    )


def _print_events_k8s_io_event(obj: Obj, ctx: _Ctx) -> Row:
    return _print_event(_events_k8s_io_as_core(obj), ctx)


_NAMESPACE_COLUMNS = [_NAME, _Col("Status", description="The status of the namespace"), _AGE]


def _print_namespace(obj: Obj, ctx: _Ctx) -> Row:
    """printNamespace (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            _get(obj, "status", "phase", default=""),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_SECRET_COLUMNS = [
    _NAME,
    _Col("Type", description=_D_SECRET_TYPE),
    _Col("Data", description=_D_SECRET_DATA),
    _AGE,
]


def _print_secret(obj: Obj, ctx: _Ctx) -> Row:
    """printSecret (printers.go). stringData never reaches storage: it is merged into data on write."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            obj.get("type", ""),
            len(obj.get("data") or {}),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_SERVICE_ACCOUNT_COLUMNS = [_NAME, _Col("Secrets", description=_D_SA_SECRETS), _AGE]


def _print_service_account(obj: Obj, ctx: _Ctx) -> Row:
    """printServiceAccount (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            len(obj.get("secrets") or []),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_PV_COLUMNS = [
    _NAME,
    _Col("Capacity", description=_D_PV_CAPACITY),
    _Col("Access Modes", description=_D_PV_ACCESS_MODES),
    _Col("Reclaim Policy", description=_D_PV_RECLAIM),
    _Col("Status", description=_D_PV_PHASE),
    _Col("Claim", description=_D_PV_CLAIM),
    _Col("StorageClass", description="StorageClass of the pv"),
    _Col("VolumeAttributesClass", description="VolumeAttributesClass of the pv"),
    _Col("Reason", description=_D_PV_REASON),
    _AGE,
    _Col("VolumeMode", priority=1, description=_D_PV_VOLUME_MODE),
]

_BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _access_modes_as_string(modes: Any) -> str:
    """helper.GetAccessModesAsString (pkg/apis/core/helper)."""
    present = set(modes or [])
    out = []
    for mode, short in (
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ):
        if mode in present:
            out.append(short)
    return ",".join(out)


def _print_persistent_volume(obj: Obj, ctx: _Ctx) -> Row:
    """printPersistentVolume (printers.go)."""
    spec = obj.get("spec") or {}
    meta = obj.get("metadata") or {}
    claim_ref = ""
    if spec.get("claimRef") is not None:
        claim_ref = f"{spec['claimRef'].get('namespace', '')}/{spec['claimRef'].get('name', '')}"
    phase = _get(obj, "status", "phase", default="")
    if meta.get("deletionTimestamp") is not None:
        phase = "Terminating"
    annotations = meta.get("annotations") or {}
    if _BETA_STORAGE_CLASS_ANNOTATION in annotations:  # helper.GetPersistentVolumeClass
        storage_class = annotations[_BETA_STORAGE_CLASS_ANNOTATION]
    else:
        storage_class = spec.get("storageClassName") or ""
    vac = spec["volumeAttributesClassName"] if spec.get("volumeAttributesClassName") is not None else "<unset>"
    volume_mode = spec["volumeMode"] if spec.get("volumeMode") is not None else "<unset>"
    return _row(
        obj,
        [
            meta.get("name", ""),
            _quantity(_get(spec, "capacity", "storage")),
            _access_modes_as_string(spec.get("accessModes")),
            spec.get("persistentVolumeReclaimPolicy", ""),
            phase,
            claim_ref,
            storage_class,
            vac,
            _get(obj, "status", "reason", default=""),
            ctx.since(meta.get("creationTimestamp")),
            volume_mode,
        ],
    )


_PVC_COLUMNS = [
    _NAME,
    _Col("Status", description=_D_PVC_PHASE),
    _Col("Volume", description=_D_PVC_VOLUME),
    _Col("Capacity", description=_D_PVC_CAPACITY),
    _Col("Access Modes", description=_D_PVC_ACCESS_MODES),
    _Col("StorageClass", description="StorageClass of the pvc"),
    _Col("VolumeAttributesClass", description="VolumeAttributesClass of the pvc"),
    _AGE,
    _Col("VolumeMode", priority=1, description=_D_PVC_VOLUME_MODE),
]


def _print_persistent_volume_claim(obj: Obj, ctx: _Ctx) -> Row:
    """printPersistentVolumeClaim (printers.go)."""
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    meta = obj.get("metadata") or {}
    phase = status.get("phase", "")
    if meta.get("deletionTimestamp") is not None:
        phase = "Terminating"
    capacity = ""
    access_modes = ""
    if spec.get("volumeName"):
        access_modes = _access_modes_as_string(status.get("accessModes"))
        capacity = _quantity(_get(status, "capacity", "storage"))
    annotations = meta.get("annotations") or {}
    if _BETA_STORAGE_CLASS_ANNOTATION in annotations:  # helper.GetPersistentVolumeClaimClass
        storage_class = annotations[_BETA_STORAGE_CLASS_ANNOTATION]
    elif spec.get("storageClassName") is not None:
        storage_class = spec["storageClassName"]
    else:
        storage_class = ""
    vac = spec["volumeAttributesClassName"] if spec.get("volumeAttributesClassName") is not None else "<unset>"
    volume_mode = spec["volumeMode"] if spec.get("volumeMode") is not None else "<unset>"
    return _row(
        obj,
        [
            meta.get("name", ""),
            phase,
            spec.get("volumeName", ""),
            capacity,
            access_modes,
            storage_class,
            vac,
            ctx.since(meta.get("creationTimestamp")),
            volume_mode,
        ],
    )


_DEPLOYMENT_COLUMNS = [
    _NAME,
    _Col("Ready", description="Number of the pod with ready state"),
    _Col("Up-to-date", description=_D_DEPLOY_UPDATED),
    _Col("Available", description=_D_DEPLOY_AVAILABLE),
    _AGE,
    _WIDE_CONTAINERS,
    _WIDE_IMAGES,
    _Col("Selector", priority=1, description=_D_DEPLOY_SELECTOR),
]


def _print_deployment(obj: Obj, ctx: _Ctx) -> Row:
    """printDeployment (printers.go)."""
    status = obj.get("status") or {}
    try:
        selector_string = _selector_string(_get(obj, "spec", "selector"))
    except _SelectorError:
        selector_string = "<invalid>"
    names, images = _layout_container_cells(_get(obj, "spec", "template", "spec", "containers"))
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            f"{int(status.get('readyReplicas') or 0)}/{_replicas(obj)}",
            int(status.get("updatedReplicas") or 0),
            int(status.get("availableReplicas") or 0),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            names,
            images,
            selector_string,
        ],
    )


_HPA_COLUMNS = [
    _NAME,
    _Col(
        "Reference",
        description=(
            "reference to scaled resource; horizontal pod autoscaler will learn the current resource "
            "consumption and will set the desired number of pods by using its Scale subresource."
        ),
    ),
    _Col(
        "Targets",
        description=(
            "metrics contains the specifications for which to use to calculate the desired replica count "
            "(the maximum replica count across all metrics will be used).  The desired replica count is "
            "calculated multiplying the ratio between the target value and the current value by the "
            "current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and "
            "vice-versa.  See the individual metric source types for more information about how each type "
            "of metric must respond."
        ),
    ),
    _Col(
        "MinPods",
        description=(
            "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale "
            "down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate "
            "HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling "
            "is active as long as at least one metric value is available."
        ),
    ),
    _Col(
        "MaxPods",
        description=(
            "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale "
            "up. It cannot be less that minReplicas."
        ),
    ),
    _Col(
        "Replicas",
        description=(
            "currentReplicas is current number of replicas of pods managed by this autoscaler, as last "
            "seen by the autoscaler."
        ),
    ),
    _AGE,
]


def _hpa_metrics(obj: Obj) -> tuple[list[Any], list[Any]]:
    """Metric specs and statuses in the autoscaling/v2 shape (v1 objects are converted as upstream does)."""
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    if "targetCPUUtilizationPercentage" in spec or (
        "metrics" not in spec and "currentCPUUtilizationPercentage" in status
    ):
        specs: list[Any] = []
        statuses: list[Any] = []
        if spec.get("targetCPUUtilizationPercentage") is not None:
            specs.append(
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {
                            "type": "Utilization",
                            "averageUtilization": spec["targetCPUUtilizationPercentage"],
                        },
                    },
                }
            )
            if status.get("currentCPUUtilizationPercentage") is not None:
                statuses.append(
                    {
                        "type": "Resource",
                        "resource": {
                            "name": "cpu",
                            "current": {"averageUtilization": status["currentCPUUtilizationPercentage"]},
                        },
                    }
                )
        return specs, statuses
    return list(spec.get("metrics") or []), list(status.get("currentMetrics") or [])


def _format_hpa_metrics(specs: list[Any], statuses: list[Any]) -> str:
    """formatHPAMetrics (printers.go)."""
    if not specs:
        return "<none>"
    items: list[str] = []
    max_items = 2
    count = 0

    def status_of(i: int, key: str) -> Any:
        if len(statuses) > i:
            return statuses[i].get(key)
        return None

    for i, spec in enumerate(specs):
        kind = spec.get("type")
        if kind == "External":
            target = _get(spec, "external", "target", default={})
            st = status_of(i, "external")
            if target.get("averageValue") is not None:
                current = "<unknown>"
                if st is not None and _get(st, "current", "averageValue") is not None:
                    current = _quantity(st["current"]["averageValue"])
                items.append(f"{current}/{_quantity(target['averageValue'])} (avg)")
            else:
                current = "<unknown>"
                if st is not None:
                    current = _quantity(_get(st, "current", "value"))
                items.append(f"{current}/{_quantity(target.get('value'))}")
        elif kind == "Pods":
            st = status_of(i, "pods")
            current = "<unknown>"
            if st is not None:
                current = _quantity(_get(st, "current", "averageValue"))
            items.append(f"{current}/{_quantity(_get(spec, 'pods', 'target', 'averageValue'))}")
        elif kind == "Object":
            target = _get(spec, "object", "target", default={})
            st = status_of(i, "object")
            if target.get("averageValue") is not None:
                current = "<unknown>"
                if st is not None and _get(st, "current", "averageValue") is not None:
                    current = _quantity(st["current"]["averageValue"])
                items.append(f"{current}/{_quantity(target['averageValue'])} (avg)")
            else:
                current = "<unknown>"
                if st is not None:
                    current = _quantity(_get(st, "current", "value"))
                items.append(f"{current}/{_quantity(target.get('value'))}")
        elif kind in ("Resource", "ContainerResource"):
            key = "resource" if kind == "Resource" else "containerResource"
            source = spec.get(key) or {}
            target = source.get("target") or {}
            st = status_of(i, key)
            name = source.get("name", "")
            if target.get("averageValue") is not None:
                current = "<unknown>"
                if st is not None:
                    current = _quantity(_get(st, "current", "averageValue"))
                items.append(f"{name}: {current}/{_quantity(target['averageValue'])}")
            else:
                current = "<unknown>"
                if st is not None and _get(st, "current", "averageUtilization") is not None:
                    current = f"{int(st['current']['averageUtilization'])}%"
                target_text = "<auto>"
                if target.get("averageUtilization") is not None:
                    target_text = f"{int(target['averageUtilization'])}%"
                items.append(f"{name}: {current}/{target_text}")
        else:
            items.append("<unknown type>")
        count += 1

    more = False
    if count > max_items:
        items = items[:max_items]
        more = True
    ret = ", ".join(items)
    if more:
        return f"{ret} + {count - max_items} more..."
    return ret


def _print_horizontal_pod_autoscaler(obj: Obj, ctx: _Ctx) -> Row:
    """printHorizontalPodAutoscaler (printers.go)."""
    spec = obj.get("spec") or {}
    ref = spec.get("scaleTargetRef") or {}
    min_pods = str(int(spec["minReplicas"])) if spec.get("minReplicas") is not None else "<unset>"
    specs, statuses = _hpa_metrics(obj)
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            f"{ref.get('kind', '')}/{ref.get('name', '')}",
            _format_hpa_metrics(specs, statuses),
            min_pods,
            int(spec.get("maxReplicas") or 0),
            int(_get(obj, "status", "currentReplicas", default=0)),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_CONFIGMAP_COLUMNS = [_NAME, _Col("Data", description=_D_CM_DATA), _AGE]


def _print_config_map(obj: Obj, ctx: _Ctx) -> Row:
    """printConfigMap (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            len(obj.get("data") or {}) + len(obj.get("binaryData") or {}),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_NETWORK_POLICY_COLUMNS = [_NAME, _Col("Pod-Selector", description=_D_NETPOL_POD_SELECTOR), _AGE]


def _print_network_policy(obj: Obj, ctx: _Ctx) -> Row:
    """printNetworkPolicy (printers.go): FormatLabelSelector(&obj.Spec.PodSelector), never nil."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            _format_label_selector(_get(obj, "spec", "podSelector"), nil_is_empty=True),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_ROLE_BINDING_COLUMNS = [
    _NAME,
    _Col("Role", description=_D_RB_ROLE_REF),
    _AGE,
    _Col("Users", priority=1, description="Users in the roleBinding"),
    _Col("Groups", priority=1, description="Groups in the roleBinding"),
    _Col("ServiceAccounts", priority=1, description="ServiceAccounts in the roleBinding"),
]
_CLUSTER_ROLE_BINDING_COLUMNS = [
    _NAME,
    _Col("Role", description=_D_CRB_ROLE_REF),
    _AGE,
    _Col("Users", priority=1, description="Users in the clusterRoleBinding"),
    _Col("Groups", priority=1, description="Groups in the clusterRoleBinding"),
    _Col("ServiceAccounts", priority=1, description="ServiceAccounts in the clusterRoleBinding"),
]


def _print_role_binding(obj: Obj, ctx: _Ctx) -> Row:
    """printRoleBinding / printClusterRoleBinding (printers.go), rbac.SubjectsStrings."""
    role_ref = obj.get("roleRef") or {}
    users: list[str] = []
    groups: list[str] = []
    sas: list[str] = []
    for subject in obj.get("subjects") or []:
        kind = subject.get("kind")
        if kind == "ServiceAccount":
            sas.append(f"{subject.get('namespace', '')}/{subject.get('name', '')}")
        elif kind == "User":
            users.append(subject.get("name", ""))
        elif kind == "Group":
            groups.append(subject.get("name", ""))
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            f"{role_ref.get('kind', '')}/{role_ref.get('name', '')}",
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            ", ".join(users),
            ", ".join(groups),
            ", ".join(sas),
        ],
    )


_LEASE_COLUMNS = [_NAME, _Col("Holder", description=_D_LEASE_HOLDER), _AGE]


def _print_lease(obj: Obj, ctx: _Ctx) -> Row:
    """printLease (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            _get(obj, "spec", "holderIdentity", default=""),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_STORAGE_CLASS_COLUMNS = [
    _NAME,
    _Col("Provisioner", description=_D_SC_PROVISIONER),
    _Col("ReclaimPolicy", description=_D_SC_RECLAIM),
    _Col("VolumeBindingMode", description=_D_SC_BINDING),
    _Col("AllowVolumeExpansion", description=_D_SC_EXPANSION),
    _AGE,
]


def _print_storage_class(obj: Obj, ctx: _Ctx) -> Row:
    """printStorageClass (printers.go); storageutil.IsDefaultAnnotation."""
    meta = obj.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    name = meta.get("name", "")
    if (
        annotations.get("storageclass.kubernetes.io/is-default-class") == "true"
        or annotations.get("storageclass.beta.kubernetes.io/is-default-class") == "true"
    ):
        name += " (default)"
    return _row(
        obj,
        [
            name,
            obj.get("provisioner", ""),
            obj["reclaimPolicy"] if obj.get("reclaimPolicy") is not None else "Delete",
            obj["volumeBindingMode"] if obj.get("volumeBindingMode") is not None else "Immediate",
            bool(obj["allowVolumeExpansion"]) if obj.get("allowVolumeExpansion") is not None else False,
            ctx.since(meta.get("creationTimestamp")),
        ],
    )


_CONTROLLER_REVISION_COLUMNS = [
    _NAME,
    _Col("Controller", description="Controller of the object"),
    _Col("Revision", description=_D_CR_REVISION),
    _AGE,
]


def _print_controller_revision(obj: Obj, ctx: _Ctx) -> Row:
    """printControllerRevision (printers.go), formatResourceName."""
    controller_name = "<none>"
    for ref in _get(obj, "metadata", "ownerReferences", default=[]) or []:
        if ref.get("controller"):
            api_version = ref.get("apiVersion", "")
            group = api_version.split("/", 1)[0] if "/" in api_version else ""
            kind = ref.get("kind", "")
            group_kind = f"{kind}.{group}" if group else kind
            controller_name = f"{group_kind.lower()}/{ref.get('name', '')}" if group_kind else ref.get("name", "")
            break
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            controller_name,
            int(obj.get("revision") or 0),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_RESOURCE_QUOTA_COLUMNS = [
    _NAME,
    _Col(
        "Request",
        description="Request represents a minimum amount of cpu/memory that a container may consume.",
    ),
    _Col(
        "Limit",
        description=(
            "Limits control the maximum amount of cpu/memory that a container may use independent of "
            "contention on the node."
        ),
    ),
    _AGE,
]


def _print_resource_quota(obj: Obj, ctx: _Ctx) -> Row:
    """printResourceQuota (printers.go)."""
    hard = _get(obj, "status", "hard", default={}) or {}
    used = _get(obj, "status", "used", default={}) or {}
    request_parts: list[str] = []
    limit_parts: list[str] = []
    for resource in sorted(hard):
        pieces = resource.split(".")
        target = limit_parts if len(pieces) > 1 and pieces[0] == "limits" else request_parts
        target.append(f"{resource}: {_quantity(used.get(resource))}/{_quantity(hard.get(resource))}")
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            ", ".join(request_parts),
            ", ".join(limit_parts),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_PRIORITY_CLASS_COLUMNS = [
    _NAME,
    _Col("Value", type="integer", description=_D_PC_VALUE),
    _Col("Global-Default", type="boolean", description=_D_PC_DEFAULT),
    _AGE,
    _Col("PreemptionPolicy", description=_D_PC_PREEMPTION),
]


def _print_priority_class(obj: Obj, ctx: _Ctx) -> Row:
    """printPriorityClass (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            int(obj.get("value") or 0),
            bool(obj.get("globalDefault") or False),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
            obj.get("preemptionPolicy") or "",
        ],
    )


# printers.go really uses metav1.ObjectMeta{}.SwaggerDoc()["handler"], which does not exist: "".
_RUNTIME_CLASS_COLUMNS = [_NAME, _Col("Handler", description=""), _AGE]


def _print_runtime_class(obj: Obj, ctx: _Ctx) -> Row:
    """printRuntimeClass (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            obj.get("handler", ""),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_VOLUME_ATTACHMENT_COLUMNS = [
    _NAME,
    _Col("Attacher", format="name", description=_D_VA_ATTACHER),
    _Col("PV", description=_D_VA_PV),
    _Col("Node", description=_D_VA_NODE),
    _Col("Attached", type="boolean", description=_D_VA_ATTACHED),
    _AGE,
]


def _print_volume_attachment(obj: Obj, ctx: _Ctx) -> Row:
    """printVolumeAttachment (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            _get(obj, "spec", "attacher", default=""),
            _get(obj, "spec", "source", "persistentVolumeName", default=""),
            _get(obj, "spec", "nodeName", default=""),
            bool(_get(obj, "status", "attached", default=False)),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_CSI_NODE_COLUMNS = [
    _NAME,
    _Col(
        "Drivers",
        type="integer",
        description="Drivers indicates the number of CSI drivers registered on the node",
    ),
    _AGE,
]


def _print_csi_node(obj: Obj, ctx: _Ctx) -> Row:
    """printCSINode (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            len(_get(obj, "spec", "drivers", default=[]) or []),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_WEBHOOK_COLUMNS = [
    _NAME,
    _Col(
        "Webhooks",
        type="integer",
        description="Webhooks indicates the number of webhooks registered in this configuration",
    ),
    _AGE,
]


def _print_webhook_configuration(obj: Obj, ctx: _Ctx) -> Row:
    """printMutatingWebhook / printValidatingWebhook (printers.go)."""
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            len(obj.get("webhooks") or []),
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


_COMPONENT_STATUS_COLUMNS = [
    _NAME,
    _Col("Status", description="Status of the component conditions"),
    _Col("Message", description="Message of the component conditions"),
    _Col("Error", description="Error of the component conditions"),
]


def _print_component_status(obj: Obj, ctx: _Ctx) -> Row:
    """printComponentStatus (printers.go)."""
    status, message, error = "Unknown", "", ""
    for cond in obj.get("conditions") or []:
        if cond.get("type") == "Healthy":
            status = "Healthy" if cond.get("status") == "True" else "Unhealthy"
            message = cond.get("message", "")
            error = cond.get("error", "")
            break
    return _row(obj, [_get(obj, "metadata", "name", default=""), status, message, error])


_APISERVICE_COLUMNS = [
    _NAME,
    _Col("Service", description="The reference to the service that hosts this API endpoint."),
    _Col("Available", description="Whether this service is available."),
    _AGE,
]


def _print_api_service(obj: Obj, ctx: _Ctx) -> Row:
    """REST.ConvertToTable of kube-aggregator pkg/registry/apiservice/etcd/etcd.go (MetaToTableRow)."""
    svc = _get(obj, "spec", "service")
    service = "Local"
    if svc is not None:
        service = f"{svc.get('namespace', '')}/{svc.get('name', '')}"
    status = "Unknown"
    for cond in _get(obj, "status", "conditions", default=[]) or []:
        if cond.get("type") == "Available":
            if cond.get("status") == "True":
                status = "True"
            elif cond.get("reason"):
                status = f"{cond.get('status', '')} ({cond['reason']})"
            else:
                status = cond.get("status", "")
            break
    return _row(
        obj,
        [
            _get(obj, "metadata", "name", default=""),
            service,
            status,
            ctx.since(_get(obj, "metadata", "creationTimestamp")),
        ],
    )


# ---------------------------------------------------------------------------
# Registry: (API group, resource) -> (columns, printer).
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Handler:
    columns: list[_Col]
    printer: Printer


_HANDLERS: dict[tuple[str, str], _Handler] = {
    ("", "pods"): _Handler(_POD_COLUMNS, _print_pod),
    ("", "podtemplates"): _Handler(_POD_TEMPLATE_COLUMNS, _print_pod_template),
    ("", "replicationcontrollers"): _Handler(_RC_COLUMNS, _print_replication_controller),
    ("", "services"): _Handler(_SERVICE_COLUMNS, _print_service),
    ("", "endpoints"): _Handler(_ENDPOINTS_COLUMNS, _print_endpoints),
    ("", "nodes"): _Handler(_NODE_COLUMNS, _print_node),
    ("", "events"): _Handler(_EVENT_COLUMNS, _print_event),
    ("events.k8s.io", "events"): _Handler(_EVENT_COLUMNS, _print_events_k8s_io_event),
    ("", "namespaces"): _Handler(_NAMESPACE_COLUMNS, _print_namespace),
    ("", "secrets"): _Handler(_SECRET_COLUMNS, _print_secret),
    ("", "serviceaccounts"): _Handler(_SERVICE_ACCOUNT_COLUMNS, _print_service_account),
    ("", "persistentvolumes"): _Handler(_PV_COLUMNS, _print_persistent_volume),
    ("", "persistentvolumeclaims"): _Handler(_PVC_COLUMNS, _print_persistent_volume_claim),
    ("", "componentstatuses"): _Handler(_COMPONENT_STATUS_COLUMNS, _print_component_status),
    ("", "configmaps"): _Handler(_CONFIGMAP_COLUMNS, _print_config_map),
    ("", "resourcequotas"): _Handler(_RESOURCE_QUOTA_COLUMNS, _print_resource_quota),
    ("apps", "deployments"): _Handler(_DEPLOYMENT_COLUMNS, _print_deployment),
    ("apps", "replicasets"): _Handler(_RS_COLUMNS, _print_replica_set),
    ("apps", "statefulsets"): _Handler(_STATEFULSET_COLUMNS, _print_stateful_set),
    ("apps", "daemonsets"): _Handler(_DAEMONSET_COLUMNS, _print_daemon_set),
    ("apps", "controllerrevisions"): _Handler(_CONTROLLER_REVISION_COLUMNS, _print_controller_revision),
    ("batch", "jobs"): _Handler(_JOB_COLUMNS, _print_job),
    ("batch", "cronjobs"): _Handler(_CRONJOB_COLUMNS, _print_cron_job),
    ("policy", "poddisruptionbudgets"): _Handler(_PDB_COLUMNS, _print_pod_disruption_budget),
    ("autoscaling", "horizontalpodautoscalers"): _Handler(_HPA_COLUMNS, _print_horizontal_pod_autoscaler),
    ("networking.k8s.io", "networkpolicies"): _Handler(_NETWORK_POLICY_COLUMNS, _print_network_policy),
    ("networking.k8s.io", "ingresses"): _Handler(_INGRESS_COLUMNS, _print_ingress),
    ("networking.k8s.io", "ingressclasses"): _Handler(_INGRESS_CLASS_COLUMNS, _print_ingress_class),
    ("discovery.k8s.io", "endpointslices"): _Handler(_ENDPOINT_SLICE_COLUMNS, _print_endpoint_slice),
    ("coordination.k8s.io", "leases"): _Handler(_LEASE_COLUMNS, _print_lease),
    ("storage.k8s.io", "storageclasses"): _Handler(_STORAGE_CLASS_COLUMNS, _print_storage_class),
    ("storage.k8s.io", "volumeattachments"): _Handler(_VOLUME_ATTACHMENT_COLUMNS, _print_volume_attachment),
    ("storage.k8s.io", "csinodes"): _Handler(_CSI_NODE_COLUMNS, _print_csi_node),
    ("rbac.authorization.k8s.io", "rolebindings"): _Handler(_ROLE_BINDING_COLUMNS, _print_role_binding),
    ("rbac.authorization.k8s.io", "clusterrolebindings"): _Handler(_CLUSTER_ROLE_BINDING_COLUMNS, _print_role_binding),
    ("scheduling.k8s.io", "priorityclasses"): _Handler(_PRIORITY_CLASS_COLUMNS, _print_priority_class),
    ("node.k8s.io", "runtimeclasses"): _Handler(_RUNTIME_CLASS_COLUMNS, _print_runtime_class),
    ("apiregistration.k8s.io", "apiservices"): _Handler(_APISERVICE_COLUMNS, _print_api_service),
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"): _Handler(
        _WEBHOOK_COLUMNS, _print_webhook_configuration
    ),
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"): _Handler(
        _WEBHOOK_COLUMNS, _print_webhook_configuration
    ),
}

# Built-in resources whose registry has no printer, so the API server answers with
# rest.DefaultTableConvertor: "Name" + "Created At" (RFC 3339, type date).
_DEFAULT_TABLE_RESOURCES: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "limitranges"),
        ("rbac.authorization.k8s.io", "roles"),
        ("rbac.authorization.k8s.io", "clusterroles"),
        ("apiextensions.k8s.io", "customresourcedefinitions"),
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
    }
)

# Built-in groups served by kube-apiserver itself. Resources of these groups that
# have an upstream printer not transliterated here are reported as unsupported.
_BUILTIN_GROUPS = frozenset(
    {
        "",
        "apps",
        "batch",
        "policy",
        "autoscaling",
        "networking.k8s.io",
        "discovery.k8s.io",
        "coordination.k8s.io",
        "storage.k8s.io",
        "rbac.authorization.k8s.io",
        "scheduling.k8s.io",
        "node.k8s.io",
        "admissionregistration.k8s.io",
        "events.k8s.io",
        "certificates.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "resource.k8s.io",
        "apiregistration.k8s.io",
        "apiextensions.k8s.io",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "internal.apiserver.k8s.io",
        "storagemigration.k8s.io",
    }
)


def supports(group: str, resource: str) -> bool:
    """Whether :func:`render_table` reproduces the real API server's table for this resource.

    True for every resource with a transliterated printer, for built-in resources that
    upstream serves with the default Name/Created At table, and for custom resources
    (any group kube-apiserver does not serve itself), which get the CRD table. False
    for built-in resources with an upstream printer that is not implemented here
    (e.g. certificatesigningrequests, flowschemas): the server should then answer
    without a Table rather than with wrong columns.
    """
    key = (group, resource)
    if key in _HANDLERS or key in _DEFAULT_TABLE_RESOURCES:
        return True
    return group not in _BUILTIN_GROUPS


def uses_default_table(group: str, resource: str) -> bool:
    """Whether this resource gets the generic (non-printer) table."""
    return (group, resource) not in _HANDLERS


# ---------------------------------------------------------------------------
# Default tables (no printer).
# ---------------------------------------------------------------------------

_DEFAULT_COLUMNS = [_NAME, _Col("Created At", type="date", description=_D_CREATED)]


def _created_at(obj: Obj) -> str:
    """m.GetCreationTimestamp().Time.UTC().Format(time.RFC3339)."""
    t = _parse_time(_get(obj, "metadata", "creationTimestamp"))
    if t is None:
        return "0001-01-01T00:00:00Z"
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _print_default(obj: Obj, ctx: _Ctx) -> Row:
    """rest.defaultTableConvertor.ConvertToTable (apiserver/pkg/registry/rest/table.go)."""
    return {"cells": [_get(obj, "metadata", "name", default=""), _created_at(obj)]}


def _crd_columns(printer_columns: Sequence[Mapping[str, Any]] | None) -> list[_Col]:
    """tableconvertor.New (apiextensions-apiserver); serveDefaultColumnsIfEmpty adds Age."""
    cols = [_NAME]
    if not printer_columns:
        return [_NAME, _Col("Age", type="date", description=_D_CREATED)]
    for col in printer_columns:
        json_path = col.get("jsonPath") or col.get("JSONPath") or ""
        cols.append(
            _Col(
                name=col.get("name", ""),
                type=col.get("type", "string"),
                format=col.get("format", "") or "",
                description=col.get("description")
                or f"Custom resource definition column (in JSONPath format): {json_path}",
                priority=int(col.get("priority") or 0),
            )
        )
    return cols


def _simple_json_path(obj: Any, path: str) -> tuple[bool, Any]:
    """The simple JSONPath subset CRDs allow (``.a.b``, ``.a[0].b``, ``.metadata.labels['x']``)."""
    cur = obj
    i = 0
    path = path.strip()
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1]
    while i < len(path):
        ch = path[i]
        if ch == ".":
            j = i + 1
            while j < len(path) and path[j] not in ".[":
                j += 1
            key = path[i + 1 : j]
            if key:
                if not isinstance(cur, Mapping) or key not in cur:
                    return False, None
                cur = cur[key]
            i = j
        elif ch == "[":
            j = path.index("]", i)
            token = path[i + 1 : j].strip()
            if token[:1] in "'\"":
                key = token[1:-1]
                if not isinstance(cur, Mapping) or key not in cur:
                    return False, None
                cur = cur[key]
            else:
                try:
                    idx = int(token)
                except ValueError:
                    return False, None
                if not isinstance(cur, list) or not -len(cur) <= idx < len(cur):
                    return False, None
                cur = cur[idx]
            i = j + 1
        else:
            return False, None
    return True, cur


def _jsonpath_print(value: Any) -> str:
    """client-go jsonpath PrintResults for one value (strings bare, the rest as JSON)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _crd_cell(col: _Col, found: bool, value: Any, ctx: _Ctx) -> Any:
    """cellForJSONValue (apiextensions tableconvertor)."""
    if not found or value is None:
        return None
    if col.type == "string":
        return _jsonpath_print(value)
    if col.type == "integer":
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return int(value)
        return None
    if col.type == "number":
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return float(value)
        return None
    if col.type == "boolean":
        return value if isinstance(value, bool) else None
    if col.type == "date":
        if isinstance(value, str):
            t = _parse_time(value)
            if t is None:
                # metatable.ConvertToHumanReadableDateType of a zero time, or an unparsable one.
                return "<unknown>" if value.startswith("0001-01-01") else "<invalid>"
            return human_duration(ctx.now - t)
        return None
    return None


# ---------------------------------------------------------------------------
# The Table.
# ---------------------------------------------------------------------------


def _row_object(obj: Obj, include_object: str, table_api_version: str) -> Any:
    """asTable (apiserver handlers/response.go)."""
    if include_object == "Object":
        return copy.deepcopy(dict(obj))
    if include_object in ("Metadata", ""):
        # meta.AsPartialObjectMetadata copies the whole ObjectMeta.
        return {
            "kind": "PartialObjectMetadata",
            "apiVersion": table_api_version,
            "metadata": copy.deepcopy(dict(obj.get("metadata") or {})),
        }
    return None  # IncludeNone: RawExtension{} marshals as null


def _table_list_meta(objects: Sequence[Obj], list_meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """GenerateTable: ListMeta from the list, or the single object's resourceVersion."""
    meta: dict[str, Any] = {}
    if list_meta is not None:
        if list_meta.get("resourceVersion"):
            meta["resourceVersion"] = str(list_meta["resourceVersion"])
        if list_meta.get("continue"):
            meta["continue"] = str(list_meta["continue"])
        if list_meta.get("remainingItemCount") is not None:
            meta["remainingItemCount"] = int(list_meta["remainingItemCount"])
    elif objects:
        rv = _get(objects[0], "metadata", "resourceVersion")
        if rv:
            meta["resourceVersion"] = str(rv)
    return meta


def table_options_error(include_object: str) -> str | None:
    """The 400 BadRequest message for an invalid ``includeObject``, or ``None`` when it is valid.

    optionsForTransform (apiserver handlers/rest.go) with validation.ValidateTableOptions
    (apimachinery meta/v1/validation): the request fails before anything is converted.
    """
    if include_object in ("", *INCLUDE_OBJECT_VALUES):
        return None
    value = json.dumps(include_object)
    return (
        "Unable to convert to Table as requested: includeObject: Invalid value: "
        f"{value}: must be 'Metadata', 'Object', 'None', or empty"
    )


def render_table(
    objects: list[dict[str, Any]],
    *,
    resource: str,
    group: str,
    now: datetime,
    include_object: str = "Metadata",
    list_meta: dict[str, Any] | None = None,
    no_headers: bool = False,
    table_api_version: str = "meta.k8s.io/v1",
    printer_columns: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Build the ``Table`` a real API server returns for ``objects``.

    ``objects``: the versioned objects as stored (``events.k8s.io`` events in their
    own shape). ``list_meta``: the list's ``metadata`` for list responses; ``None``
    when converting a single object (a GET by name, or one watch event), whose own
    ``resourceVersion`` then becomes the table's. ``include_object``: the
    ``includeObject`` query parameter (``""`` means ``Metadata``); anything else
    raises ``ValueError`` carrying the message of the 400 BadRequest the API server
    answers with (see :func:`table_options_error`, which callers can check first).
    ``no_headers``: ``True`` for every watch event after the first (upstream then
    sends ``"columnDefinitions": null``).
    ``table_api_version``: ``meta.k8s.io/v1`` or ``meta.k8s.io/v1beta1``, whichever
    the Accept header negotiated; it is also the apiVersion of
    ``PartialObjectMetadata`` rows. ``printer_columns``: a CRD version's
    ``additionalPrinterColumns``, used only for custom resources.

    All columns are always present (upstream generates with ``Wide: true``); kubectl
    hides the priority-1 ones unless ``-o wide``. Rows keep the given order: kubectl
    sorts events client-side.
    """
    problem = table_options_error(include_object)
    if problem is not None:
        raise ValueError(problem)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    ctx = _Ctx(now=now)

    key = (group, resource)
    handler = _HANDLERS.get(key)
    rows: list[Row] | None
    if handler is not None:
        columns = handler.columns
        # printXList: make([]metav1.TableRow, 0, len(list.Items)) -> [] when empty.
        rows = [handler.printer(obj, ctx) for obj in objects]
    elif group in _BUILTIN_GROUPS:
        columns = _DEFAULT_COLUMNS
        # defaultTableConvertor appends to a nil slice: an empty list has "rows": null.
        rows = [_print_default(obj, ctx) for obj in objects] or None
    else:
        columns = _crd_columns(printer_columns)
        rows = []
        for obj in objects:
            cells: list[Any] = [_get(obj, "metadata", "name", default="")]
            if not printer_columns:
                cells.append(ctx.since(_get(obj, "metadata", "creationTimestamp")))
            else:
                for col, spec in zip(columns[1:], printer_columns, strict=True):
                    json_path = spec.get("jsonPath") or spec.get("JSONPath") or ""
                    found, value = _simple_json_path(obj, json_path)
                    cells.append(_crd_cell(col, found, value, ctx))
            rows.append({"cells": cells})

    if rows is not None:
        for obj, row in zip(objects, rows, strict=True):
            row["object"] = _row_object(obj, include_object, table_api_version)

    return {
        "kind": "Table",
        "apiVersion": table_api_version,
        "metadata": _table_list_meta(objects, list_meta),
        "columnDefinitions": None if no_headers else [c.as_json() for c in columns],
        "rows": rows,
    }
