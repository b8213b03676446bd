"""What the embedded cluster stores but does not bring to life: kinds no controller of the model runs.

Why: an object the model accepts and then ignores looks healthy for ever (a StatefulSet with no pods, a
NetworkPolicy that blocks nothing), so a scenario built on one would silently never land and burn its
settle deadline for every subject. The backend reads this table to answer NOT VALID before anything is
applied (docs/embedded-cluster.md).
Must not: import the harness.
"""

from __future__ import annotations

UNMODELLED_KINDS: dict[tuple[str, str], str] = {
    ("apps", "StatefulSet"): "the embedded cluster stores StatefulSets but runs no StatefulSet controller",
    ("apps", "DaemonSet"): "the embedded cluster stores DaemonSets but runs no DaemonSet controller",
    ("batch", "CronJob"): "the embedded cluster stores CronJobs but runs no CronJob controller",
    ("", "ReplicationController"): "the embedded cluster runs no ReplicationController controller",
    ("autoscaling", "HorizontalPodAutoscaler"): "the embedded cluster has no metrics and scales nothing",
    ("networking.k8s.io", "NetworkPolicy"): "the embedded cluster stores NetworkPolicies but enforces none "
                                            "(kind with Calico does)",
}
"""(API group, kind) → why a scenario that creates one is not valid on the embedded cluster."""


def unmodelled(api_version: str, kind: str) -> str | None:
    group = api_version.split("/")[0] if "/" in api_version else ""
    return UNMODELLED_KINDS.get((group, kind))
