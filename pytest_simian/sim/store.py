"""The embedded cluster's one in-memory object store, and its in-process API.

Why: the API server, the controllers and the simulated kubelet must all see one consistent cluster with
real Kubernetes bookkeeping (a global resourceVersion counter, uid, generation, creationTimestamp,
managedFields, ownerReferences with garbage collection, finalizers, namespace finalization) and one watch
history. One asyncio event loop owns the store, so it needs no locks; every method is synchronous except
waiting on a watch.
Must not: know about HTTP, tokens or authorization (the HTTP layer authorizes before calling in); read the
host clock (it uses :class:`~pytest_simian.sim.clock.VirtualClock`).

In-process API (what controllers and the kubelet use; they run as tasks in the server's event loop)
----------------------------------------------------------------------------------------------------
``resource`` is a loose name resolved by :meth:`Registry.lookup`: ``"pods"``, ``"deployments"``,
``"deployments.apps"``, ``"events.events.k8s.io"``, a kind (``"Pod"``) or a :class:`ResourceType`. Core wins
a plural two groups share (``"events"`` is core v1). Every method returns deep copies; mutate freely.
Errors are :class:`~pytest_simian.sim.errors.ApiError` (``.code`` 404/409/422..., ``.reason``, ``.message``).
``manager`` is the field manager recorded in managedFields (default ``"kube-controller-manager"``).

- ``store.get(resource, name, namespace=None) -> dict``
- ``store.list(resource, namespace=None, *, label_selector=None, field_selector=None, limit=0,
  continue_=None) -> dict`` (a ``<Kind>List`` with ``items`` and ``metadata.resourceVersion``); selectors are
  strings in the API syntax (``"app=web,tier!=db"``, ``"spec.nodeName=node-1"``).
- ``store.items(resource, namespace=None) -> list[dict]``: just the objects (copies), namespace order.
- ``store.create(resource, obj, *, namespace=None, manager=..., dry_run=False) -> dict``: defaults, then
  admission (``admission.py``: LimitRange defaults/bounds and ResourceQuota, 403 Forbidden in the plugins'
  words, so a ReplicaSet controller gets the real ``exceeded quota: ...`` error for its FailedCreate event)
- ``store.update(resource, obj, *, namespace=None, subresource="", manager=..., dry_run=False) -> dict``
  (PUT semantics: a non-empty ``metadata.resourceVersion`` must be current, else 409 Conflict; the main
  resource ignores ``status`` changes and ``subresource="status"`` ignores everything but ``status``; an
  unchanged object is not written and keeps its resourceVersion)
- ``store.evict(name, namespace, *, delete_options=None, dry_run=False) -> dict``: pods/eviction with
  PodDisruptionBudget checks (429 TooManyRequests when the budget allows no disruption)
- ``store.update_status(resource, obj, **kw) -> dict`` == ``update(..., subresource="status")``
- ``store.patch(resource, name, patch, *, patch_type="merge", namespace=None, subresource="", manager=...,
  force=False, dry_run=False) -> dict``; ``patch_type`` is ``"merge"``, ``"json"``, ``"strategic"`` or
  ``"apply"`` (server-side apply: ``patch`` is the applied configuration; creates when absent, see
  :meth:`Store.apply` which also tells whether it created)
- ``store.delete(resource, name, namespace=None, *, propagation_policy=None, preconditions=None,
  grace_period_seconds=None, dry_run=False) -> dict`` (the object as deleted, or as marked with
  ``deletionTimestamp`` when finalizers hold it). Propagation ``Background`` (default; ``Orphan`` for
  batch/v1 jobs as upstream), ``Foreground`` or ``Orphan``. Garbage collection of dependents is done
  synchronously in the same call.
- ``store.watch(resource, namespace=None, *, resource_version=None, label_selector=None,
  field_selector=None, send_initial_events=None, allow_bookmarks=False) -> Watch``; ``async for ev in w``
  yields :class:`WatchEvent` (``.type`` ADDED/MODIFIED/DELETED/BOOKMARK, ``.object`` (shared; do not
  mutate), ``.resource_version`` int). ``resource_version=None`` or ``"0"`` starts with synthetic ADDED
  events for the current state; ``"N"`` replays history after N (410 Expired when N fell out of the history
  window). ``w.close()`` ends it. ``await w.next(timeout)`` returns one event or None.
- ``store.subscribe(callback) -> unsubscribe``: ``callback(event)`` is called synchronously for every
  stored change of every resource, after the store is consistent. Keep it cheap; schedule real work.
- ``store.add_controller(name, factory)``: ``factory(store)`` returns a coroutine; the server starts every
  registered controller as a task when it starts (or immediately if it is already running) and cancels
  them on shutdown. ``await store.start_controllers()`` / ``await store.stop_controllers()`` do it by hand.
- ``store.clock``: the :class:`VirtualClock` (``now()``, ``now_str()``, ``await clock.sleep(s)``).
- ``store.resource_version`` (int): the current global counter.
- ``store.log_provider``: None, or ``provider(namespace, pod, container, *, previous, tail_lines,
  timestamps) -> str``: what ``GET pods/{name}/log`` returns (the kubelet installs it). Without one logs are
  empty.
- ``store.namespace_finalize_delay`` (seconds, default 1.0): how long a deleted namespace stays Terminating
  before its content is deleted and it goes.
- Events: core/v1 ``events`` and ``events.events.k8s.io`` are one object seen two ways (same uid and
  resourceVersion; ``involvedObject``/``regarding``, ``message``/``note``, ``count``/``deprecatedCount``...):
  write either, read and watch either.
- ``store.graceful_delete_hook``: None, or ``hook(resource_type, obj) -> bool``: called when a pod is
  deleted with a grace period; return True to take over (the kubelet then finishes deletion with
  ``store.delete(..., grace_period_seconds=0)``). Without a hook pods go at once.
"""

from __future__ import annotations

import asyncio
import base64
import builtins
import json
import logging
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from . import admission, errors
from .clock import VirtualClock
from .compat import (
    ApplyConflict,
    PatchError,
    SelectorError,
    apply_fields,
    json_merge_patch,
    json_patch,
    parse_field_selector,
    parse_label_selector,
    record_update,
    strategic_merge_patch,
)
from .defaults import apply_defaults, validate
from .resources import REGISTRY, Registry, ResourceType

log = logging.getLogger(__name__)

DEFAULT_MANAGER = "kube-controller-manager"  # neutral: subjects may read managedFields
INITIAL_EVENTS_END = "k8s.io/initial-events-end"

Key = tuple[str, str]  # (namespace or "", name)
_SAFE = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery util/rand: generated names never read as words


def _random_suffix(n: int = 5) -> str:
    """SimpleNameGenerator.GenerateName's suffix: five characters of rand.String's alphabet."""
    v = uuid.uuid4().int
    out = []
    for _ in range(n):
        v, r = divmod(v, len(_SAFE))
        out.append(_SAFE[r])
    return "".join(out)


@dataclass
class WatchEvent:
    type: str
    object: dict[str, Any]
    resource_version: int
    resource: ResourceType
    old: dict[str, Any] | None = None
    """The previous state for MODIFIED (lets selector watches emit the synthetic ADDED/DELETED)."""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "object": self.object}


class Watch:
    """One watcher on one resource type. Iterate it; close it when done."""

    def __init__(
        self,
        store: Store,
        rt: ResourceType,
        namespace: str | None,
        label_selector: Any,
        field_selector: Any,
    ) -> None:
        self.store = store
        self.rt = rt
        self.namespace = namespace
        self._labels = label_selector
        self._fields = field_selector
        self._queue: asyncio.Queue[WatchEvent | None] = asyncio.Queue()
        self.closed = False

    def matches(self, obj: dict[str, Any]) -> bool:
        md = obj.get("metadata", {})
        if self.namespace and md.get("namespace") != self.namespace:
            return False
        if self._labels is not None and not self._labels.matches(md.get("labels") or {}):
            return False
        if self._fields is not None and not self._fields.matches(obj):
            return False
        return True

    def offer(self, ev: WatchEvent) -> None:
        if self.closed:
            return
        if ev.type == "MODIFIED":
            now_m = self.matches(ev.object)
            was_m = ev.old is not None and self.matches(ev.old)
            if now_m and not was_m:
                ev = WatchEvent("ADDED", ev.object, ev.resource_version, ev.resource)
            elif was_m and not now_m:
                ev = WatchEvent("DELETED", ev.object, ev.resource_version, ev.resource)
            elif not now_m:
                return
        elif ev.type in ("ADDED", "DELETED") and not self.matches(ev.object):
            return
        self._queue.put_nowait(ev)

    def _put(self, ev: WatchEvent) -> None:
        self._queue.put_nowait(ev)

    async def next(self, timeout: float | None = None) -> WatchEvent | None:
        if self.closed and self._queue.empty():
            return None
        try:
            if timeout is None:
                return await self._queue.get()
            return await asyncio.wait_for(self._queue.get(), timeout)
        except TimeoutError:
            return None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.store._watchers.get(self.rt.key, set()).discard(self)
            try:
                self._queue.put_nowait(None)
            except RuntimeError:  # the loop is already closed (server shutdown)
                pass

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[WatchEvent]:
        while True:
            ev = await self._queue.get()
            if ev is None:
                return
            yield ev


def json_copy(obj: Any) -> Any:
    """A deep copy of a JSON-shaped value (dicts, lists, scalars), several times faster than
    ``copy.deepcopy``, which the store pays on every read it hands out."""
    if type(obj) is dict:
        return {k: json_copy(v) for k, v in obj.items()}
    if type(obj) is list:
        return [json_copy(v) for v in obj]
    return obj


@dataclass
class _Table:
    objects: dict[Key, dict[str, Any]] = field(default_factory=dict)
    sorted_keys: builtins.list[Key] | None = None
    version: int = 0  # resourceVersion of the last write to this table (0: never written)


class Store:
    """See the module docstring for the in-process API."""

    def __init__(
        self,
        clock: VirtualClock | None = None,
        *,
        registry: Registry = REGISTRY,
        history_size: int = 10_000,
    ) -> None:
        self.clock = clock or VirtualClock()
        self.registry = registry
        self.resource_version = 1
        self._tables: dict[str, _Table] = {r.key: _Table() for r in registry.resources}
        self._history: deque[WatchEvent] = deque()
        self._history_size = history_size
        self._history_floor = 0  # events with rv <= floor were evicted
        self._watchers: dict[str, set[Watch]] = {}
        self._subscribers: builtins.list[Callable[[WatchEvent], None]] = []
        self._by_uid: dict[str, tuple[ResourceType, Key]] = {}
        self._pods_by_node: dict[str, dict[Key, dict[str, Any]]] = {}  # spec.nodeName -> stored pods
        self._dependents: dict[str, set[str]] = {}  # owner uid -> dependent uids
        self._controllers: builtins.list[tuple[str, Callable[[Store], Coroutine[Any, Any, None]]]] = []
        self._tasks: builtins.list[asyncio.Task[None]] = []
        self._running = False
        self._ip_counter = 10
        self.graceful_delete_hook: Callable[[ResourceType, dict[str, Any]], bool] | None = None
        self.log_provider: Callable[..., str] | None = None
        self._encoded: dict[str, tuple[str, float, bytes]] = {}  # uid+apiVersion -> (rv, clock shift, JSON)
        self._refreshing = False
        self.namespace_finalize_delay = 1.0
        """Seconds a deleted namespace stays Terminating before its content goes (upstream takes a few
        seconds; ``kubectl delete -f`` deletes the namespace first and the rest right after)."""
        self.ca_pem = ""

    # ------------------------------------------------------------------------------------------------------
    # controllers
    def add_controller(self, name: str, factory: Callable[[Store], Coroutine[Any, Any, None]]) -> None:
        self._controllers.append((name, factory))
        if self._running:
            self._tasks.append(asyncio.get_running_loop().create_task(factory(self), name=name))

    async def start_controllers(self) -> None:
        if self._running:
            return
        self._running = True
        loop = asyncio.get_running_loop()
        for name, factory in self._controllers:
            self._tasks.append(loop.create_task(factory(self), name=name))

    async def stop_controllers(self) -> None:
        self._running = False
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            try:
                await t
            except (asyncio.CancelledError, Exception):  # noqa: S110 - shutting down
                pass
        self._tasks.clear()

    # ------------------------------------------------------------------------------------------------------
    # reading
    def _rt(self, resource: str | ResourceType) -> ResourceType:
        try:
            return self.registry.lookup(resource)
        except KeyError:
            raise errors.resource_not_found() from None

    def _key(self, rt: ResourceType, name: str, namespace: str | None) -> Key:
        return ((namespace or "") if rt.namespaced else "", name)

    def raw_get(self, rt: ResourceType, name: str, namespace: str | None = None) -> dict[str, Any]:
        """The stored object itself (never mutate it): the HTTP layer's zero-copy read."""
        obj = self._tables[rt.key].objects.get(self._key(rt, name, namespace))
        if obj is None:
            raise errors.not_found(rt.plural, rt.group, name)
        return obj

    def get(self, resource: str | ResourceType, name: str, namespace: str | None = None) -> dict[str, Any]:
        return json_copy(self.raw_get(self._rt(resource), name, namespace))

    def get_or_none(self, resource: str | ResourceType, name: str, namespace: str | None = None
                    ) -> dict[str, Any] | None:
        try:
            return self.get(resource, name, namespace)
        except errors.ApiError as e:
            if e.code == 404:
                return None
            raise

    def encoded(self, obj: dict[str, Any]) -> bytes:
        """The compact JSON encoding of a stored object as the API renders it now (timestamps shifted by the
        clock), cached per resourceVersion and clock shift: stored objects are never mutated, so the bytes
        stay valid until the next write or until the clock's offset from the host changes. The HTTP layer's
        fast path for gets and lists."""
        md = obj["metadata"]
        key, rv = md["uid"] + obj.get("apiVersion", ""), md["resourceVersion"]
        shift = self.clock.shift()
        hit = self._encoded.get(key)
        if hit is not None and hit[0] == rv and hit[1] == shift:
            return hit[2]
        data = json.dumps(self.clock.render(obj) if shift else obj, separators=(",", ":")).encode()
        self._encoded[key] = (rv, shift, data)
        return data

    def _sorted_keys(self, rt: ResourceType) -> builtins.list[Key]:
        t = self._tables[rt.key]
        if t.sorted_keys is None:
            t.sorted_keys = sorted(t.objects)
        return t.sorted_keys

    def raw_list(
        self,
        rt: ResourceType,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int = 0,
        continue_: str | None = None,
    ) -> tuple[list[dict[str, Any]], str, int]:
        """Stored objects (never mutate them), the continue token (or "") and the remaining count."""
        labels = self._label_selector(label_selector)
        fields = self._field_selector(rt, field_selector)
        t = self._tables[rt.key]
        keys = self._sorted_keys(rt)
        start: Key | None = None
        if continue_:
            try:
                tok = json.loads(base64.urlsafe_b64decode(continue_.encode()))
                start = (tok["start"][0], tok["start"][1])
            except Exception:
                raise errors.bad_request("continue key is not valid: illegal base64 data") from None
        out: builtins.list[dict[str, Any]] = []
        remaining = 0
        last: Key | None = None
        ns = namespace if rt.namespaced else None
        for k in keys:
            if ns and k[0] != ns:
                continue
            if start is not None and k <= start:
                continue
            obj = t.objects[k]
            if labels is not None and not labels.matches(obj["metadata"].get("labels") or {}):
                continue
            if fields is not None and not fields.matches(obj):
                continue
            if limit and len(out) >= limit:
                remaining += 1
                continue
            out.append(obj)
            last = k
        token = ""
        if limit and remaining and last is not None:
            token = base64.urlsafe_b64encode(
                json.dumps({"rv": self.resource_version, "start": list(last)}).encode()).decode()
        return out, token, remaining

    def list(
        self,
        resource: str | ResourceType,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int = 0,
        continue_: str | None = None,
    ) -> dict[str, Any]:
        rt = self._rt(resource)
        items, token, remaining = self.raw_list(rt, namespace, label_selector=label_selector,
                                                field_selector=field_selector, limit=limit, continue_=continue_)
        meta: dict[str, Any] = {"resourceVersion": str(self.resource_version)}
        if token:
            meta["continue"] = token
            meta["remainingItemCount"] = remaining
        return {"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": meta,
                "items": json_copy(items)}

    def items(self, resource: str | ResourceType, namespace: str | None = None) -> builtins.list[dict[str, Any]]:
        """Copies of every object of a kind (in one namespace): the caller may change them."""
        rt = self._rt(resource)
        return json_copy(self.raw_list(rt, namespace)[0])

    def view(self, resource: str | ResourceType, namespace: str | None = None) -> builtins.list[dict[str, Any]]:
        """The stored objects of a kind themselves, in key order: a controller's read of the whole state
        without copying it. Never mutate what this returns (copy an object before changing it): stored
        objects are shared with watchers and the encoded-bytes cache."""
        rt = self._rt(resource)
        t = self._tables[rt.key]
        keys = self._sorted_keys(rt)
        if namespace and rt.namespaced:
            return [t.objects[k] for k in keys if k[0] == namespace]
        return [t.objects[k] for k in keys]

    def pods_on_node(self, node_name: str) -> builtins.list[dict[str, Any]]:
        """The stored pods bound to a node (``spec.nodeName``), read-only like :meth:`view`: a kubelet's
        informer with its ``spec.nodeName`` field selector, without scanning every pod of the cluster."""
        return builtins.list(self._pods_by_node.get(node_name, {}).values())

    def version_of(self, resource: str | ResourceType) -> int:
        """The resourceVersion of the last write to a kind (0 if never written): a cheap "did anything of
        this kind change since I last looked" for level-triggered loops."""
        return self._tables[self._rt(resource).key].version

    def _label_selector(self, s: str | None) -> Any:
        if not s:
            return None
        try:
            return parse_label_selector(s)
        except (SelectorError, ValueError) as e:
            raise errors.bad_request(str(e)) from None

    def _field_selector(self, rt: ResourceType, s: str | None) -> Any:
        if not s:
            return None
        try:
            return parse_field_selector(s, resource=rt.plural)
        except (SelectorError, ValueError) as e:
            raise errors.bad_request(str(e)) from None

    # ------------------------------------------------------------------------------------------------------
    # writing
    def _next_rv(self) -> int:
        self.resource_version += 1
        return self.resource_version

    def _emit(self, etype: str, rt: ResourceType, obj: dict[str, Any], rv: int,
              old: dict[str, Any] | None = None) -> None:
        ev = WatchEvent(etype, obj, rv, rt, old)
        self._history.append(ev)
        while len(self._history) > self._history_size:
            self._history_floor = self._history.popleft().resource_version
        for w in list(self._watchers.get(rt.key, ())):
            w.offer(ev)
        for cb in list(self._subscribers):
            try:
                cb(ev)
            except Exception:  # a broken subscriber must not fail the write that notified it
                log.exception("store subscriber %r failed on %s %s", cb, etype, rt.key)

    def _store(self, rt: ResourceType, obj: dict[str, Any], etype: str, old: dict[str, Any] | None) -> None:
        md = obj["metadata"]
        key = self._key(rt, md["name"], md.get("namespace"))
        t = self._tables[rt.key]
        if key not in t.objects:
            t.sorted_keys = None
        t.objects[key] = obj
        t.version = int(md["resourceVersion"])
        if rt.key == "pods":
            self._index_pod(key, old, obj)
        uid = md["uid"]
        self._by_uid[uid] = (rt, key)
        old_owners = {r.get("uid") for r in (old or {}).get("metadata", {}).get("ownerReferences") or []}
        new_owners = {r.get("uid") for r in md.get("ownerReferences") or []}
        for o in old_owners - new_owners:
            self._dependents.get(o, set()).discard(uid)
        for o in new_owners:
            self._dependents.setdefault(o, set()).add(uid)
        self._emit(etype, rt, obj, int(md["resourceVersion"]), old)
        if rt.kind == "Event":
            self._mirror_event(rt, obj, etype, old)
        if rt.namespaced:
            self._quota_changed(rt, md.get("namespace", ""))

    def _index_pod(self, key: Key, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        was = ((old or {}).get("spec") or {}).get("nodeName")
        now = ((new or {}).get("spec") or {}).get("nodeName")
        if was and was != now:
            self._pods_by_node.get(was, {}).pop(key, None)
        if now and new is not None:
            self._pods_by_node.setdefault(now, {})[key] = new

    def _quota_changed(self, rt: ResourceType, namespace: str) -> None:
        """Keep ResourceQuota status.used current (the quota controller's job) for namespaces with quotas."""
        if self._refreshing or rt.group == "events.k8s.io" or rt.kind in ("Event", "Lease", "EndpointSlice",
                                                                         "Endpoints"):
            return
        if not any(k[0] == namespace for k in self._tables["resourcequotas"].objects):
            return
        self._refreshing = True
        try:
            admission.refresh_quotas(self, namespace)
        finally:
            self._refreshing = False

    # core/v1 and events.k8s.io/v1 Events are one object seen two ways (upstream stores them once); each
    # write is mirrored into the other table under the same uid and resourceVersion.
    _EVENT_FIELDS = (("involvedObject", "regarding"), ("message", "note"), ("source", "deprecatedSource"),
                     ("firstTimestamp", "deprecatedFirstTimestamp"), ("lastTimestamp", "deprecatedLastTimestamp"),
                     ("count", "deprecatedCount"), ("reportingComponent", "reportingController"))

    def _event_twin(self, rt: ResourceType) -> ResourceType:
        return self.registry.lookup("events.events.k8s.io" if rt.group == "" else "events")

    def _convert_event(self, obj: dict[str, Any] | None, to: ResourceType) -> dict[str, Any] | None:
        if obj is None:
            return None
        pairs = self._EVENT_FIELDS if to.group else tuple((b, a) for a, b in self._EVENT_FIELDS)
        out: dict[str, Any] = {"kind": "Event", "apiVersion": to.api_version}
        renamed = dict(pairs)
        for k, v in obj.items():
            if k in ("kind", "apiVersion"):
                continue
            out[renamed.get(k, k)] = v
        if to.group and not out.get("eventTime"):
            out["eventTime"] = None
        return out

    def _mirror_event(self, rt: ResourceType, obj: dict[str, Any], etype: str, old: dict[str, Any] | None,
                      gone: bool = False) -> None:
        twin = self._event_twin(rt)
        conv = self._convert_event(obj, twin)
        assert conv is not None
        md = conv["metadata"]
        key = self._key(twin, md["name"], md.get("namespace"))
        t = self._tables[twin.key]
        if gone:
            t.objects.pop(key, None)
            self._encoded.pop(md["uid"] + conv["apiVersion"], None)
        else:
            if key not in t.objects:
                t.sorted_keys = None
            t.objects[key] = conv
        if gone:
            t.sorted_keys = None
        self._emit(etype, twin, conv, int(md["resourceVersion"]), self._convert_event(old, twin))

    def _remove(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        md = obj["metadata"]
        key = self._key(rt, md["name"], md.get("namespace"))
        t = self._tables[rt.key]
        t.objects.pop(key, None)
        t.sorted_keys = None
        if rt.key == "pods":
            self._index_pod(key, obj, None)
        uid = md["uid"]
        self._by_uid.pop(uid, None)
        self._encoded.pop(uid + obj.get("apiVersion", ""), None)
        for r in md.get("ownerReferences") or []:
            self._dependents.get(r.get("uid"), set()).discard(uid)
        gone = dict(obj)
        gone["metadata"] = dict(md, resourceVersion=str(self._next_rv()))
        t.version = self.resource_version
        self._emit("DELETED", rt, gone, int(gone["metadata"]["resourceVersion"]))
        if rt.kind == "Event":
            self._mirror_event(rt, gone, "DELETED", None, gone=True)
        if rt.namespaced:
            self._quota_changed(rt, md.get("namespace", ""))
        # an owner waiting in foreground deletion may now be free to go
        for r in md.get("ownerReferences") or []:
            self._maybe_finish_foreground(r.get("uid"))
        if rt.namespaced:
            self._maybe_finish_namespace(md.get("namespace", ""))
        return gone

    def _check_namespace(self, rt: ResourceType, namespace: str, name: str) -> None:
        if not rt.namespaced:
            return
        ns = self._tables["namespaces"].objects.get(("", namespace))
        if ns is None:
            raise errors.not_found("namespaces", "", namespace)
        if ns["metadata"].get("deletionTimestamp"):
            raise errors.ApiError(
                403, "Forbidden",
                f"{rt.plural} \"{name}\" is forbidden: unable to create new content in namespace {namespace} "
                "because it is being terminated",
                details={"name": name, "group": rt.group, "kind": rt.plural} if rt.group
                else {"name": name, "kind": rt.plural})

    def _namespace_of(self, rt: ResourceType, obj: dict[str, Any], namespace: str | None) -> str | None:
        md = obj.setdefault("metadata", {})
        if not rt.namespaced:
            md.pop("namespace", None)
            return None
        ns = md.get("namespace")
        if namespace and ns and ns != namespace:
            raise errors.bad_request("the namespace of the provided object does not match the namespace sent "
                                     "on the request")
        ns = ns or namespace or "default"
        md["namespace"] = ns
        return ns

    def create(
        self,
        resource: str | ResourceType,
        obj: dict[str, Any],
        *,
        namespace: str | None = None,
        manager: str = DEFAULT_MANAGER,
        dry_run: bool = False,
        _managed: builtins.list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        rt = self._rt(resource)
        obj = json_copy(obj)
        obj["apiVersion"] = rt.api_version
        obj["kind"] = rt.kind
        ns = self._namespace_of(rt, obj, namespace)
        md = obj["metadata"]
        if not md.get("name") and md.get("generateName"):
            md["name"] = md["generateName"] + _random_suffix()
        validate(rt, obj)
        name = md["name"]
        self._check_namespace(rt, ns or "", name)
        if self._key(rt, name, ns) in self._tables[rt.key].objects:
            raise errors.already_exists(rt.plural, rt.group, name)
        if md.get("resourceVersion"):
            raise errors.bad_request("resourceVersion should not be set on objects to be created")
        for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
            md.pop(k, None)
        md["uid"] = str(uuid.uuid4())
        md["creationTimestamp"] = self.clock.now_str()
        if rt.has_generation:
            md["generation"] = 1
        apply_defaults(rt, obj, self)
        admission.admit_create(self, rt, obj)
        if _managed is not None:
            md["managedFields"] = _managed
        else:
            md.pop("managedFields", None)
            mf = record_update(None, obj, manager=manager, operation="Update", api_version=rt.api_version,
                               now=self.clock.now_str(), kind=rt.kind)
            if mf:
                md["managedFields"] = mf
        if dry_run:
            return json_copy(obj)
        md["resourceVersion"] = str(self._next_rv())
        self._store(rt, obj, "ADDED", None)
        if rt.key == "namespaces":
            self._namespace_created(obj)
        return json_copy(obj)

    def update(
        self,
        resource: str | ResourceType,
        obj: dict[str, Any],
        *,
        namespace: str | None = None,
        subresource: str = "",
        manager: str = DEFAULT_MANAGER,
        dry_run: bool = False,
        _managed: builtins.list[dict[str, Any]] | None = None,
        _operation: str = "Update",
    ) -> dict[str, Any]:
        rt = self._rt(resource)
        obj = json_copy(obj)
        ns = self._namespace_of(rt, obj, namespace)
        md = obj["metadata"]
        name = md.get("name") or ""
        old = self._tables[rt.key].objects.get(self._key(rt, name, ns))
        if old is None:
            raise errors.not_found(rt.plural, rt.group, name)
        rv = md.get("resourceVersion")
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise errors.conflict(rt.plural, rt.group, name, errors.MODIFIED)
        new = self._merge_for_update(rt, old, obj, subresource)
        validate(rt, new)
        if _managed is not None:
            new["metadata"]["managedFields"] = _managed
        else:
            mf = record_update(old, new, manager=manager, operation=_operation, subresource=subresource,
                               api_version=rt.api_version, now=self.clock.now_str(), kind=rt.kind)
            if mf:
                new["metadata"]["managedFields"] = mf
            else:
                new["metadata"].pop("managedFields", None)
        return self._commit_update(rt, old, new, dry_run)

    def update_status(self, resource: str | ResourceType, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        return self.update(resource, obj, subresource="status", **kw)

    def _merge_for_update(self, rt: ResourceType, old: dict[str, Any], obj: dict[str, Any],
                          subresource: str) -> dict[str, Any]:
        has_status = rt.subresource("status") is not None
        if subresource == "status":
            new = json_copy(old)
            if "status" in obj:
                new["status"] = obj["status"]
            else:
                new.pop("status", None)
            # metadata labels/annotations may change through status too (upstream allows it)
            for k in ("labels", "annotations"):
                if k in obj["metadata"]:
                    new["metadata"][k] = obj["metadata"][k]
            return new
        new = obj
        new["apiVersion"] = rt.api_version
        new["kind"] = rt.kind
        omd, nmd = old["metadata"], new["metadata"]
        for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation",
                  "namespace", "name", "generateName"):
            if k in omd:
                nmd[k] = omd[k]
            else:
                nmd.pop(k, None)
        nmd["resourceVersion"] = omd["resourceVersion"]
        if has_status:
            if "status" in old:
                new["status"] = json_copy(old["status"])
            else:
                new.pop("status", None)
        apply_defaults(rt, new, self, old=old)
        return new

    @staticmethod
    def _spec_part(obj: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}

    def _commit_update(self, rt: ResourceType, old: dict[str, Any], new: dict[str, Any],
                       dry_run: bool) -> dict[str, Any]:
        md = new["metadata"]
        if rt.has_generation and self._spec_part(old) != self._spec_part(new):
            md["generation"] = int(old["metadata"].get("generation", 1)) + 1
        if new == old:
            return json_copy(old)  # nothing changed: no write, no new resourceVersion
        if dry_run:
            return json_copy(new)
        # finalizers removed from an object being deleted: it goes now
        if md.get("deletionTimestamp") and not md.get("finalizers"):
            md["resourceVersion"] = str(self._next_rv())
            self._store(rt, new, "MODIFIED", old)
            return json_copy(self._remove(rt, new))
        md["resourceVersion"] = str(self._next_rv())
        self._store(rt, new, "MODIFIED", old)
        return json_copy(new)

    # -- patch / apply ----------------------------------------------------------------------------------------
    def patch(
        self,
        resource: str | ResourceType,
        name: str,
        patch: Any,
        *,
        patch_type: str = "merge",
        namespace: str | None = None,
        subresource: str = "",
        manager: str = DEFAULT_MANAGER,
        force: bool = False,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        if patch_type == "apply":
            return self.apply(resource, name, patch, namespace=namespace, subresource=subresource,
                              manager=manager, force=force, dry_run=dry_run)[0]
        rt = self._rt(resource)
        old = self.raw_get(rt, name, namespace)
        try:
            if patch_type == "merge":
                patched = json_merge_patch(json_copy(old), patch)
            elif patch_type == "json":
                patched = json_patch(json_copy(old), patch)
            elif patch_type == "strategic":
                patched = strategic_merge_patch(json_copy(old), patch, api_version=rt.api_version,
                                                kind=rt.kind)
            else:
                raise errors.ApiError(415, "UnsupportedMediaType", f"unsupported patch type {patch_type}")
        except PatchError as e:
            raise errors.ApiError(422 if patch_type == "json" else 400,
                                  "Invalid" if patch_type == "json" else "BadRequest", str(e)) from None
        if not isinstance(patched, dict):
            raise errors.bad_request("patch did not produce an object")
        pmd = patched.setdefault("metadata", {})
        # a patch may carry a resourceVersion precondition; otherwise it applies to what it read
        if not (isinstance(patch, dict) and (patch.get("metadata") or {}).get("resourceVersion")) \
                and patch_type != "json":
            pmd["resourceVersion"] = old["metadata"]["resourceVersion"]
        if patch_type == "json":
            pmd.setdefault("resourceVersion", old["metadata"]["resourceVersion"])
        if pmd.get("name") != name:
            raise errors.bad_request("metadata.name: Invalid value: the name of the object does not match the "
                                     "name on the URL")
        return self.update(rt, patched, namespace=namespace, subresource=subresource, manager=manager,
                           dry_run=dry_run, _operation="Update")

    def apply(
        self,
        resource: str | ResourceType,
        name: str,
        applied: dict[str, Any],
        *,
        namespace: str | None = None,
        subresource: str = "",
        manager: str = DEFAULT_MANAGER,
        force: bool = False,
        dry_run: bool = False,
    ) -> tuple[dict[str, Any], bool]:
        """Server-side apply. Returns ``(object, created)``."""
        rt = self._rt(resource)
        if not isinstance(applied, dict):
            raise errors.bad_request("the body of an apply patch must be an object")
        applied = json_copy(applied)
        amd = applied.setdefault("metadata", {})
        if amd.get("name") and amd["name"] != name:
            raise errors.bad_request("metadata.name: Invalid value: the name of the object does not match the "
                                     "name on the URL")
        amd["name"] = name
        if rt.namespaced:
            if amd.get("namespace") and namespace and amd["namespace"] != namespace:
                raise errors.bad_request("the namespace of the provided object does not match the namespace "
                                         "sent on the request")
        for k in ("apiVersion", "kind"):
            if not applied.get(k):
                raise errors.bad_request(f"{k} must be set")
        live = self._tables[rt.key].objects.get(self._key(rt, name, namespace))
        now = self.clock.now_str()
        try:
            result = apply_fields(json_copy(live) if live else None, applied, manager=manager, force=force,
                                  api_version=rt.api_version, kind=rt.kind, now=now, subresource=subresource)
        except ApplyConflict as e:
            causes = getattr(e, "causes", None) or [
                {"reason": "FieldManagerConflict", "message": f'conflict with "{m}"', "field": p}
                for m, p in e.conflicts]
            raise errors.ApiError(409, "Conflict", e.message, details={"causes": causes}) from None
        except PatchError as e:
            raise errors.ApiError(getattr(e, "code", 400), getattr(e, "reason", "BadRequest"), str(e)) from None
        managed = result.get("metadata", {}).get("managedFields")
        if live is None:
            if subresource:
                raise errors.not_found(rt.plural, rt.group, name)
            result.setdefault("metadata", {}).pop("managedFields", None)
            return self.create(rt, result, namespace=namespace, manager=manager, dry_run=dry_run,
                               _managed=managed), True
        rmd = result.setdefault("metadata", {})
        rmd["resourceVersion"] = live["metadata"]["resourceVersion"]
        return self.update(rt, result, namespace=namespace, subresource=subresource, manager=manager,
                           dry_run=dry_run, _managed=managed), False

    # -- eviction -----------------------------------------------------------------------------------------------
    def evict(self, name: str, namespace: str, *, delete_options: dict[str, Any] | None = None,
              dry_run: bool = False) -> dict[str, Any]:
        """The pods/eviction subresource (what ``kubectl drain`` calls): refuse with 429 when a matching
        PodDisruptionBudget allows no disruption, else count the disruption on the budget and delete the pod
        (pkg/registry/core/pod/storage/eviction.go). Returns the Status body."""
        from .compat import label_selector_from_dict

        pods = self._rt("pods")
        pod = self.raw_get(pods, name, namespace)
        opts = delete_options or {}
        phase = (pod.get("status") or {}).get("phase")
        # terminal, pending and already-deleting pods are evicted without consulting budgets
        if phase not in ("Succeeded", "Failed", "Pending") and not pod["metadata"].get("deletionTimestamp"):
            labels = pod["metadata"].get("labels") or {}
            pdbs = [p for p in self.raw_list(self._rt("poddisruptionbudgets"), namespace)[0]
                    if (p.get("spec") or {}).get("selector") is not None
                    and label_selector_from_dict(p["spec"]["selector"]).matches(labels)]
            if len(pdbs) > 1:
                raise errors.ApiError(500, "InternalError", "This pod has more than one PodDisruptionBudget, "
                                      "which the eviction subresource does not support.")
            if pdbs:
                pdb = pdbs[0]
                st = pdb.get("status") or {}
                if int(st.get("disruptionsAllowed", 0)) <= 0:
                    raise errors.ApiError(
                        429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.",
                        details={"causes": [{"reason": "DisruptionBudget", "message": (
                            f"The disruption budget {pdb['metadata']['name']} needs "
                            f"{int(st.get('desiredHealthy', 0))} healthy pods and has "
                            f"{int(st.get('currentHealthy', 0))} currently")}]})
                if not dry_run:
                    new = json_copy(pdb)
                    nst = new.setdefault("status", {})
                    nst["disruptionsAllowed"] = int(nst.get("disruptionsAllowed", 0)) - 1
                    nst.setdefault("disruptedPods", {})[name] = self.clock.now_str()
                    self.update("poddisruptionbudgets", new, subresource="status", manager="kube-apiserver")
        grace = opts.get("gracePeriodSeconds")
        self.delete(pods, name, namespace, propagation_policy=opts.get("propagationPolicy"),
                    preconditions=opts.get("preconditions"),
                    grace_period_seconds=int(grace) if grace is not None else None, dry_run=dry_run)
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}

    # -- scale --------------------------------------------------------------------------------------------------
    def get_scale(self, resource: str | ResourceType, name: str, namespace: str | None = None) -> dict[str, Any]:
        rt = self._rt(resource)
        obj = self.raw_get(rt, name, namespace)
        md = obj["metadata"]
        sel = (obj.get("spec") or {}).get("selector") or {}
        sel_s = ",".join(f"{k}={v}" for k, v in sorted((sel.get("matchLabels") or {}).items()))
        for e in sel.get("matchExpressions") or []:
            op = e.get("operator", "")
            if op in ("In", "NotIn"):
                sel_s += ("," if sel_s else "") + f"{e['key']} {op.lower()} ({','.join(e.get('values') or [])})"
            elif op == "Exists":
                sel_s += ("," if sel_s else "") + e["key"]
            elif op == "DoesNotExist":
                sel_s += ("," if sel_s else "") + "!" + e["key"]
        status: dict[str, Any] = {"replicas": (obj.get("status") or {}).get("replicas", 0)}
        if sel_s:
            status["selector"] = sel_s
        return {
            "kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {"name": md["name"], "namespace": md.get("namespace"), "uid": md["uid"],
                         "resourceVersion": md["resourceVersion"], "creationTimestamp": md["creationTimestamp"]},
            "spec": {"replicas": (obj.get("spec") or {}).get("replicas", 0)},
            "status": status,
        }

    def update_scale(self, resource: str | ResourceType, name: str, scale: dict[str, Any], *,
                     namespace: str | None = None, manager: str = DEFAULT_MANAGER,
                     dry_run: bool = False) -> dict[str, Any]:
        rt = self._rt(resource)
        obj = self.get(rt, name, namespace)
        rv = (scale.get("metadata") or {}).get("resourceVersion")
        if rv and rv != obj["metadata"]["resourceVersion"]:
            raise errors.conflict(rt.plural, rt.group, name, errors.MODIFIED)
        replicas = (scale.get("spec") or {}).get("replicas")
        if not isinstance(replicas, int) or replicas < 0:
            raise errors.invalid("Scale", "autoscaling", name, [
                ("spec.replicas", "FieldValueInvalid", f"Invalid value: {replicas}: must be greater than or "
                 "equal to 0")])
        obj.setdefault("spec", {})["replicas"] = replicas
        self.update(rt, obj, namespace=namespace, manager=manager, dry_run=dry_run, subresource="scale")
        if dry_run:
            out = self.get_scale(rt, name, namespace)
            out["spec"]["replicas"] = replicas
            return out
        return self.get_scale(rt, name, namespace)

    # -- delete -------------------------------------------------------------------------------------------------
    def delete(
        self,
        resource: str | ResourceType,
        name: str,
        namespace: str | None = None,
        *,
        propagation_policy: str | None = None,
        preconditions: dict[str, Any] | None = None,
        grace_period_seconds: int | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        rt = self._rt(resource)
        obj = self.raw_get(rt, name, namespace)
        md = obj["metadata"]
        if preconditions:
            if preconditions.get("uid") and preconditions["uid"] != md["uid"]:
                raise errors.conflict(rt.plural, rt.group, name,
                                      f"Precondition failed: UID in precondition: {preconditions['uid']}, "
                                      f"UID in object meta: {md['uid']}")
            if preconditions.get("resourceVersion") and preconditions["resourceVersion"] != md["resourceVersion"]:
                raise errors.conflict(rt.plural, rt.group, name,
                                      f"Precondition failed: ResourceVersion in precondition: "
                                      f"{preconditions['resourceVersion']}, ResourceVersion in object meta: "
                                      f"{md['resourceVersion']}")
        if dry_run:
            return json_copy(obj)
        policy = propagation_policy or ("Orphan" if rt.key == "jobs.batch" else "Background")
        if rt.key == "namespaces":
            return json_copy(self._delete_namespace(obj))
        if md.get("deletionTimestamp"):
            if (rt.key == "pods" and grace_period_seconds == 0 and not md.get("finalizers")):
                return json_copy(self._remove(rt, obj))
            return json_copy(obj)  # already being deleted
        if policy == "Orphan":
            self._orphan_dependents(md["uid"])
        if rt.key == "pods" and self.graceful_delete_hook is not None and grace_period_seconds != 0:
            grace = grace_period_seconds
            if grace is None:
                grace = int((obj.get("spec") or {}).get("terminationGracePeriodSeconds", 30))
            marked = self._mark_deleting(rt, obj, grace=grace)
            if self.graceful_delete_hook(rt, json_copy(marked)):
                return json_copy(marked)
            obj = marked
        dependents = self._live_dependents(md["uid"])
        if policy == "Foreground" and dependents:
            marked = self._mark_deleting(rt, obj, add_finalizer="foregroundDeletion")
            for dep_rt, dep in dependents:
                self._delete_dependent(dep_rt, dep, md["uid"], "Foreground")
            self._maybe_finish_foreground(md["uid"])
            cur = self._tables[rt.key].objects.get(self._key(rt, name, namespace))
            return json_copy(cur if cur is not None else marked)
        if md.get("finalizers"):
            marked = self._mark_deleting(rt, obj)
            if policy == "Background":
                self._collect_dependents(md["uid"])
            return json_copy(marked)
        gone = self._remove(rt, obj)
        if policy == "Background":
            self._collect_dependents(md["uid"])
        return json_copy(gone)

    def delete_collection(
        self,
        resource: str | ResourceType,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        propagation_policy: str | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        rt = self._rt(resource)
        items, _, _ = self.raw_list(rt, namespace, label_selector=label_selector, field_selector=field_selector)
        out = []
        for obj in list(items):
            md = obj["metadata"]
            try:
                out.append(self.delete(rt, md["name"], md.get("namespace"),
                                       propagation_policy=propagation_policy, dry_run=dry_run))
            except errors.ApiError as e:
                if e.code != 404:
                    raise
        return {"kind": rt.list_kind, "apiVersion": rt.api_version,
                "metadata": {"resourceVersion": str(self.resource_version)}, "items": out}

    def _mark_deleting(self, rt: ResourceType, obj: dict[str, Any], *, add_finalizer: str | None = None,
                       grace: int = 0) -> dict[str, Any]:
        new = json_copy(obj)
        md = new["metadata"]
        if not md.get("deletionTimestamp"):
            md["deletionTimestamp"] = self.clock.now_str()
            md["deletionGracePeriodSeconds"] = grace
        if add_finalizer and add_finalizer not in (md.get("finalizers") or []):
            md["finalizers"] = (md.get("finalizers") or []) + [add_finalizer]
        if new == obj:
            return obj
        md["resourceVersion"] = str(self._next_rv())
        self._store(rt, new, "MODIFIED", obj)
        return new

    def _live_dependents(self, owner_uid: str) -> builtins.list[tuple[ResourceType, dict[str, Any]]]:
        out = []
        for uid in sorted(self._dependents.get(owner_uid, ())):
            loc = self._by_uid.get(uid)
            if loc is None:
                continue
            rt, key = loc
            obj = self._tables[rt.key].objects.get(key)
            if obj is not None:
                out.append((rt, obj))
        return out

    def _owner_exists(self, uid: str) -> bool:
        loc = self._by_uid.get(uid)
        return loc is not None and loc[1] in self._tables[loc[0].key].objects

    def _orphan_dependents(self, owner_uid: str) -> None:
        for rt, dep in self._live_dependents(owner_uid):
            new = json_copy(dep)
            refs = [r for r in new["metadata"].get("ownerReferences") or [] if r.get("uid") != owner_uid]
            if refs:
                new["metadata"]["ownerReferences"] = refs
            else:
                new["metadata"].pop("ownerReferences", None)
            new["metadata"]["resourceVersion"] = str(self._next_rv())
            self._store(rt, new, "MODIFIED", dep)

    def _collect_dependents(self, owner_uid: str) -> None:
        """Background garbage collection: dependents whose owners are all gone are deleted (cascading);
        a dependent with a surviving owner only loses the dangling reference."""
        for rt, dep in self._live_dependents(owner_uid):
            self._delete_dependent(rt, dep, owner_uid, "Background")
        self._dependents.pop(owner_uid, None)

    def _delete_dependent(self, rt: ResourceType, dep: dict[str, Any], owner_uid: str, policy: str) -> None:
        refs = dep["metadata"].get("ownerReferences") or []
        if any(r.get("uid") != owner_uid and self._owner_exists(r.get("uid", "")) for r in refs):
            self._orphan_dependents_single(rt, dep, owner_uid)
            return
        md = dep["metadata"]
        try:
            self.delete(rt, md["name"], md.get("namespace"), propagation_policy=policy)
        except errors.ApiError:
            pass

    def _orphan_dependents_single(self, rt: ResourceType, dep: dict[str, Any], owner_uid: str) -> None:
        new = json_copy(dep)
        new["metadata"]["ownerReferences"] = [r for r in new["metadata"]["ownerReferences"]
                                              if r.get("uid") != owner_uid]
        new["metadata"]["resourceVersion"] = str(self._next_rv())
        self._store(rt, new, "MODIFIED", dep)

    def _maybe_finish_foreground(self, owner_uid: str | None) -> None:
        if not owner_uid:
            return
        loc = self._by_uid.get(owner_uid)
        if loc is None:
            return
        rt, key = loc
        owner = self._tables[rt.key].objects.get(key)
        if owner is None or "foregroundDeletion" not in (owner["metadata"].get("finalizers") or []):
            return
        if self._live_dependents(owner_uid):
            return
        new = json_copy(owner)
        fins = [f for f in new["metadata"]["finalizers"] if f != "foregroundDeletion"]
        if fins:
            new["metadata"]["finalizers"] = fins
        else:
            new["metadata"].pop("finalizers", None)
        self._commit_update(rt, owner, new, False)

    # -- namespaces ---------------------------------------------------------------------------------------------
    def _namespace_created(self, ns: dict[str, Any]) -> None:
        """What the serviceaccount and root-CA publisher controllers do for every new namespace."""
        name = ns["metadata"]["name"]
        self.create("serviceaccounts", {"metadata": {"name": "default", "namespace": name}},
                    manager="kube-controller-manager")
        self.create("configmaps", {"metadata": {"name": "kube-root-ca.crt", "namespace": name,
                                                "annotations": {"kubernetes.io/description": (
                                                    "Contains a CA bundle that can be used to verify the "
                                                    "kube-apiserver when using internal endpoints such as the "
                                                    "internal service IP or kubernetes.default.svc. No other "
                                                    "usage is guaranteed across distributions of Kubernetes "
                                                    "clusters.")}},
                                   "data": {"ca.crt": getattr(self, "ca_pem", "")}},
                    manager="kube-controller-manager")

    def _delete_namespace(self, ns: dict[str, Any]) -> dict[str, Any]:
        if ns["metadata"].get("deletionTimestamp"):
            return ns
        new = json_copy(ns)
        new["metadata"]["deletionTimestamp"] = self.clock.now_str()
        new["metadata"]["deletionGracePeriodSeconds"] = 0
        new.setdefault("status", {})["phase"] = "Terminating"
        new["metadata"]["resourceVersion"] = str(self._next_rv())
        rt = self._rt("namespaces")
        self._store(rt, new, "MODIFIED", ns)
        name = new["metadata"]["name"]
        try:
            loop = asyncio.get_running_loop()
            loop.call_later(self.namespace_finalize_delay, self._finalize_namespace, name)
        except RuntimeError:
            self._finalize_namespace(name)
        return new

    def _finalize_namespace(self, name: str) -> None:
        """The namespace controller: delete everything in it, then let the namespace go."""
        for rt in self.registry.resources:
            if not rt.namespaced or rt.kind in ("SelfSubjectRulesReview",):
                continue
            for obj in list(self.raw_list(rt, name)[0]):
                try:
                    self.delete(rt, obj["metadata"]["name"], name, propagation_policy="Background")
                except errors.ApiError:
                    pass
        self._maybe_finish_namespace(name)

    def _maybe_finish_namespace(self, name: str) -> None:
        ns = self._tables["namespaces"].objects.get(("", name))
        if ns is None or not ns["metadata"].get("deletionTimestamp"):
            return
        for rt in self.registry.resources:
            if rt.namespaced and any(k[0] == name for k in self._tables[rt.key].objects):
                return
        if ns["metadata"].get("finalizers"):
            return
        self._remove(self._rt("namespaces"), ns)

    # ------------------------------------------------------------------------------------------------------
    # watching
    def subscribe(self, callback: Callable[[WatchEvent], None]) -> Callable[[], None]:
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def watch(
        self,
        resource: str | ResourceType,
        namespace: str | None = None,
        *,
        resource_version: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        send_initial_events: bool | None = None,
        allow_bookmarks: bool = False,
    ) -> Watch:
        rt = self._rt(resource)
        w = Watch(self, rt, namespace if rt.namespaced else None, self._label_selector(label_selector),
                  self._field_selector(rt, field_selector))
        initial = send_initial_events if send_initial_events is not None else resource_version in (None, "", "0")
        if initial:
            items, _, _ = self.raw_list(rt, w.namespace)
            for obj in items:
                if w.matches(obj):
                    w._put(WatchEvent("ADDED", obj, int(obj["metadata"]["resourceVersion"]), rt))
            if send_initial_events and allow_bookmarks:
                w._put(WatchEvent("BOOKMARK", {
                    "kind": rt.kind, "apiVersion": rt.api_version,
                    "metadata": {"resourceVersion": str(self.resource_version),
                                 "annotations": {INITIAL_EVENTS_END: "true"}}}, self.resource_version, rt))
        elif resource_version not in (None, "", "0"):
            try:
                since = int(resource_version)  # type: ignore[arg-type]
            except ValueError:
                raise errors.bad_request(f"invalid resource version: {resource_version}") from None
            if since < self._history_floor:
                raise errors.expired(f"too old resource version: {since} ({self._history_floor + 1})")
            for ev in self._history:
                if ev.resource_version > since and ev.resource.key == rt.key:
                    w.offer(ev)
        self._watchers.setdefault(rt.key, set()).add(w)
        return w

    def bookmark(self, rt: ResourceType) -> dict[str, Any]:
        return {"kind": rt.kind, "apiVersion": rt.api_version,
                "metadata": {"resourceVersion": str(self.resource_version)}}

    def next_ip(self, prefix: str = "10.96.") -> str:
        self._ip_counter += 1
        n = self._ip_counter
        return f"{prefix}{n // 250}.{n % 250 + 1}"
