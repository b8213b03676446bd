"""Event recording for the embedded cluster's kubelet and controllers (core/v1 Events with aggregation).

Why: ``kubectl describe`` and ``kubectl get events`` read core/v1 Events; the kubelet's recorder (client-go
tools/record) aggregates a repeated (object, reason, message, source) into one Event whose ``count`` and
``lastTimestamp`` move; the scheduler uses the events.k8s.io/v1 API, which a real API server also serves as
core/v1 (``eventTime``, ``reportingComponent``, ``action``, ``series``). Both shapes are written here as
core/v1 objects, since the store keeps the two groups apart.
Must not: invent reasons or messages (callers pass constants from ``messages.py``); read the host clock.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pytest_simian.sim.clock import format_micro_time, format_time

__all__ = ["EventRecorder", "involved"]


def involved(obj: dict[str, Any], field_path: str = "") -> dict[str, Any]:
    md = obj.get("metadata", {})
    ref = {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj.get("kind", "Pod"), "name": md.get("name"),
           "namespace": md.get("namespace"), "resourceVersion": md.get("resourceVersion"), "uid": md.get("uid")}
    if field_path:
        ref["fieldPath"] = field_path
    return {k: v for k, v in ref.items() if v is not None}


class EventRecorder:
    def __init__(self, store: Any, component: str, host: str = "", *, series: bool = False,
                 action: str = "") -> None:
        self.store = store
        self.component = component
        self.host = host
        self.series = series  # events.k8s.io style (scheduler)
        self.action = action
        self._seen: dict[tuple[str, ...], str] = {}
        self._n = 0

    def record(self, obj: dict[str, Any], type_: str, reason: str, message: str, *, field_path: str = "",
               at: float | None = None, action: str | None = None) -> None:
        t = self.store.clock.timestamp() if at is None else at
        dt = datetime.fromtimestamp(t, UTC)
        ref = involved(obj, field_path)
        ns = ref.get("namespace") or "default"
        key = (ns, ref.get("uid", ""), field_path, reason, message, type_)
        name = self._seen.get(key)
        ev: dict[str, Any] | None
        if name is not None:
            ev = self.store.get_or_none("events", name, ns)
            if ev is not None:
                if self.series:
                    s = ev.get("series") or {"count": 1}
                    ev["series"] = {"count": int(s.get("count", 1)) + 1, "lastObservedTime": format_micro_time(dt)}
                else:
                    ev["count"] = int(ev.get("count", 1)) + 1
                    ev["lastTimestamp"] = format_time(dt)
                try:
                    self.store.update("events", ev, namespace=ns, manager=self.component)
                    return
                except Exception:  # noqa: BLE001 - a concurrent delete: record a fresh one
                    pass
        self._n += 1
        name = f"{ref.get('name', 'x')}.{int(t * 1e9) + self._n:x}"
        ev = {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": ns},
            "involvedObject": ref, "reason": reason, "message": message, "type": type_,
            "reportingComponent": self.component, "reportingInstance": self.host,
        }
        if self.series:
            ev.update({"eventTime": format_micro_time(dt), "action": action or self.action,
                       "source": {}, "firstTimestamp": None, "lastTimestamp": None})
        else:
            ev.update({"source": {"component": self.component, **({"host": self.host} if self.host else {})},
                       "firstTimestamp": format_time(dt), "lastTimestamp": format_time(dt), "count": 1,
                       "eventTime": None})
        try:
            self.store.create("events", ev, namespace=ns, manager=self.component)
            self._seen[key] = name
        except Exception:  # noqa: BLE001 - namespace terminating: events are best effort, as upstream
            pass
