"""HTTP handlers: Kubernetes REST semantics on top of the store.

Why: this is where a request becomes a store call: path parsing, verbs, authorization, body decoding (JSON,
YAML, protobuf, the four patch types), query parameters (selectors, limit/continue, dryRun, fieldManager,
force, propagationPolicy, watch options), response shapes (objects, Lists, server-side Tables, Status) and
the watch stream, including WatchList (``sendInitialEvents``) and bookmarks.
Must not: keep state of its own (the store owns objects, the authenticator owns tokens); read the host clock
(it renders timestamps through the store's virtual clock).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from dataclasses import dataclass
from typing import Any

import yaml
from aiohttp import web

from . import auth, discovery, errors, openapi, schema
from .auth import Authenticator, Identity
from .compat import ProtobufDecodeError, _fb_render_table, decode_body
from .compat import render_table as _render_table
from .resources import ResourceType
from .store import INITIAL_EVENTS_END, Store

JSON = "application/json"
PROTOBUF = "application/vnd.kubernetes.protobuf"
PATCH_TYPES = {
    "application/merge-patch+json": "merge",
    "application/json-patch+json": "json",
    "application/strategic-merge-patch+json": "strategic",
    "application/apply-patch+yaml": "apply",
}
_TRUE = ("true", "1", "True")
#: Warnings for the response's ``Warning`` headers (``fieldValidation=Warn``); the app wrapper writes them.
WARNINGS_KEY = web.RequestKey("warnings", list)


log = logging.getLogger(__name__)


def render_table(objs: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """Server-side Table; a printer bug degrades to the default NAME/AGE table, never to a 500."""
    try:
        return _render_table(objs, **kw)
    except Exception:
        log.exception("table printer failed for %s; using the default table", kw.get("resource"))
        return _fb_render_table(objs, **kw)


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def json_response(obj: Any, status: int = 200, content_type: str = JSON) -> web.Response:
    return web.Response(body=dumps(obj), status=status, headers={"Content-Type": content_type})


def error_response(e: errors.ApiError) -> web.Response:
    return json_response(e.status_body(), e.code)


@dataclass
class ResourceRequest:
    rt: ResourceType
    namespace: str | None
    name: str | None
    subresource: str
    verb: str


class Api:
    """The request router. One instance per server; ``handle`` is the aiohttp catch-all handler's body."""

    def __init__(self, store: Store, authenticator: Authenticator, *, server_address: str = "127.0.0.1:6443",
                 bookmark_interval: float = 60.0) -> None:
        self.store = store
        self.auth = authenticator
        self.server_address = server_address
        self.bookmark_interval = bookmark_interval
        self.registry = store.registry

    # ----------------------------------------------------------------------------------------------------
    async def handle(self, request: web.Request, identity: Identity, body: bytes,
                     log: dict[str, Any]) -> web.StreamResponse:
        path = request.path
        parts = [p for p in path.split("/") if p]
        method = request.method
        accept = request.headers.get("Accept", "")
        if not parts:
            return json_response({"paths": sorted(["/api", "/api/v1", "/apis", "/version", "/openapi/v3",
                                                   "/healthz", "/livez", "/readyz"])})
        head = parts[0]
        if head in ("healthz", "livez", "readyz") and len(parts) == 1:
            return web.Response(text="ok", content_type="text/plain")
        if head == "version" and len(parts) == 1:
            return json_response(discovery.VERSION_INFO)
        if head == "openapi":
            return self._openapi(parts, log)
        if head == "api" and len(parts) == 1:
            if discovery.wants_aggregated(accept):
                return json_response(discovery.aggregated(True, self.registry), 200,
                                     discovery.AGGREGATED_CONTENT_TYPE)
            return json_response(discovery.api_versions(self.server_address))
        if head == "apis" and len(parts) == 1:
            if discovery.wants_aggregated(accept):
                return json_response(discovery.aggregated(False, self.registry), 200,
                                     discovery.AGGREGATED_CONTENT_TYPE)
            return json_response(discovery.api_group_list(self.registry))
        if head == "api" and len(parts) == 2:
            doc = discovery.resource_list("", parts[1], self.registry)
            if doc is None:
                return not_found_page()
            return json_response(doc)
        if head == "apis" and len(parts) == 2:
            g = discovery.api_group(parts[1], self.registry)
            return json_response(g) if g else not_found_page()
        if head == "apis" and len(parts) == 3:
            doc = discovery.resource_list(parts[1], parts[2], self.registry)
            if doc is None:
                return not_found_page()
            return json_response(doc)
        if head == "api" or head == "apis":
            rr = self._parse(parts, method, request)
            if rr is None:
                raise errors.resource_not_found()
            log.update({"verb": rr.verb, "resource": rr.rt.plural, "group": rr.rt.group,
                        "namespace": rr.namespace or "", "name": rr.name or "", "subresource": rr.subresource})
            if not auth.allowed(identity, rr.verb, rr.rt.group, rr.rt.plural, rr.subresource):
                raise errors.forbidden(  # the group-resource prefix never carries the subresource
                    rr.rt.plural, rr.rt.group, rr.name or "",
                    auth.forbidden_reason(identity, rr.verb, rr.rt.group, rr.rt.plural, rr.subresource,
                                          rr.namespace or ""))
            return await self._resource(request, rr, identity, body)
        return not_found_page()

    def _openapi(self, parts: list[str], log: dict[str, Any]) -> web.StreamResponse:
        if len(parts) >= 2 and parts[1] == "v3":
            if len(parts) == 2:
                return json_response(openapi.index(self.registry))
            rest = parts[2:]
            doc = None
            if rest[0] == "api" and len(rest) == 2:
                doc = openapi.document("", rest[1], self.registry)
            elif rest[0] == "apis" and len(rest) == 3:
                doc = openapi.document(rest[1], rest[2], self.registry)
            if doc is not None:
                return json_response(doc)
        return not_found_page()

    def _parse(self, parts: list[str], method: str, request: web.Request) -> ResourceRequest | None:
        if parts[0] == "api":
            if len(parts) < 3:
                return None
            group, version, rest = "", parts[1], parts[2:]
        else:
            if len(parts) < 4:
                return None
            group, version, rest = parts[1], parts[2], parts[3:]
        namespace: str | None = None
        if (rest[0] == "namespaces" and len(rest) >= 3
                and not (group == "" and len(rest) == 3 and rest[2] in ("status", "finalize"))):
            namespace, rest = rest[1], rest[2:]
        plural = rest[0]
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else ""
        if len(rest) > 3:
            return None
        rt = self.registry.by_gvr(group, version, plural)
        if rt is None:
            return None
        if namespace is not None and not rt.namespaced:
            return None
        if sub and rt.subresource(sub) is None:
            return None
        q = request.query
        if method == "GET":
            if name is None:
                verb = "watch" if q.get("watch") in _TRUE else "list"
            else:
                verb = "get"
        elif method == "POST":
            verb = "create"
        elif method == "PUT":
            verb = "update"
        elif method == "PATCH":
            verb = "patch"
        elif method == "DELETE":
            verb = "delete" if name else "deletecollection"
        else:
            return None
        if sub in ("exec", "attach", "portforward"):
            verb = "create" if method in ("POST", "GET") else verb
        return ResourceRequest(rt, namespace, name, sub, verb)

    # ----------------------------------------------------------------------------------------------------
    def _body(self, request: web.Request, body: bytes) -> Any:
        ctype = (request.headers.get("Content-Type") or JSON).split(";")[0].strip().lower()
        if not body:
            return {}
        if ctype == PROTOBUF:
            try:
                return decode_body(body)
            except ProtobufDecodeError as e:
                raise errors.bad_request(f"unable to decode protobuf body: {e}") from None
        if ctype in (JSON, "application/merge-patch+json", "application/json-patch+json",
                     "application/strategic-merge-patch+json", "*/*", "text/plain"):
            try:
                return json.loads(body)
            except ValueError as e:
                raise errors.bad_request(f"error decoding JSON: {e}") from None
        if ctype in ("application/yaml", "application/apply-patch+yaml", "application/x-yaml"):
            try:
                return yaml.safe_load(body)
            except yaml.YAMLError as e:
                raise errors.bad_request(f"error decoding YAML: {e}") from None
        raise errors.unsupported_media_type(errors.BODY_TYPES)

    def _check_fields(self, request: web.Request, rt: ResourceType, data: dict[str, Any], *,
                      patch: bool = False) -> dict[str, Any]:
        """fieldValidation: Strict refuses unknown fields, Warn (the default) and Ignore drop them."""
        mode = request.query.get("fieldValidation") or "Warn"
        if mode not in ("Strict", "Warn", "Ignore"):
            raise errors.bad_request(f'fieldValidation must be one of "Ignore", "Warn", or "Strict", got "{mode}"')
        unknown = schema.unknown_fields(rt.api_version, rt.kind, data)
        if not unknown:
            return data
        if mode == "Strict":
            listed = ", ".join(f'unknown field "{u}"' for u in unknown)
            raise errors.bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                                     f"strict decoding error: {listed}")
        if mode == "Warn":
            request[WARNINGS_KEY] = request.get(WARNINGS_KEY, []) + [f'unknown field "{u}"' for u in unknown]
        return data if patch else schema.prune(rt.api_version, rt.kind, data)[0]

    def _check_apply_fields(self, rt: ResourceType, name: str, ns: str | None, data: dict[str, Any]) -> None:
        unknown = schema.unknown_fields(rt.api_version, rt.kind, data, ssa=True)
        if not unknown:
            return
        gvk = f"{rt.api_version if rt.group else '/' + rt.version}, Kind={rt.kind}"
        where = f"{ns or ''}/{name}; {gvk}"
        if len(unknown) == 1:
            detail = f"{unknown[0]}: field not declared in schema"
        else:
            detail = "errors:\n" + "\n".join(f"  {u}: field not declared in schema" for u in unknown)
        raise errors.ApiError(500, "", f"failed to create typed patch object ({where}): {detail}")

    def _manager(self, request: web.Request) -> str:
        m = request.query.get("fieldManager")
        if m:
            return m
        ua = request.headers.get("User-Agent", "unknown")
        return ua.split("/")[0] or "unknown"

    def _dry_run(self, request: web.Request) -> bool:
        vals = request.query.getall("dryRun", [])
        for v in vals:
            if v != "All":
                raise errors.bad_request(f'Invalid dry run value: "{v}"')
        return bool(vals)

    def _out(self, request: web.Request, obj: dict[str, Any], rt: ResourceType, status: int = 200,
             *, stored: bool = False) -> web.Response:
        if "as=PartialObjectMetadata" in request.headers.get("Accept", "") and obj.get("kind") == rt.kind:
            return json_response(self.store.clock.render(_partial(obj)), status)
        if "as=Table" in request.headers.get("Accept", "") and obj.get("kind") == rt.kind:
            table = render_table([obj], resource=rt.plural, group=rt.group, now=self.store.clock.now(),
                                 include_object=request.query.get("includeObject", "Metadata"))
            table["metadata"] = {"resourceVersion": obj["metadata"].get("resourceVersion", "")}
            return json_response(self.store.clock.render(table), status)
        if stored:  # the stored object itself: cached encoding
            return web.Response(body=self.store.encoded(obj), headers={"Content-Type": JSON})
        return json_response(self.store.clock.render(obj), status)

    async def _resource(self, request: web.Request, rr: ResourceRequest, identity: Identity,
                        body: bytes) -> web.StreamResponse:
        store, rt, ns, name, sub = self.store, rr.rt, rr.namespace, rr.name, rr.subresource
        q = request.query
        m = request.method
        if not sub and rr.verb not in rt.verbs:
            raise errors.ApiError(405, "MethodNotAllowed",
                                  "the server does not allow this method on the requested resource", details={})
        if rt.kind == "ComponentStatus":
            request[WARNINGS_KEY] = ["v1 ComponentStatus is deprecated in v1.19+"]
        if rt.kind in ("SelfSubjectAccessReview", "SelfSubjectRulesReview", "SelfSubjectReview"):
            if m != "POST" or name:
                raise errors.method_not_supported(rt.plural, rt.group, "get" if m == "GET" else m.lower())
            return self._review(rt, self._body(request, body), identity, ns)
        if m == "GET":
            if name is None:
                if rr.verb == "watch":
                    return await self._watch(request, rt, ns)
                return self._list(request, rt, ns)
            if sub == "log":
                resp = self._log(request, ns or "", name)
                if request.query.get("follow") in _TRUE and self.store.log_provider is not None:
                    return await self._follow(request, ns or "", name, resp)
                return resp
            if sub == "scale":
                return json_response(store.clock.render(store.get_scale(rt, name, ns)))
            if sub in ("exec", "attach", "portforward"):
                raise errors.bad_request(f"{sub} is not supported by the embedded cluster")
            return self._out(request, store.raw_get(rt, name, ns), rt, stored=True)
        if m == "POST":
            data = self._body(request, body)
            if name is None:
                if not isinstance(data, dict):
                    raise errors.bad_request("the body of the request must be an object")
                data = self._check_fields(request, rt, data)
                obj = store.create(rt, data, namespace=ns, manager=self._manager(request),
                                   dry_run=self._dry_run(request))
                return self._out(request, obj, rt, 201)
            if sub == "eviction" and rt.kind == "Pod":
                opts = data.get("deleteOptions") if isinstance(data, dict) else None
                dry = self._dry_run(request) or bool((opts or {}).get("dryRun"))
                return json_response(store.evict(name, ns or "", delete_options=opts, dry_run=dry), 201)
            if sub == "binding" and rt.kind == "Pod":
                target = (data.get("target") or {}).get("name", "")
                pod = store.get(rt, name, ns)
                pod["spec"]["nodeName"] = target
                store.update(rt, pod, namespace=ns, manager=self._manager(request))
                return json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                      "code": 201}, 201)
            if sub in ("exec", "attach", "portforward"):
                raise errors.bad_request(f"{sub} is not supported by the embedded cluster")
            if sub == "token" and rt.kind == "ServiceAccount":
                return self._token_request(rt, ns or "", name, data)
            raise errors.method_not_supported(rt.plural, rt.group, "create")
        if m == "PUT":
            data = self._body(request, body)
            if not isinstance(data, dict):
                raise errors.bad_request("the body of the request must be an object")
            md = data.setdefault("metadata", {})
            if md.get("name") and md["name"] != name:
                raise errors.bad_request("the name of the object (" + md["name"] + ") does not match the name on "
                                         f"the URL ({name})")
            md["name"] = name
            if sub != "scale":
                data = self._check_fields(request, rt, data)
            if sub == "scale":
                return json_response(store.clock.render(store.update_scale(
                    rt, name or "", data, namespace=ns, manager=self._manager(request),
                    dry_run=self._dry_run(request))))
            if sub == "finalize" and rt.kind == "Namespace":
                cur = store.get(rt, name or "")
                cur["spec"] = data.get("spec") or {}
                obj = store.update(rt, cur, manager=self._manager(request))
                store._maybe_finish_namespace(name or "")
                return self._out(request, obj, rt)
            obj = store.update(rt, data, namespace=ns, subresource=sub, manager=self._manager(request),
                               dry_run=self._dry_run(request))
            return self._out(request, obj, rt)
        if m == "PATCH":
            ctype = (request.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            ptype = PATCH_TYPES.get(ctype)
            if ptype is None:
                raise errors.unsupported_media_type(errors.PATCH_BODY_TYPES)
            data = self._body(request, body)
            dry = self._dry_run(request)
            manager = self._manager(request)
            if sub == "scale":
                from .compat import json_merge_patch, json_patch, strategic_merge_patch

                scale = store.get_scale(rt, name or "", ns)
                if ptype == "json":
                    new = json_patch(scale, data)
                elif ptype == "strategic":
                    new = strategic_merge_patch(scale, data, api_version="autoscaling/v1", kind="Scale")
                else:
                    new = json_merge_patch(scale, data)
                new.setdefault("metadata", {}).pop("resourceVersion", None)
                return json_response(store.clock.render(store.update_scale(
                    rt, name or "", new, namespace=ns, manager=manager, dry_run=dry)))
            if ptype in ("merge", "strategic") and isinstance(data, dict):
                self._check_fields(request, rt, data, patch=True)
            if ptype == "apply":
                if isinstance(data, dict):
                    self._check_apply_fields(rt, name or "", ns, data)
                if request.query.get("fieldManager") is None:
                    raise errors.bad_request("PATCH, application/apply-patch+yaml requires fieldManager to be "
                                             "set")
                obj, created = store.apply(rt, name or "", data, namespace=ns, subresource=sub, manager=manager,
                                           force=q.get("force") in _TRUE, dry_run=dry)
                return self._out(request, obj, rt, 201 if created else 200)
            obj = store.patch(rt, name or "", data, patch_type=ptype, namespace=ns, subresource=sub,
                              manager=manager, dry_run=dry)
            return self._out(request, obj, rt)
        if m == "DELETE":
            opts = self._body(request, body) if body else {}
            if not isinstance(opts, dict):
                opts = {}
            policy = opts.get("propagationPolicy") or q.get("propagationPolicy")
            orphan = opts.get("orphanDependents", q.get("orphanDependents"))
            if policy is None and orphan is not None:
                policy = "Orphan" if orphan in (True, "true", "1") else "Background"
            grace = opts.get("gracePeriodSeconds", q.get("gracePeriodSeconds"))
            dry = self._dry_run(request) or opts.get("dryRun") == ["All"]
            if name is None:
                out = store.delete_collection(rt, ns, label_selector=q.get("labelSelector"),
                                              field_selector=q.get("fieldSelector"), propagation_policy=policy,
                                              dry_run=dry)
                return json_response(store.clock.render(out))
            obj = store.delete(rt, name, ns, propagation_policy=policy, preconditions=opts.get("preconditions"),
                               grace_period_seconds=int(grace) if grace is not None else None, dry_run=dry)
            still = store._tables[rt.key].objects.get(store._key(rt, name, ns)) is not None and not dry
            if still or rt.delete_returns_object:
                # 202 only when the client asked orphanDependents=false and the object lingers (handlers/delete.go)
                code = 202 if still and orphan in (False, "false") else 200
                return json_response(store.clock.render(obj), code)
            details: dict[str, Any] = {"name": name}
            if rt.group:
                details["group"] = rt.group
            details["kind"] = rt.plural
            details["uid"] = obj["metadata"]["uid"]
            return json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                  "details": details})
        raise errors.method_not_supported(rt.plural, rt.group, m.lower())

    # ----------------------------------------------------------------------------------------------------
    def _list(self, request: web.Request, rt: ResourceType, ns: str | None) -> web.Response:
        q = request.query
        try:
            limit = int(q.get("limit") or 0)
        except ValueError:
            raise errors.bad_request(f"invalid limit: {q.get('limit')}") from None
        items, token, remaining = self.store.raw_list(
            rt, ns, label_selector=q.get("labelSelector"), field_selector=q.get("fieldSelector"), limit=limit,
            continue_=q.get("continue"))
        meta: dict[str, Any] = {"resourceVersion": str(self.store.resource_version)}
        if token:
            meta["continue"] = token
            meta["remainingItemCount"] = remaining
        clock = self.store.clock
        if "as=PartialObjectMetadataList" in request.headers.get("Accept", ""):
            return json_response(clock.render({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                                               "metadata": meta, "items": [_partial(o) for o in items]}))
        if "as=Table" in request.headers.get("Accept", ""):
            table = render_table(list(items), resource=rt.plural, group=rt.group, now=clock.now(),
                                 include_object=q.get("includeObject", "Metadata"))
            table["metadata"] = meta
            return json_response(clock.render(table))
        # splice cached per-object encodings (rendered for the clock's current offset)
        head = dumps({"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": meta})[:-1]
        body = head + b',"items":[' + b",".join(self.store.encoded(o) for o in items) + b"]}"
        return web.Response(body=body, headers={"Content-Type": JSON})

    def _log(self, request: web.Request, ns: str, name: str) -> web.Response:
        pod = self.store.raw_get(self.registry.lookup("pods"), name, ns)
        q = request.query
        names = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
        container = q.get("container")
        if not container:
            if len(names) != 1:
                raise errors.bad_request(f"a container name must be specified for pod {name}, choose one of: "
                                         f"[{' '.join(names)}]")
            container = names[0]
        init_names = [c["name"] for c in (pod.get("spec") or {}).get("initContainers") or []]
        if container not in names and container not in init_names:
            raise errors.bad_request(f"container {container} is not valid for pod {name}")
        previous = q.get("previous") in _TRUE
        statuses = ((pod.get("status") or {}).get("containerStatuses") or []) + \
            ((pod.get("status") or {}).get("initContainerStatuses") or [])
        st = next((s for s in statuses if s.get("name") == container), None)
        if previous and not (st and (st.get("lastState") or {}).get("terminated")):
            raise errors.bad_request(f'previous terminated container "{container}" in pod "{name}" not found')
        if not previous and st is None and self.store.log_provider is not None:
            raise errors.bad_request(f'container "{container}" in pod "{name}" is waiting to start: '
                                     "ContainerCreating")
        if not previous and st and (st.get("state") or {}).get("waiting") and not st.get("lastState"):
            reason = st["state"]["waiting"].get("reason", "ContainerCreating")
            raise errors.bad_request(f'container "{container}" in pod "{name}" is waiting to start: {reason}')
        tail = q.get("tailLines")
        text = ""
        if self.store.log_provider is not None:
            text = self.store.log_provider(ns, pod, container, previous=previous,
                                           tail_lines=int(tail) if tail else None,
                                           timestamps=q.get("timestamps") in _TRUE)
        return web.Response(body=text.encode(), headers={"Content-Type": "text/plain"})

    async def _follow(self, request: web.Request, ns: str, name: str, first: web.Response) -> web.StreamResponse:
        """``logs -f``: stream what the log provider adds until the pod goes, its container stops running, or
        the client leaves."""
        q = request.query
        container = q.get("container") or ""
        # what the first response holds, read before the first await: a line the container writes while that
        # response is on its way must come in the stream, not be counted as already sent
        pods = self.registry.lookup("pods")
        pod0 = self.store._tables[pods.key].objects.get((ns, name)) or {}
        c0 = container or ((pod0.get("spec") or {}).get("containers") or [{}])[0].get("name", "")
        assert self.store.log_provider is not None
        sent = self.store.log_provider(ns, pod0, c0, previous=False, tail_lines=None,
                                       timestamps=q.get("timestamps") in _TRUE).encode()
        resp = web.StreamResponse(status=200, headers={"Content-Type": "text/plain"})
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        await resp.write(first.body if isinstance(first.body, bytes) else b"")
        try:
            await self._follow_loop(request, resp, ns, name, container, sent)
            await resp.write_eof()
        except ConnectionResetError:
            pass
        return resp

    async def _follow_loop(self, request: web.Request, resp: web.StreamResponse, ns: str, name: str,
                           container: str, sent: bytes) -> None:
        q = request.query
        pods = self.registry.lookup("pods")
        while request.transport is not None and not request.transport.is_closing():
            await asyncio.sleep(0.5)
            pod = self.store._tables[pods.key].objects.get((ns, name))
            if pod is None or self.store.log_provider is None:
                break
            cname = container or ((pod.get("spec") or {}).get("containers") or [{}])[0].get("name", "")
            text = self.store.log_provider(ns, pod, cname, previous=False, tail_lines=None,
                                           timestamps=q.get("timestamps") in _TRUE).encode()
            if text.startswith(sent) and len(text) > len(sent):
                await resp.write(text[len(sent):])
                sent = text
            elif not text.startswith(sent):
                sent = text  # the container restarted; follow the new one from here
            st = next((c for c in (pod.get("status") or {}).get("containerStatuses") or []
                       if c.get("name") == cname), None)
            if st is not None and "running" not in (st.get("state") or {}):
                break

    def _review(self, rt: ResourceType, data: Any, identity: Identity, ns: str | None) -> web.Response:
        data = data if isinstance(data, dict) else {}
        meta = {"creationTimestamp": None}
        if rt.kind == "SelfSubjectReview":
            ui: dict[str, Any] = {"username": identity.user, "groups": list(identity.groups)}
            if identity.uid:
                ui["uid"] = identity.uid
            if identity.extra:
                ui["extra"] = identity.extra
            return json_response({"kind": rt.kind, "apiVersion": rt.api_version, "metadata": meta,
                                  "status": {"userInfo": ui}}, 201)
        spec = data.get("spec") or {}
        if rt.kind == "SelfSubjectRulesReview":
            rr, nrr = auth.rules(identity)
            return json_response({"kind": rt.kind, "apiVersion": rt.api_version, "metadata": meta,
                                  "spec": spec, "status": {"resourceRules": rr, "nonResourceRules": nrr,
                                                           "incomplete": False}}, 201)
        ra = spec.get("resourceAttributes")
        nra = spec.get("nonResourceAttributes")
        if ra:
            ok = auth.allowed(identity, ra.get("verb", ""), ra.get("group", ""), ra.get("resource", ""),
                              ra.get("subresource", ""))
        elif nra:
            ok = identity.admin or nra.get("verb") == "get"
        else:
            raise errors.invalid(rt.kind, rt.group, "", [(
                "spec.resourceAttributes", "FieldValueRequired",
                "Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified")])
        status: dict[str, Any] = {"allowed": ok}
        if ok and identity.admin:
            status["reason"] = ('RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole '
                                '"cluster-admin" to Group "kubeadm:cluster-admins"')
        return json_response({"kind": rt.kind, "apiVersion": rt.api_version, "metadata": meta, "spec": spec,
                              "status": status}, 201)

    def _token_request(self, rt: ResourceType, ns: str, name: str, data: dict[str, Any]) -> web.Response:
        sa = self.store.raw_get(rt, name, ns)
        ident = Identity(f"system:serviceaccount:{ns}:{name}",
                         ("system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"),
                         label=f"serviceaccount:{ns}:{name}", uid=sa["metadata"]["uid"])
        token = self.auth.mint(ident)
        secs = int((data.get("spec") or {}).get("expirationSeconds") or 3600)
        from datetime import timedelta

        from .clock import format_time

        exp = format_time(self.store.clock.now() + timedelta(seconds=secs))
        return json_response(self.store.clock.render({
            "kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"name": name, "namespace": ns, "creationTimestamp": None},
            "spec": {"audiences": ["https://kubernetes.default.svc.cluster.local"], "expirationSeconds": secs,
                     "boundObjectRef": None},
            "status": {"token": token, "expirationTimestamp": exp}}), 201)

    # ----------------------------------------------------------------------------------------------------
    async def _watch(self, request: web.Request, rt: ResourceType, ns: str | None) -> web.StreamResponse:
        q = request.query
        store = self.store
        send_initial = q.get("sendInitialEvents")
        initial = None if send_initial is None else send_initial in _TRUE
        allow_bookmarks = q.get("allowWatchBookmarks") in _TRUE
        if initial and q.get("resourceVersionMatch") != "NotOlderThan":
            raise errors.invalid("ListOptions", "meta.k8s.io", "", [(
                "resourceVersionMatch", "FieldValueForbidden",
                "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")])
        table = "as=Table" in request.headers.get("Accept", "")
        include = q.get("includeObject", "Metadata")
        try:
            timeout = float(q.get("timeoutSeconds") or 0)
        except ValueError:
            timeout = 0
        if timeout <= 0:
            timeout = random.uniform(1800, 3600)
        resp = web.StreamResponse(status=200, headers={"Content-Type": JSON, "Cache-Control": "no-cache, private"})
        resp.enable_chunked_encoding()
        expired: errors.ApiError | None = None
        watcher = None
        try:
            watcher = store.watch(rt, ns, resource_version=q.get("resourceVersion"),
                                  label_selector=q.get("labelSelector"), field_selector=q.get("fieldSelector"),
                                  send_initial_events=initial, allow_bookmarks=allow_bookmarks)
        except errors.ApiError as e:
            if e.code != 410:
                raise
            expired = e
        await resp.prepare(request)
        if expired is not None:
            await resp.write(dumps({"type": "ERROR", "object": expired.status_body()}) + b"\n")
            await resp.write_eof()
            return resp
        assert watcher is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        next_bookmark = loop.time() + self.bookmark_interval
        clock = store.clock
        try:
            while True:
                now = loop.time()
                if now >= deadline:
                    break
                wait = min(deadline, next_bookmark if allow_bookmarks else now + 5.0) - now
                ev = await watcher.next(max(0.0, wait))
                if ev is None:
                    if watcher.closed:
                        break
                    if request.transport is None or request.transport.is_closing():
                        break
                    if allow_bookmarks and loop.time() >= next_bookmark:
                        next_bookmark = loop.time() + self.bookmark_interval
                        await resp.write(dumps({"type": "BOOKMARK", "object": store.bookmark(rt)}) + b"\n")
                    continue
                obj = ev.object
                if ev.type == "BOOKMARK":
                    if not allow_bookmarks and INITIAL_EVENTS_END not in (obj["metadata"].get("annotations") or {}):
                        continue
                elif table:
                    t = render_table([obj], resource=rt.plural, group=rt.group, now=clock.now(),
                                     include_object=include)
                    t["metadata"] = {"resourceVersion": str(ev.resource_version)}
                    obj = t
                await resp.write(dumps({"type": ev.type, "object": clock.render(obj)}) + b"\n")
        except ConnectionResetError:  # the client went away: the watch simply ends
            return resp
        finally:
            watcher.close()
        try:
            await resp.write_eof()
        except ConnectionResetError:
            pass
        return resp


def _partial(obj: dict[str, Any]) -> dict[str, Any]:
    """The metadata-only view client-go's metadata client asks for (``as=PartialObjectMetadata[List]``)."""
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}


def not_found_page() -> web.Response:
    return web.Response(status=404, text="404 page not found\n", content_type="text/plain")
