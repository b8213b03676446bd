"""The resource registry: every kind the embedded API server serves, described once.

Why: discovery (aggregated and legacy), OpenAPI, routing, the store and authorization all need the same
facts about a resource (group, version, kind, plural, scope, verbs, subresources, short names). Keeping them
in one table means the two discovery renderings and the router can never disagree.
Must not: hold objects or behaviour; defaulting lives in ``defaults.py`` and storage in ``store.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
READ_VERBS = ("get", "list", "watch")


@dataclass(frozen=True)
class Subresource:
    name: str
    kind: str
    verbs: tuple[str, ...]
    group: str = ""
    """Group of the response kind when it differs from the parent's (``scale`` answers autoscaling/v1)."""
    version: str = ""


@dataclass(frozen=True)
class ResourceType:
    """One served resource, e.g. ``deployments`` in ``apps/v1``."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    verbs: tuple[str, ...] = ALL_VERBS
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[Subresource, ...] = ()
    has_generation: bool = True
    """Whether ``metadata.generation`` is kept (kinds with a spec); configmaps, secrets, events have none."""
    delete_returns_object: bool = False
    """The real registries return the object on DELETE for pods, services and namespaces, Status otherwise."""
    list_kind: str = field(default="")

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> str:
        """``pods`` for core, ``deployments.apps`` otherwise: the qualified resource of error messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def subresource(self, name: str) -> Subresource | None:
        for sub in self.subresources:
            if sub.name == name:
                return sub
        return None

    def base_path(self, namespace: str | None = None) -> str:
        prefix = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            return f"{prefix}/namespaces/{namespace}/{self.plural}"
        return f"{prefix}/{self.plural}"


_STATUS = Subresource("status", "", ("get", "patch", "update"))


def _status(kind: str) -> Subresource:
    return Subresource("status", kind, ("get", "patch", "update"))


def _scale() -> Subresource:
    return Subresource("scale", "Scale", ("get", "patch", "update"), group="autoscaling", version="v1")


def _r(
    group: str,
    version: str,
    kind: str,
    plural: str,
    namespaced: bool = True,
    *,
    short: tuple[str, ...] = (),
    cat: tuple[str, ...] = (),
    subs: tuple[Subresource, ...] = (),
    verbs: tuple[str, ...] = ALL_VERBS,
    gen: bool = True,
    del_obj: bool = False,
) -> ResourceType:
    return ResourceType(
        group=group,
        version=version,
        kind=kind,
        plural=plural,
        singular=kind.lower(),
        namespaced=namespaced,
        verbs=verbs,
        short_names=short,
        categories=cat,
        subresources=subs,
        has_generation=gen,
        delete_returns_object=del_obj,
        list_kind=kind + "List",
    )


_CORE_NS_VERBS = ("create", "delete", "get", "list", "patch", "update", "watch")

RESOURCES: tuple[ResourceType, ...] = (
    # core v1
    _r("", "v1", "Namespace", "namespaces", False, short=("ns",), subs=(_status("Namespace"),
       Subresource("finalize", "Namespace", ("update",))), verbs=_CORE_NS_VERBS, gen=False, del_obj=True),
    _r("", "v1", "Node", "nodes", False, short=("no",), subs=(_status("Node"),), gen=False),
    _r("", "v1", "Pod", "pods", short=("po",), cat=("all",), del_obj=True, subs=(
        _status("Pod"),
        Subresource("log", "Pod", ("get",)),
        Subresource("eviction", "Eviction", ("create",), group="policy", version="v1"),
        Subresource("exec", "PodExecOptions", ("create", "get")),
        Subresource("portforward", "PodPortForwardOptions", ("create", "get")),
        Subresource("attach", "PodAttachOptions", ("create", "get")),
        Subresource("binding", "Binding", ("create",)),
    )),
    _r("", "v1", "Service", "services", short=("svc",), cat=("all",), subs=(_status("Service"),),
       verbs=_CORE_NS_VERBS + ("deletecollection",), gen=False, del_obj=True),
    _r("", "v1", "Endpoints", "endpoints", short=("ep",), gen=False),
    _r("", "v1", "Event", "events", short=("ev",), gen=False),
    _r("", "v1", "ConfigMap", "configmaps", short=("cm",), gen=False),
    _r("", "v1", "Secret", "secrets", gen=False),
    _r("", "v1", "ServiceAccount", "serviceaccounts", short=("sa",), gen=False,
       subs=(Subresource("token", "TokenRequest", ("create",), group="authentication.k8s.io", version="v1"),)),
    _r("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", short=("pvc",),
       subs=(_status("PersistentVolumeClaim"),), gen=False),
    _r("", "v1", "PersistentVolume", "persistentvolumes", False, short=("pv",),
       subs=(_status("PersistentVolume"),), gen=False),
    _r("", "v1", "ResourceQuota", "resourcequotas", short=("quota",), subs=(_status("ResourceQuota"),), gen=False),
    _r("", "v1", "LimitRange", "limitranges", short=("limits",), gen=False),
    _r("", "v1", "ComponentStatus", "componentstatuses", False, short=("cs",), verbs=("get", "list"), gen=False),
    # apps/v1
    _r("apps", "v1", "Deployment", "deployments", short=("deploy",), cat=("all",),
       subs=(_scale(), _status("Deployment"))),
    _r("apps", "v1", "ReplicaSet", "replicasets", short=("rs",), cat=("all",),
       subs=(_scale(), _status("ReplicaSet"))),
    _r("apps", "v1", "StatefulSet", "statefulsets", short=("sts",), cat=("all",),
       subs=(_scale(), _status("StatefulSet"))),
    _r("apps", "v1", "DaemonSet", "daemonsets", short=("ds",), cat=("all",), subs=(_status("DaemonSet"),)),
    _r("apps", "v1", "ControllerRevision", "controllerrevisions"),
    # batch/v1
    _r("batch", "v1", "Job", "jobs", cat=("all",), subs=(_status("Job"),)),
    _r("batch", "v1", "CronJob", "cronjobs", short=("cj",), cat=("all",), subs=(_status("CronJob"),)),
    # policy/v1
    _r("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", short=("pdb",),
       subs=(_status("PodDisruptionBudget"),)),
    # discovery.k8s.io/v1
    _r("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", gen=False),
    # networking.k8s.io/v1
    _r("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", short=("netpol",)),
    # storage.k8s.io/v1
    _r("storage.k8s.io", "v1", "StorageClass", "storageclasses", False, short=("sc",), gen=False),
    # coordination.k8s.io/v1
    _r("coordination.k8s.io", "v1", "Lease", "leases", gen=False),
    # events.k8s.io/v1
    _r("events.k8s.io", "v1", "Event", "events", short=("ev",), gen=False),
    # authorization / authentication: create-only reviews
    _r("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", False,
       verbs=("create",), gen=False),
    _r("authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", True,
       verbs=("create",), gen=False),
    _r("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", False,
       verbs=("create",), gen=False),
    # RBAC (the `current` backend's ServiceAccount binding is mirrored here so the same code runs on sim)
    _r("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", False, gen=False),
    _r("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", False, gen=False),
    _r("rbac.authorization.k8s.io", "v1", "Role", "roles", gen=False),
    _r("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", gen=False),
)

# Kinds that are answered but never stored.
VIRTUAL_KINDS = {"SelfSubjectAccessReview", "SelfSubjectRulesReview", "SelfSubjectReview"}

# Preferred group order in discovery (the real server's priority order, roughly).
GROUP_ORDER = (
    "", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io", "batch", "networking.k8s.io",
    "policy", "rbac.authorization.k8s.io", "storage.k8s.io", "coordination.k8s.io", "discovery.k8s.io",
)


class Registry:
    """Lookup of :class:`ResourceType` by path pieces, by kind, or by a loose name (``pods``, ``deploy``,
    ``deployments.apps``)."""

    def __init__(self, resources: tuple[ResourceType, ...] = RESOURCES) -> None:
        self.resources = resources
        self._by_gvr = {(r.group, r.version, r.plural): r for r in resources}
        self._by_gvk = {(r.group, r.version, r.kind): r for r in resources}
        self._by_key = {r.key: r for r in resources}

    def by_gvr(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_gvr.get((group, version, plural))

    def by_api_version_kind(self, api_version: str, kind: str) -> ResourceType | None:
        group, _, version = api_version.rpartition("/")
        return self._by_gvk.get((group, version, kind))

    def lookup(self, name: str | ResourceType) -> ResourceType:
        """Resolve ``pods``, ``deployments.apps``, ``deployments`` (unique plural), ``Deployment`` or a short
        name. Core wins a plural shared by two groups (``events``)."""
        if isinstance(name, ResourceType):
            return name
        if name in self._by_key:
            return self._by_key[name]
        for r in self.resources:  # core first: resources are ordered core-first
            if name in (r.plural, r.kind, r.singular) or name in r.short_names:
                return r
        raise KeyError(name)

    def groups(self) -> list[tuple[str, list[str]]]:
        """``[(group, [versions])]`` in discovery order."""
        seen: dict[str, list[str]] = {}
        for g in GROUP_ORDER:
            for r in self.resources:
                if r.group == g and r.version not in seen.setdefault(g, []):
                    seen[g].append(r.version)
        return list(seen.items())

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        return [r for r in self.resources if r.group == group and r.version == version]


REGISTRY = Registry()
