"""OpenAPI v3 documents: just enough for kubectl's default strict validation.

Why: ``kubectl apply`` and ``kubectl create -f`` download ``/openapi/v3`` and the document of each group-version
they touch; when the GVK's PATCH operation lists the ``fieldValidation`` parameter, kubectl leaves validation to
the server and sends ``fieldValidation=Strict``. A generated document with one operation set per resource,
tagged with ``x-kubernetes-group-version-kind``, is what the protocol notes measured to work.
Must not: pretend to carry schemas (``components.schemas`` is empty, so ``kubectl explain`` is not served).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .resources import REGISTRY, Registry, ResourceType

_COMMON = [
    {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
    {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
    {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
]


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _ops(r: ResourceType) -> dict[str, Any]:
    prefix = "/" + _gv_path(r.group, r.version)
    gvk = {"group": r.group, "version": r.version, "kind": r.kind}
    coll = f"{prefix}/namespaces/{{namespace}}/{r.plural}" if r.namespaced else f"{prefix}/{r.plural}"
    item = coll + "/{name}"
    ok = {"200": {"description": "OK"}}

    def op(action: str, params: list[dict[str, Any]]) -> dict[str, Any]:
        return {"operationId": f"{action}{r.kind}", "x-kubernetes-action": action,
                "x-kubernetes-group-version-kind": gvk, "parameters": params, "responses": ok}

    paths: dict[str, Any] = {}
    if "create" in r.verbs:
        paths[coll] = {"post": op("post", _COMMON)}
    if "get" in r.verbs:
        paths.setdefault(coll, {})["get"] = op("list", [])
        paths[item] = {
            "get": op("get", []),
            "put": op("put", _COMMON),
            "patch": op("patch", _COMMON + [{"name": "force", "in": "query", "schema": {"type": "boolean"}}]),
            "delete": op("delete", [{"name": "dryRun", "in": "query", "schema": {"type": "string"}}]),
        }
    return paths


def document(group: str, version: str, registry: Registry = REGISTRY) -> dict[str, Any] | None:
    rs = registry.in_group_version(group, version)
    if not rs:
        return None
    paths: dict[str, Any] = {}
    for r in rs:
        paths.update(_ops(r))
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.36.0"}, "paths": paths,
            "components": {"schemas": {}}}


def _hash(doc: dict[str, Any]) -> str:
    return hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:128].upper()


def index(registry: Registry = REGISTRY) -> dict[str, Any]:
    paths = {}
    for group, versions in registry.groups():
        for v in versions:
            doc = document(group, v, registry)
            assert doc is not None
            p = _gv_path(group, v)
            paths[p] = {"serverRelativeURL": f"/openapi/v3/{p}?hash={_hash(doc)}"}
    return {"paths": paths}
