"""A small raw-JSON client over the harness kubeconfig: discovery, server-side apply, get, list, delete, logs.

Why: the executor, the kube-state engine, the probes, the leases and the arena all need the same few calls
on plain dicts (the shape `kubectl get -o json` shows, which is what a probe's JSONPath reads), with kubectl's
resource naming (`pods`, `deploy`, `jobs.batch`, `pvc`) resolved through discovery. The typed models of the
`kubernetes` package drop fields and cannot express server-side apply, so this goes through its ApiClient
and keeps bodies as JSON.
Must not: be handed to a subject (it carries the harness's credentials), or decide anything about faults.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIELD_MANAGER = "simian"
"""The field manager every harness write uses. Neutral: it says the rig wrote it, never what it did."""


class KubeError(Exception):
    """An API call failed. `status` is the HTTP status (0 when the server could not be reached)."""

    def __init__(self, status: int, message: str, reason: str = "") -> None:
        self.status = status
        self.reason = reason
        self.message = message
        super().__init__(f"{status} {reason}: {message}" if reason else f"{status}: {message}")

    @property
    def not_found(self) -> bool:
        return self.status == 404

    @property
    def conflict(self) -> bool:
        return self.status == 409


@dataclass(frozen=True)
class Resource:
    """One API resource as discovery describes it."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    singular: str = ""
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        if name:
            base += f"/{name}"
        return base


class Kube:
    """Raw JSON calls against one cluster. Thread-safe (one connection pool, discovery cached once)."""

    def __init__(self, kubeconfig: Path | str, *, timeout: float = 30.0) -> None:
        from kubernetes import config

        self.kubeconfig = Path(kubeconfig)
        self.api = config.new_client_from_config(config_file=str(kubeconfig))
        self.timeout = timeout
        self._resources: list[Resource] | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ transport

    def request(self, method: str, path: str, *, query: dict[str, Any] | None = None, body: Any = None,
                content_type: str = "application/json", raw: bool = False) -> Any:
        from kubernetes.client.exceptions import ApiException

        params = [(k, v) for k, v in (query or {}).items() if v is not None]
        headers = {"Accept": "application/json", "Content-Type": content_type}
        # the REST layer JSON-encodes dicts for JSON content types itself; apply patches go as text
        payload = body
        if body is not None and "json" not in content_type and not isinstance(body, str | bytes):
            payload = json.dumps(body)
        try:
            _method, url, hdrs, _body, _post = self.api.param_serialize(
                method, path, query_params=params, header_params=headers, auth_settings=["BearerToken"])
            resp = self.api.call_api(method, url, header_params=hdrs, body=payload, _request_timeout=self.timeout)
            data = resp.read()
            status = int(resp.status)
        except ApiException as exc:
            status, data = int(exc.status or 0), exc.body or b""
        except Exception as exc:  # noqa: BLE001 - connection errors of every flavour
            raise KubeError(0, f"{type(exc).__name__}: {exc}") from None
        if not 200 <= status < 300:
            message, reason = (data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)), ""
            try:
                doc = json.loads(data or b"{}")
                message = doc.get("message", message)
                reason = doc.get("reason", "")
            except (ValueError, TypeError, AttributeError):
                pass
            raise KubeError(status, message, reason)
        if raw:
            return data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
        if not data:
            return None
        return json.loads(data)

    # ------------------------------------------------------------------ discovery

    def resources(self) -> list[Resource]:
        with self._lock:
            if self._resources is None:
                self._resources = self._discover()
            return self._resources

    def _discover(self) -> list[Resource]:
        out: list[Resource] = []
        versions: list[tuple[str, str]] = [("", v) for v in (self.request("GET", "/api") or {}).get("versions", [])]
        for g in (self.request("GET", "/apis") or {}).get("groups", []):
            pref = (g.get("preferredVersion") or {}).get("version")
            vs = [v["version"] for v in g.get("versions", [])]
            # preferred version first, so a bare resource name resolves as kubectl resolves it
            for v in ([pref] if pref else []) + [v for v in vs if v != pref]:
                versions.append((g["name"], v))
        for group, version in versions:
            path = f"/apis/{group}/{version}" if group else f"/api/{version}"
            try:
                doc = self.request("GET", path) or {}
            except KubeError:
                continue
            for r in doc.get("resources", []):
                if "/" in r["name"]:
                    continue  # subresources
                out.append(Resource(group, version, r["name"], r["kind"], bool(r.get("namespaced")),
                                    r.get("singularName") or r["kind"].lower(), tuple(r.get("shortNames") or ()),
                                    tuple(r.get("verbs") or ())))
        return out

    def resolve(self, name: str) -> Resource:
        """A resource named as kubectl takes it: plural, singular, short name or kind, optionally `.group`
        (`jobs.batch`) or `.version.group`."""
        text = name.strip()
        lowered = text.lower()
        group: str | None = None
        version: str | None = None
        base = lowered
        if "." in lowered:
            base, rest = lowered.split(".", 1)
            parts = rest.split(".", 1)
            if len(parts) == 2 and parts[0].startswith("v") and parts[0][1:2].isdigit():
                version, group = parts
            else:
                group = rest
        for r in self.resources():
            if group is not None and r.group != group:
                continue
            if version is not None and r.version != version:
                continue
            if base in (r.plural, r.singular, r.kind.lower()) or base in r.short_names:
                return r
        raise KubeError(404, f'the server doesn\'t have a resource type "{name}"', "NotFound")

    def for_kind(self, api_version: str, kind: str) -> Resource:
        group, _, version = api_version.rpartition("/")
        for r in self.resources():
            if r.group == group and r.version == version and r.kind == kind:
                return r
        raise KubeError(404, f'no matches for kind "{kind}" in version "{api_version}"', "NotFound")

    # ------------------------------------------------------------------ verbs

    def get(self, res: Resource, namespace: str | None, name: str) -> dict[str, Any]:
        return self.request("GET", res.path(namespace, name))  # type: ignore[no-any-return]

    def get_or_none(self, res: Resource, namespace: str | None, name: str) -> dict[str, Any] | None:
        try:
            return self.get(res, namespace, name)
        except KubeError as exc:
            if exc.not_found:
                return None
            raise

    def list(self, res: Resource, namespace: str | None = None, *, selector: str | None = None,
             field_selector: str | None = None) -> list[dict[str, Any]]:
        doc = self.request("GET", res.path(namespace), query={"labelSelector": selector or None,
                                                              "fieldSelector": field_selector or None}) or {}
        items = doc.get("items") or []
        for it in items:  # as kubectl shows them: each item carries its kind
            it.setdefault("apiVersion", res.api_version)
            it.setdefault("kind", res.kind)
        return items  # type: ignore[no-any-return]

    def apply(self, obj: dict[str, Any], *, field_manager: str = FIELD_MANAGER, force: bool = True,
              dry_run: bool = False) -> dict[str, Any]:
        """Server-side apply of one object."""
        res = self.for_kind(obj["apiVersion"], obj["kind"])
        meta = obj.get("metadata") or {}
        query: dict[str, Any] = {"fieldManager": field_manager, "force": "true" if force else None}
        if dry_run:
            query["dryRun"] = "All"
        return self.request("PATCH", res.path(meta.get("namespace"), meta["name"]), query=query, body=obj,
                            content_type="application/apply-patch+yaml")  # type: ignore[no-any-return]

    def create(self, res: Resource, namespace: str | None, obj: dict[str, Any]) -> dict[str, Any]:
        return self.request("POST", res.path(namespace), body=obj,  # type: ignore[no-any-return]
                            query={"fieldManager": FIELD_MANAGER})

    def replace(self, res: Resource, namespace: str | None, obj: dict[str, Any]) -> dict[str, Any]:
        return self.request("PUT", res.path(namespace, obj["metadata"]["name"]), body=obj,  # type: ignore[no-any-return]
                            query={"fieldManager": FIELD_MANAGER})

    def merge_patch(self, res: Resource, namespace: str | None, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        return self.request("PATCH", res.path(namespace, name), body=patch,  # type: ignore[no-any-return]
                            content_type="application/merge-patch+json", query={"fieldManager": FIELD_MANAGER})

    def delete(self, res: Resource, namespace: str | None, name: str, *, propagation: str | None = "Background",
               resource_version: str | None = None, grace_seconds: int | None = None) -> bool:
        """Delete; False when it was already gone."""
        body: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation:
            body["propagationPolicy"] = propagation
        if resource_version:
            body["preconditions"] = {"resourceVersion": resource_version}
        if grace_seconds is not None:
            body["gracePeriodSeconds"] = grace_seconds
        try:
            self.request("DELETE", res.path(namespace, name), body=body)
        except KubeError as exc:
            if exc.not_found:
                return False
            raise
        return True

    def logs(self, namespace: str, pod: str, *, container: str | None = None, previous: bool = False,
             since_seconds: int | None = None) -> str:
        query: dict[str, Any] = {"container": container, "previous": "true" if previous else None,
                                 "sinceSeconds": since_seconds}
        return self.request("GET", f"/api/v1/namespaces/{namespace}/pods/{pod}/log",  # type: ignore[no-any-return]
                            query=query, raw=True)

    def close(self) -> None:
        try:
            self.api.close()
        except Exception:  # noqa: BLE001 - best effort at shutdown
            pass
