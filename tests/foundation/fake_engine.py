"""A test-only fault engine, `fake`, and a test-only cluster backend, `memory`, for the plugin's own tests.

Lives under tests/ and is loaded only as a pytester conftest (tests/foundation/conftest.py), so nothing of
it is reachable from a user's run. Both go through the public hooks and the executor exactly as the
built-in engine and backends do: the fake engine only renders (a ConfigMap and a probe on it), and every
verdict the tests see comes from the executor's own validation, probes and clear, against an in-memory
cluster (`memory`: a dict of objects behind the harness client's calls; no virtual clock).

params (they choose what the engine renders; the executor decides what happens):
    efficacy: pass (default) | none         `none` renders no Settle probe: no efficacy record at all
    raise: inject                           renders a probe that can never pass (NOT SCORED at the deadline)
    not_valid_on: memory                    renders a kind the memory cluster does not serve (NOT VALID)
    refuse: true                            the engine's own check refuses the fault
    observed_len: N                         the ConfigMap carries N characters (the observed value's size)

The memory cluster fails on purpose for namespaces named `down-*` (every write: the cluster went away
before anything of the attempt was written) and refuses deletes in namespaces named `stuck-*` (clearing
fails).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from pytest_simian import Bundle, ClusterBackend, ClusterHandle, ClusterIdentity, Engine, KindInfo, PackError, Stage
from pytest_simian.cluster.base import BackendSettings
from pytest_simian.cluster.kube import KubeError, Resource

KINDS = [KindInfo("Thing", "a ConfigMap", names_failure=False), KindInfo("T", "a ConfigMap", names_failure=False)]


class FakeEngine(Engine):
    name = "fake"

    def catalog(self) -> list[KindInfo]:
        return KINDS

    def check(self, fault: Any, scenario: Any) -> None:
        if fault.params.get("refuse"):
            raise PackError("the fake executor refuses this manifest", field="params.refuse")

    def render(self, fault: Any) -> Bundle:
        from pytest_simian.pack.models import K8sProbe

        p = fault.params
        name = f"thing-{fault.kind.lower()}"
        obj: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": name, "namespace": fault.namespace},
                               "data": {"state": "x" * int(p.get("observed_len", 10))}}
        if p.get("not_valid_on") == "memory":
            obj = {"apiVersion": "example.com/v1", "kind": "Widget",
                   "metadata": {"name": name, "namespace": fault.namespace}}
        want = "never" if p.get("raise") == "inject" else obj.get("data", {}).get("state", "")
        probes = [] if p.get("efficacy") == "none" else [K8sProbe.model_validate({
            "type": "k8s", "name": f"{name} landed", "resource": "configmap", "object": name,
            "jsonpath": "{.data.state}", "equals": want})]
        return Bundle(stages=[Stage([obj])], probes=probes)


# --------------------------------------------------------------------------- the memory cluster

RESOURCES = [
    Resource("", "v1", "configmaps", "ConfigMap", True, "configmap", ("cm",), ("list", "delete", "get")),
    Resource("", "v1", "namespaces", "Namespace", False, "namespace", ("ns",), ("list", "delete", "get")),
    Resource("", "v1", "pods", "Pod", True, "pod", ("po",), ("list", "delete", "get")),
    Resource("coordination.k8s.io", "v1", "leases", "Lease", True, "lease", (), ("list", "delete", "get", "create")),
]


class MemoryKube:
    """The harness client's calls over a dict. Namespaces `down-*` are unreachable, `stuck-*` keep objects."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str | None, str], dict[str, Any]] = {}
        self._rv = 0

    @staticmethod
    def _reach(ns: str | None) -> None:
        if ns and ns.startswith("down-"):
            raise KubeError(0, "connection refused: the cluster went away")

    def resources(self) -> list[Resource]:
        return RESOURCES

    def for_kind(self, api_version: str, kind: str) -> Resource:
        for r in RESOURCES:
            if r.api_version == api_version and r.kind == kind:
                return r
        raise KubeError(404, f'no matches for kind "{kind}" in version "{api_version}"', "NotFound")

    def resolve(self, name: str) -> Resource:
        for r in RESOURCES:
            if name.lower() in (r.plural, r.singular, *r.short_names):
                return r
        raise KubeError(404, f"the server doesn't have a resource type {name!r}", "NotFound")

    def get(self, res: Resource, ns: str | None, name: str) -> dict[str, Any]:
        obj = self.objects.get((res.plural, ns if res.namespaced else None, name))
        if obj is None:
            raise KubeError(404, f'{res.plural} "{name}" not found', "NotFound")
        return copy.deepcopy(obj)

    def get_or_none(self, res: Resource, ns: str | None, name: str) -> dict[str, Any] | None:
        try:
            return self.get(res, ns, name)
        except KubeError as exc:
            if exc.status == 404:
                return None
            raise

    def list(self, res: Resource, ns: str | None = None, *, selector: str | None = None,
             field_selector: str | None = None) -> list[dict[str, Any]]:
        want = dict(p.split("=", 1) for p in selector.split(",")) if selector else {}
        return [copy.deepcopy(o) for (pl, n, _), o in sorted(self.objects.items(), key=lambda kv: str(kv[0]))
                if pl == res.plural and (not ns or n == ns)
                and all(((o.get("metadata") or {}).get("labels") or {}).get(k) == v for k, v in want.items())]

    def _store(self, res: Resource, obj: dict[str, Any]) -> dict[str, Any]:
        self._rv += 1
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        meta["resourceVersion"] = str(self._rv)
        if res.kind == "Namespace":
            obj.setdefault("status", {"phase": "Active"})
        self.objects[(res.plural, meta.get("namespace") if res.namespaced else None, meta["name"])] = obj
        return copy.deepcopy(obj)

    def apply(self, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        self._reach((obj.get("metadata") or {}).get("namespace"))
        return self._store(self.for_kind(obj["apiVersion"], obj["kind"]), obj)

    def create(self, res: Resource, ns: str | None, obj: dict[str, Any]) -> dict[str, Any]:
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        self._reach(ns or (meta.get("name") if res.kind == "Namespace" else None))
        if ns:
            meta["namespace"] = ns
        if (res.plural, ns if res.namespaced else None, meta["name"]) in self.objects:
            raise KubeError(409, "already exists", "AlreadyExists")
        return self._store(res, obj)

    def replace(self, res: Resource, ns: str | None, obj: dict[str, Any]) -> dict[str, Any]:
        return self._store(res, obj)

    def merge_patch(self, res: Resource, ns: str | None, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        cur = self.get(res, ns, name)
        for part in ("labels", "annotations"):
            cur["metadata"].setdefault(part, {}).update((patch.get("metadata") or {}).get(part) or {})
        return self._store(res, cur)

    def delete(self, res: Resource, ns: str | None, name: str, **kw: Any) -> bool:
        if (ns or (name if res.kind == "Namespace" else "")).startswith("stuck-"):
            raise KubeError(500, f'{res.plural} "{name}" is held by a finalizer that never finishes',
                            "InternalError")
        key = (res.plural, ns if res.namespaced else None, name)
        if res.kind == "Namespace":
            for k in [k for k in self.objects if k[1] == name]:
                del self.objects[k]
        return self.objects.pop(key, None) is not None

    def logs(self, ns: str, pod: str, **kw: Any) -> str:
        return ""

    def close(self) -> None:
        pass


class MemoryHandle(ClusterHandle):
    def __init__(self, run_dir: Path) -> None:
        self.kube = MemoryKube()
        self.harness_kubeconfig = run_dir / "memory-kubeconfig"
        self.identity = ClusterIdentity(backend="memory", description="in-memory test cluster")

    def harness_client(self) -> MemoryKube:
        return self.kube

    def subject_kubeconfig(self, attempt_id: str, directory: Path) -> Path:
        path = directory / "kubeconfig"
        path.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
        return path

    def close(self) -> None:
        pass


class MemoryBackend(ClusterBackend):
    name = "memory"
    summary = "an in-memory test cluster (tests only)"

    @classmethod
    def from_settings(cls, settings: BackendSettings) -> MemoryBackend:
        return cls()

    def start(self, run_dir: Path) -> MemoryHandle:
        return MemoryHandle(run_dir)

    def not_valid(self, bundle: Bundle, scenario: Any) -> str | None:
        for obj in bundle.objects:
            if obj.get("kind") == "Widget":
                return "the memory cluster serves no Widget in example.com/v1"
        return None


@pytest.hookimpl
def pytest_simian_engines(config: pytest.Config) -> list[Engine]:
    return [FakeEngine()]


@pytest.hookimpl
def pytest_simian_cluster_backends() -> list[type[ClusterBackend]]:
    return [MemoryBackend]
