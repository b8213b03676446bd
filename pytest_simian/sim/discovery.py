"""API discovery documents, aggregated (apidiscovery.k8s.io/v2) and legacy, rendered from the registry.

Why: kubectl asks for the aggregated form and fails to find any resource if the Content-Type is not exactly
``application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList``; the Python DynamicClient only
speaks the legacy form. Both are views of one registry so they cannot disagree.
Must not: list a resource the router does not serve.
"""

from __future__ import annotations

from typing import Any

from .resources import REGISTRY, Registry, ResourceType

AGGREGATED_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

VERSION_INFO = {
    "major": "1",
    "minor": "36",
    "emulationMajor": "1",
    "emulationMinor": "36",
    "minCompatibilityMajor": "1",
    "minCompatibilityMinor": "35",
    "gitVersion": "v1.36.0",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2026-04-22T00:00:00Z",
    "goVersion": "go1.26.2",
    "compiler": "gc",
    "platform": "linux/amd64",
}


def wants_aggregated(accept: str) -> bool:
    return "as=APIGroupDiscoveryList" in accept and "g=apidiscovery.k8s.io" in accept


def _agg_resource(r: ResourceType) -> dict[str, Any]:
    out: dict[str, Any] = {
        "resource": r.plural,
        "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "scope": "Namespaced" if r.namespaced else "Cluster",
        "singularResource": r.singular,
        "verbs": sorted(r.verbs),
    }
    if r.short_names:
        out["shortNames"] = list(r.short_names)
    if r.categories:
        out["categories"] = list(r.categories)
    if r.subresources:
        out["subresources"] = [
            {"subresource": s.name,
             "responseKind": {"group": s.group if s.version else r.group, "version": s.version or r.version,
                              "kind": s.kind},
             "verbs": sorted(s.verbs)}
            for s in r.subresources
        ]
    return out


def aggregated(core: bool, registry: Registry = REGISTRY) -> dict[str, Any]:
    items = []
    for group, versions in registry.groups():
        if (group == "") != core:
            continue
        items.append({
            "metadata": {"name": group, "creationTimestamp": None} if group else {"creationTimestamp": None},
            "versions": [{"version": v, "resources": [_agg_resource(r) for r in registry.in_group_version(group, v)],
                          "freshness": "Current"} for v in versions],
        })
    return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
            "items": items}


def api_versions(server_address: str) -> dict[str, Any]:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]}


def _group(group: str, versions: list[str]) -> dict[str, Any]:
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": gvs, "preferredVersion": gvs[0]}


def api_group_list(registry: Registry = REGISTRY) -> dict[str, Any]:
    return {"kind": "APIGroupList", "apiVersion": "v1",
            "groups": [_group(g, vs) for g, vs in registry.groups() if g]}


def api_group(group: str, registry: Registry = REGISTRY) -> dict[str, Any] | None:
    for g, vs in registry.groups():
        if g == group and g:
            return {"kind": "APIGroup", "apiVersion": "v1", **_group(g, vs)}
    return None


def resource_list(group: str, version: str, registry: Registry = REGISTRY) -> dict[str, Any] | None:
    rs = registry.in_group_version(group, version)
    if not rs:
        return None
    out = []
    for r in rs:
        e: dict[str, Any] = {"name": r.plural, "singularName": r.singular, "namespaced": r.namespaced,
                             "kind": r.kind, "verbs": sorted(r.verbs)}
        if r.short_names:
            e["shortNames"] = list(r.short_names)
        if r.categories:
            e["categories"] = list(r.categories)
        out.append(e)
        for s in r.subresources:
            se: dict[str, Any] = {"name": f"{r.plural}/{s.name}", "singularName": "", "namespaced": r.namespaced}
            if s.version:
                se["group"] = s.group
                se["version"] = s.version
            se["kind"] = s.kind
            se["verbs"] = sorted(s.verbs)
            out.append(se)
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}
