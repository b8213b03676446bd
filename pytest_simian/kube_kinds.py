"""Kubernetes kinds whose scope is known without asking a cluster, and the tier a cluster-scoped one needs.

Why: an engine renders a namespaced object without a namespace and means the fault's; the executor must
place every object (namespaced or cluster-scoped) before any write. Both read this one table; kinds it
does not know are placed by discovery.
Must not: talk to a cluster.
"""

from __future__ import annotations

NAMESPACED_KINDS = frozenset({
    "Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "Service", "ConfigMap",
    "Secret", "PersistentVolumeClaim", "PodDisruptionBudget", "ServiceAccount", "Role", "RoleBinding",
    "NetworkPolicy", "Ingress", "Endpoints", "EndpointSlice", "HorizontalPodAutoscaler", "LimitRange",
    "ResourceQuota", "Lease", "Event", "PodTemplate", "ControllerRevision",
})
"""Kinds known to be namespaced without asking the cluster (others are looked up before any write)."""

CLUSTER_SCOPED_TIERS = {
    "Node": "node", "PersistentVolume": "node", "StorageClass": "node", "PriorityClass": "node",
    "RuntimeClass": "node", "CSIDriver": "node", "CSINode": "node", "VolumeAttachment": "node",
}
"""Cluster-scoped kinds whose blast radius is the nodes; every other cluster-scoped kind (Namespace,
ClusterRole, webhooks, CRDs, ...) is `external`: fail closed."""


def static_scope(api_version: str, kind: str) -> bool | None:
    """True = namespaced, False = cluster-scoped, None = ask the cluster."""
    if kind in NAMESPACED_KINDS:
        return True
    if kind in CLUSTER_SCOPED_TIERS or kind in ("Namespace", "ClusterRole", "ClusterRoleBinding",
                                               "CustomResourceDefinition", "APIService",
                                               "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        return False
    return None
