"""The arena: exclusive holds on namespaces (or the whole cluster), coordinated through the cluster.

Why: two scenarios must never share a namespace, and a control (which expects nothing) must never run
beside a live fault, or it would see real breakage, report it, and be scored as having invented it. Holds
are coordination.k8s.io Lease objects in a neutral namespace, created atomically (a second create is a
409), renewed while held and taken over only once stale, so they hold across xdist workers and runs that
share one cluster. A fault attempt holds each namespace it touches; a control holds the cluster, and
waits until no namespace hold is live.

Only namespaces the rig created are deleted. A named namespace that already existed is annotated as an
arena, left standing, and logged. A namespace the rig creates carries the managed label, the attempt as
its bundle and an expiry, so a dead runner's namespace is found by the next run's reaper.
Must not: delete a namespace it did not create, or name a fault in a hold's name or holder.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pytest_simian import clock
from pytest_simian.cluster.kube import KubeError
from pytest_simian.leases import (
    BUNDLE,
    EXPIRES_AT,
    MANAGED,
    expiry_after,
    format_expiry,
    parse_expiry,
)
from pytest_simian.record.events import ARENA_ADOPTED, ARENA_HELD, ARENA_RELEASED

HOLD_NAMESPACE = "kube-system"
"""Where hold Leases live: it always exists and is full of leader-election Leases already."""
ELIGIBLE = "simian.chaos/eligible"
"""Annotation a pre-existing namespace gets when an attempt uses it (upstream's arena mark)."""
HOLD_PREFIX = "arena-"
CLUSTER_HOLD = "arena-cluster"



class ArenaError(Exception):
    """A hold could not be taken before its deadline, or a namespace could not be made or removed."""


def holder_identity(token: str) -> str:
    return f"{socket.gethostname()}/{os.getpid()}/{token}"


class HoldLocks:
    """Named exclusive locks as Lease objects: atomic create, renew while held, stale takeover."""

    def __init__(self, kube: Any, *, namespace: str = HOLD_NAMESPACE, ttl: float = 60.0,
                 now: Callable[[], datetime] = clock.wall_now) -> None:
        self.kube = kube
        self.namespace = namespace
        self.ttl = ttl
        self.now = now
        self._res: Any = None
        self._held: dict[str, str] = {}
        self._lock = threading.Lock()
        self._renewer: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def res(self) -> Any:
        if self._res is None:
            self._res = self.kube.for_kind("coordination.k8s.io/v1", "Lease")
        return self._res

    def _body(self, name: str, holder: str) -> dict[str, Any]:
        now = self.now()
        return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": name, "namespace": self.namespace,
                             "annotations": {EXPIRES_AT: format_expiry(expiry_after(self.ttl, now))}},
                "spec": {"holderIdentity": holder, "leaseDurationSeconds": int(self.ttl)}}

    def stale(self, obj: dict[str, Any]) -> bool:
        exp = parse_expiry(((obj.get("metadata") or {}).get("annotations") or {}).get(EXPIRES_AT))
        return exp is None or exp < self.now()

    def try_acquire(self, name: str, holder: str) -> bool:
        try:
            self.kube.create(self.res, self.namespace, self._body(name, holder))
        except KubeError as exc:
            if not exc.conflict:
                raise
            cur = self.kube.get_or_none(self.res, self.namespace, name)
            if cur is None:
                return self.try_acquire(name, holder)
            if (cur.get("spec") or {}).get("holderIdentity") == holder:
                pass  # already ours (a retried acquire)
            elif self.stale(cur):
                try:  # take over a dead holder's lock, only if nobody renewed it meanwhile
                    self.kube.delete(self.res, self.namespace, name, propagation=None,
                                     resource_version=cur["metadata"]["resourceVersion"])
                except KubeError:
                    return False
                return self.try_acquire(name, holder)
            else:
                return False
        with self._lock:
            self._held[name] = holder
        self._ensure_renewer()
        return True

    def release(self, name: str) -> None:
        with self._lock:
            holder = self._held.pop(name, None)
        if holder is None:
            return
        cur = self.kube.get_or_none(self.res, self.namespace, name)
        if cur is not None and (cur.get("spec") or {}).get("holderIdentity") == holder:
            try:
                self.kube.delete(self.res, self.namespace, name, propagation=None,
                                 resource_version=cur["metadata"]["resourceVersion"])
            except KubeError as exc:
                if not exc.not_found:
                    raise

    def live(self, prefix: str) -> list[dict[str, Any]]:
        """Holds whose name starts with `prefix` and that are not stale."""
        items = self.kube.list(self.res, self.namespace)
        return [i for i in items if i["metadata"]["name"].startswith(prefix) and not self.stale(i)]

    def reap_stale(self, prefixes: tuple[str, ...] = (HOLD_PREFIX, "slot-")) -> list[str]:
        """Delete holds whose holder stopped renewing them (a runner that died): only if still stale at the
        resourceVersion read."""
        gone = []
        for item in self.kube.list(self.res, self.namespace):
            name = item["metadata"]["name"]
            if not name.startswith(prefixes) or not self.stale(item):
                continue
            try:
                self.kube.delete(self.res, self.namespace, name, propagation=None,
                                 resource_version=item["metadata"]["resourceVersion"])
                gone.append(name)
            except KubeError:
                continue
        return gone

    def renew_all(self) -> None:
        with self._lock:
            held = dict(self._held)
        for name, holder in held.items():
            cur = self.kube.get_or_none(self.res, self.namespace, name)
            if cur is None or (cur.get("spec") or {}).get("holderIdentity") != holder:
                continue
            cur["metadata"].setdefault("annotations", {})[EXPIRES_AT] = format_expiry(expiry_after(self.ttl,
                                                                                                   self.now()))
            try:
                self.kube.replace(self.res, self.namespace, cur)
            except KubeError:
                continue

    def _ensure_renewer(self) -> None:
        if self._renewer is not None:
            return

        def loop() -> None:
            while not self._stop.wait(max(1.0, self.ttl / 4)):
                try:
                    self.renew_all()
                except Exception:  # noqa: BLE001 - the next tick retries
                    pass

        self._renewer = threading.Thread(target=loop, name="simian-arena-renew", daemon=True)
        self._renewer.start()

    def close(self) -> None:
        self._stop.set()
        for name in list(self._held):
            try:
                self.release(name)
            except Exception:  # noqa: BLE001 - best effort at shutdown; holds go stale by themselves
                pass


@dataclass
class ArenaHold:
    """What one attempt holds."""

    attempt_id: str
    namespaces: list[str]
    control: bool
    locks: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    adopted: list[str] = field(default_factory=list)
    released: bool = False


class Arena:
    """Takes and gives back holds; creates and deletes the namespaces the rig makes."""

    def __init__(self, kube: Any, audit: Any, *, locks: HoldLocks | None = None, holder_token: str = "",
                 wait_timeout: float = 1800.0, poll: float = 1.0, sleep: Callable[[float], None] = time.sleep,
                 monotonic: Callable[[], float] = clock.monotonic, progress: Callable[[str], None] | None = None,
                 cluster_clock: Any = None) -> None:
        self.kube = kube
        self.audit = audit
        self.locks = locks or HoldLocks(kube)
        self.holder_token = holder_token or os.urandom(4).hex()
        self.wait_timeout = wait_timeout
        self.poll = poll
        self.sleep = sleep
        self.monotonic = monotonic
        self.progress = progress or (lambda _line: None)
        self.cluster_clock = cluster_clock

    def holder(self, attempt_id: str) -> str:
        return holder_identity(f"{self.holder_token}/{attempt_id}")

    # ---------------------------------------------------------------- holds

    def enter(self, attempt_id: str, namespaces: Iterable[str], *, control: bool, expires_at: datetime,
              progress: Callable[[str], None] | None = None) -> ArenaHold:
        say = progress or self.progress
        hold = ArenaHold(attempt_id, sorted(set(namespaces)), control)
        holder = self.holder(attempt_id)
        deadline = self.monotonic() + self.wait_timeout
        said = False
        while True:
            if self._try_take(hold, holder):
                break
            if self.monotonic() >= deadline:
                raise ArenaError(f"could not hold {', '.join(hold.namespaces) or 'the cluster'} within "
                                 f"{self.wait_timeout:.0f}s: another attempt holds it")
            if not said:
                say("waiting for the arena: " + ("the whole cluster (control)" if control
                                                   else ", ".join(hold.namespaces)))
                said = True
            self.sleep(self.poll)
        try:
            self._prepare_namespaces(hold, expires_at)
        except Exception:
            self.leave(hold)
            raise
        self.audit.emit(ARENA_HELD, payload={"namespaces": hold.namespaces, "control": control,
                                             "created": hold.created, "adopted": hold.adopted})
        return hold

    def _try_take(self, hold: ArenaHold, holder: str) -> bool:
        taken: list[str] = []

        def give_back() -> bool:
            for name in reversed(taken):
                self.locks.release(name)
            return False

        if hold.control:
            if not self.locks.try_acquire(CLUSTER_HOLD, holder):
                return False
            taken.append(CLUSTER_HOLD)
        # namespace holds, in name order (no two attempts wait on each other's halves)
        for ns in hold.namespaces:
            name = HOLD_PREFIX + "ns-" + ns
            if not self.locks.try_acquire(name, holder):
                return give_back()
            taken.append(name)
        if hold.control:
            others = [h for h in self.locks.live(HOLD_PREFIX + "ns-")
                      if (h.get("spec") or {}).get("holderIdentity") != holder]
            if others:
                return give_back()
        else:
            cluster = [h for h in self.locks.live(CLUSTER_HOLD)
                       if (h.get("spec") or {}).get("holderIdentity") != holder]
            if cluster:
                return give_back()
        hold.locks = taken
        return True

    def leave(self, hold: ArenaHold, *, delete_timeout: float = 120.0) -> list[str]:
        """Delete the namespaces the rig created (waiting until they are gone), then release the holds.
        Returns what could not be removed."""
        if hold.released:
            return []
        problems = self._remove_created(hold, delete_timeout)
        for name in reversed(hold.locks):
            try:
                self.locks.release(name)
            except Exception as exc:  # noqa: BLE001 - report, keep releasing
                problems.append(f"hold {name}: {exc}")
        hold.released = True
        try:
            self.audit.emit(ARENA_RELEASED, payload={"namespaces": hold.namespaces, "deleted": hold.created,
                                                     **({"problems": problems} if problems else {})})
        except OSError:  # the audit log is closed (shutdown after an interrupt): the release happened
            pass
        return problems

    # ---------------------------------------------------------------- namespaces

    def _ns_res(self) -> Any:
        return self.kube.for_kind("v1", "Namespace")

    def _prepare_namespaces(self, hold: ArenaHold, expires_at: datetime) -> None:
        res = self._ns_res()
        for ns in hold.namespaces:
            cur = self.kube.get_or_none(res, None, ns)
            if cur is not None and (cur.get("metadata") or {}).get("deletionTimestamp"):
                self._wait_gone(res, ns, 120.0)
                cur = None
            if cur is None:
                body = {"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": ns, "labels": {MANAGED: "true", BUNDLE: hold.attempt_id},
                                     "annotations": {EXPIRES_AT: format_expiry(expires_at)}}}
                try:
                    self.kube.create(res, None, body)
                except KubeError as exc:
                    if not exc.conflict:
                        raise
                hold.created.append(ns)
                continue
            labels = (cur.get("metadata") or {}).get("labels") or {}
            if labels.get(MANAGED) == "true":
                # a namespace an earlier (dead) attempt of the rig made: ours to renew and remove
                self.kube.merge_patch(res, None, ns, {"metadata": {
                    "labels": {BUNDLE: hold.attempt_id}, "annotations": {EXPIRES_AT: format_expiry(expires_at)}}})
                hold.created.append(ns)
                continue
            self.kube.merge_patch(res, None, ns, {"metadata": {"annotations": {ELIGIBLE: "true"}}})
            hold.adopted.append(ns)
            self.audit.emit(ARENA_ADOPTED, payload={
                "namespace": ns, "why": "the namespace already existed: it is used as an arena and left standing"})

    def _wait_gone(self, res: Any, name: str, timeout: float) -> bool:
        deadline = self.monotonic() + timeout
        while self.kube.get_or_none(res, None, name) is not None:
            if self.monotonic() >= deadline:
                return False
            if self.cluster_clock is not None:
                self.cluster_clock.advance(2.0)
                self.sleep(0.05)
            else:
                self.sleep(self.poll)
        return True

    def _remove_created(self, hold: ArenaHold, timeout: float) -> list[str]:
        res = self._ns_res()
        problems: list[str] = []
        for ns in hold.created:
            cur = self.kube.get_or_none(res, None, ns)
            if cur is None:
                continue
            labels = (cur.get("metadata") or {}).get("labels") or {}
            if labels.get(MANAGED) != "true":
                problems.append(f"namespace {ns} is no longer marked as the rig's; left standing")
                continue
            try:
                self.kube.delete(res, None, ns, propagation="Background")
            except KubeError as exc:
                problems.append(f"namespace {ns}: {exc}")
                continue
        for ns in hold.created:
            if not self._wait_gone(res, ns, timeout):
                problems.append(f"namespace {ns} still exists {timeout:.0f}s after its deletion")
        return problems

    def close(self) -> None:
        self.locks.close()
