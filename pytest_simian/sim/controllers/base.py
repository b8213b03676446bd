"""The level-triggered loop every embedded-cluster controller runs on, plus small shared helpers.

Why: a controller here is a ``reconcile() -> next wake-up (virtual time) | None`` function that reads the
whole state it cares about from the store and writes only what differs. The loop reruns it when a watched
kind changes or its wake-up time comes on the virtual clock, so controllers converge the way the real
informer-driven ones do, and a test can call ``reconcile()`` directly.
Must not: read the host clock; busy-loop (a reconcile that writes nothing must not wake itself).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pytest_simian.sim.clock import format_time, parse_time

__all__ = ["run_loop", "now_str", "ts", "template_hash", "owned_by", "controller_ref", "pod_ready",
           "pod_active", "set_condition", "effective_requests"]

_SAFE = "bcdfghjklmnpqrstvwxz2456789"


async def run_loop(store: Any, reconcile: Callable[[], float | None], kinds: set[str]) -> None:
    kick = asyncio.Event()

    def on_change(ev: Any) -> None:
        if (ev.object or {}).get("kind") in kinds:
            kick.set()

    unsubscribe = store.subscribe(on_change)
    try:
        while True:
            kick.clear()
            nxt = reconcile()
            delay = math.inf if nxt is None else max(0.0, nxt - store.clock.timestamp())
            waiters = {asyncio.ensure_future(kick.wait())}
            if not math.isinf(delay):
                waiters.add(asyncio.ensure_future(store.clock.sleep(delay + 1e-6)))
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for w in waiters:
                    w.cancel()
            await asyncio.sleep(0)
    finally:
        unsubscribe()


def now_str(store: Any) -> str:
    return format_time(datetime.fromtimestamp(store.clock.timestamp(), UTC))


def ts(s: str | None) -> float:
    return parse_time(s).timestamp() if s else 0.0


def template_hash(template: dict[str, Any], collision: int = 0) -> str:
    """pod-template-hash: a stable hash of the template, rendered with rand.SafeEncodeString's alphabet."""
    import json

    h = hashlib.sha256((json.dumps(template, sort_keys=True) + str(collision)).encode()).digest()
    n = int.from_bytes(h[:8], "big")
    out = []
    for _ in range(10):
        n, r = divmod(n, len(_SAFE))
        out.append(_SAFE[r])
    return "".join(out)


def controller_ref(owner: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": owner.get("apiVersion"), "kind": owner.get("kind"), "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}


def owned_by(obj: dict[str, Any], owner: dict[str, Any]) -> bool:
    uid = owner["metadata"]["uid"]
    return any(r.get("uid") == uid and r.get("controller") for r in obj["metadata"].get("ownerReferences") or [])


def pod_ready(pod: dict[str, Any]) -> bool:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def pod_ready_since(pod: dict[str, Any]) -> float | None:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready" and c.get("status") == "True":
            return ts(c.get("lastTransitionTime"))
    return None


def pod_active(pod: dict[str, Any]) -> bool:
    return (not pod["metadata"].get("deletionTimestamp")
            and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"))


def set_condition(conds: list[dict[str, Any]], new: dict[str, Any], now: str, *,
                  update_time: bool = False) -> list[dict[str, Any]]:
    """Replace the condition of new["type"], keeping lastTransitionTime when the status did not change."""
    out = []
    found = False
    for c in conds:
        if c.get("type") != new["type"]:
            out.append(c)
            continue
        found = True
        merged = dict(new)
        same = c.get("status") == new.get("status")
        merged["lastTransitionTime"] = c.get("lastTransitionTime", now) if same else now
        if update_time:
            unchanged = same and c.get("reason") == new.get("reason") and c.get("message") == new.get("message")
            merged["lastUpdateTime"] = c.get("lastUpdateTime", now) if unchanged else now
        out.append(merged)
    if not found:
        merged = dict(new)
        merged["lastTransitionTime"] = now
        if update_time:
            merged["lastUpdateTime"] = now
        out.append(merged)
    return out


def effective_requests(spec: dict[str, Any]) -> dict[str, float]:
    """The pod's resource requests as the scheduler counts them (max of init containers vs sum of containers)."""
    from pytest_simian.sim.containers import parse_quantity

    def req(c: dict[str, Any]) -> dict[str, float]:
        r = (c.get("resources") or {})
        reqs = dict(r.get("limits") or {})
        reqs.update(r.get("requests") or {})
        return {k: parse_quantity(v) for k, v in reqs.items()}

    total: dict[str, float] = {}
    for c in spec.get("containers") or []:
        for k, v in req(c).items():
            total[k] = total.get(k, 0.0) + v
    for c in spec.get("initContainers") or []:
        for k, v in req(c).items():
            total[k] = max(total.get(k, 0.0), v)
    return total
