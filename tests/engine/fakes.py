"""A fake cluster for the engine's unit tests: discovery, an in-memory store, and a log of every write.

Why: the adversarial table must show that a rejected fault writes nothing; a fake that records writes
says so directly.
Must not: be used where the embedded cluster can answer (tests/engine/test_e2e_sim.py uses the real one).
"""

from __future__ import annotations

import copy
from typing import Any

from pytest_simian.cluster.kube import KubeError, Resource

RESOURCES = [
    Resource("", "v1", "pods", "Pod", True, "pod", ("po",), ("list", "delete", "get")),
    Resource("", "v1", "services", "Service", True, "service", ("svc",), ("list", "delete", "get")),
    Resource("", "v1", "configmaps", "ConfigMap", True, "configmap", ("cm",), ("list", "delete", "get")),
    Resource("", "v1", "secrets", "Secret", True, "secret", (), ("list", "delete", "get")),
    Resource("", "v1", "namespaces", "Namespace", False, "namespace", ("ns",), ("list", "delete", "get")),
    Resource("", "v1", "nodes", "Node", False, "node", ("no",), ("list", "delete", "get")),
    Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, "persistentvolumeclaim", ("pvc",),
             ("list", "delete", "get")),
    Resource("apps", "v1", "deployments", "Deployment", True, "deployment", ("deploy",), ("list", "delete", "get")),
    Resource("batch", "v1", "jobs", "Job", True, "job", (), ("list", "delete", "get")),
    Resource("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, "poddisruptionbudget", ("pdb",),
             ("list", "delete", "get")),
    Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", False, "clusterrole", (),
             ("list", "delete", "get")),
    Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", True, "rolebinding", (),
             ("list", "delete", "get")),
    Resource("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", True, "networkpolicy", ("netpol",),
             ("list", "delete", "get")),
    Resource("chaos-mesh.org", "v1alpha1", "podchaos", "PodChaos", True, "podchaos", (), ("list", "delete", "get")),
    Resource("coordination.k8s.io", "v1", "leases", "Lease", True, "lease", (), ("list", "delete", "get", "create")),
    Resource("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", True, "endpointslice", (),
             ("list", "get")),
]


class FakeKube:
    """Discovery from RESOURCES; objects in a dict; `writes` lists every mutating call."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str | None, str], dict[str, Any]] = {}
        self.writes: list[tuple[str, str]] = []
        self._rv = 0

    def resources(self) -> list[Resource]:
        return RESOURCES

    def resolve(self, name: str) -> Resource:
        base = name.lower().split(".")[0]
        for r in RESOURCES:
            if base in (r.plural, r.singular, r.kind.lower()) or base in r.short_names:
                return r
        raise KubeError(404, f"no resource {name}", "NotFound")

    def for_kind(self, api_version: str, kind: str) -> Resource:
        for r in RESOURCES:
            if r.api_version == api_version and r.kind == kind:
                return r
        raise KubeError(404, f'no matches for kind "{kind}" in version "{api_version}"', "NotFound")

    def _key(self, res: Resource, ns: str | None, name: str) -> tuple[str, str, str | None, str]:
        return (res.group, res.plural, ns if res.namespaced else None, name)

    def get(self, res: Resource, ns: str | None, name: str) -> dict[str, Any]:
        obj = self.objects.get(self._key(res, ns, name))
        if obj is None:
            raise KubeError(404, f"{name} not found", "NotFound")
        return copy.deepcopy(obj)

    def get_or_none(self, res: Resource, ns: str | None, name: str) -> dict[str, Any] | None:
        try:
            return self.get(res, ns, name)
        except KubeError:
            return None

    def list(self, res: Resource, ns: str | None = None, *, selector: str | None = None,
             field_selector: str | None = None) -> list[dict[str, Any]]:
        want = dict(p.split("=", 1) for p in selector.split(",")) if selector else {}
        out = []
        for (g, pl, n, _), obj in sorted(self.objects.items(), key=lambda kv: str(kv[0])):
            if (g, pl) != (res.group, res.plural) or (ns and n != ns):
                continue
            labels = (obj.get("metadata") or {}).get("labels") or {}
            if all(labels.get(k) == v for k, v in want.items()):
                out.append(copy.deepcopy(obj))
        return out

    def _store(self, res: Resource, obj: dict[str, Any]) -> dict[str, Any]:
        self._rv += 1
        obj = copy.deepcopy(obj)
        obj.setdefault("apiVersion", res.api_version)
        obj.setdefault("kind", res.kind)
        obj["metadata"]["resourceVersion"] = str(self._rv)
        self.objects[self._key(res, obj["metadata"].get("namespace"), obj["metadata"]["name"])] = obj
        return copy.deepcopy(obj)

    def apply(self, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        self.writes.append(("apply", f"{obj['kind']}/{obj['metadata']['name']}"))
        return self._store(self.for_kind(obj["apiVersion"], obj["kind"]), obj)

    def create(self, res: Resource, ns: str | None, obj: dict[str, Any]) -> dict[str, Any]:
        self.writes.append(("create", f"{res.kind}/{obj['metadata']['name']}"))
        obj = copy.deepcopy(obj)
        obj.setdefault("metadata", {})
        if ns:
            obj["metadata"]["namespace"] = ns
        if self._key(res, ns, obj["metadata"]["name"]) in self.objects:
            raise KubeError(409, "already exists", "AlreadyExists")
        return self._store(res, obj)

    def replace(self, res: Resource, ns: str | None, obj: dict[str, Any]) -> dict[str, Any]:
        self.writes.append(("replace", f"{res.kind}/{obj['metadata']['name']}"))
        return self._store(res, obj)

    def merge_patch(self, res: Resource, ns: str | None, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        self.writes.append(("patch", f"{res.kind}/{name}"))
        cur = self.get(res, ns, name)
        for part in ("labels", "annotations"):
            cur["metadata"].setdefault(part, {}).update((patch.get("metadata") or {}).get(part) or {})
        return self._store(res, cur)

    def delete(self, res: Resource, ns: str | None, name: str, **kw: Any) -> bool:
        self.writes.append(("delete", f"{res.kind}/{name}"))
        key = self._key(res, ns, name)
        cur = self.objects.get(key)
        if cur is None:
            return False
        rv = kw.get("resource_version")
        if rv and cur["metadata"].get("resourceVersion") != rv:
            raise KubeError(409, "precondition failed", "Conflict")
        del self.objects[key]
        return True

    def logs(self, ns: str, pod: str, **kw: Any) -> str:
        return ""

    def close(self) -> None:
        pass
