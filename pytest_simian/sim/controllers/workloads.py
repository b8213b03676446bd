"""ReplicaSet and Deployment controllers of the embedded cluster.

Why: ``kubectl rollout status``, ``get deploy`` (READY/UP-TO-DATE/AVAILABLE) and subjects read the status and
conditions these controllers write: ReplicaSets create and delete pods (SuccessfulCreate events) and count
ready/available ones; Deployments own a ReplicaSet per pod-template hash, roll with maxSurge/maxUnavailable
(or Recreate), keep revision history, and report Available and Progressing, including
ProgressDeadlineExceeded (``ReplicaSet "x" has timed out progressing.``).
Must not: read the host clock (virtual time from ``store.clock``); delete objects it does not own.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from pytest_simian.sim import messages as M
from pytest_simian.sim.controllers.base import (
    controller_ref,
    now_str,
    owned_by,
    pod_active,
    pod_ready,
    pod_ready_since,
    run_loop,
    set_condition,
    template_hash,
    ts,
)
from pytest_simian.sim.eventrecorder import EventRecorder

__all__ = ["ReplicaSetController", "DeploymentController"]

REVISION = "deployment.kubernetes.io/revision"


def _labels_match(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    ml = selector.get("matchLabels") or {}
    if any(labels.get(k) != v for k, v in ml.items()):
        return False
    for e in selector.get("matchExpressions") or []:
        k, op, vals = e.get("key"), e.get("operator"), e.get("values") or []
        if op == "In" and labels.get(k) not in vals:
            return False
        if op == "NotIn" and labels.get(k) in vals:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
    return bool(ml or selector.get("matchExpressions"))


class ReplicaSetController:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.recorder = EventRecorder(store, "replicaset-controller")

    async def run(self) -> None:
        await run_loop(self.store, self.reconcile, {"ReplicaSet", "Pod"})

    def reconcile(self) -> float | None:
        now = self.store.clock.timestamp()
        pods = self.store.view("pods")
        wake: list[float] = []
        for rs in self.store.items("replicasets"):
            if rs["metadata"].get("deletionTimestamp"):
                continue
            nxt = self._sync(rs, pods, now)
            if nxt is not None:
                wake.append(nxt)
        return min(wake) if wake else None

    def _sync(self, rs: dict[str, Any], pods: list[dict[str, Any]], now: float) -> float | None:
        spec = rs.get("spec") or {}
        ns = rs["metadata"]["namespace"]
        mine = [p for p in pods if p["metadata"]["namespace"] == ns and owned_by(p, rs)]
        active = [p for p in mine if pod_active(p)]
        want = int(spec.get("replicas", 1))
        if len(active) < want:
            for _ in range(want - len(active)):
                self._create_pod(rs)
        elif len(active) > want:
            # delete the least useful first: unscheduled, not running, not ready, youngest
            def rank(p: dict[str, Any]) -> tuple[int, int, int, float]:
                st = p.get("status") or {}
                return (1 if (p.get("spec") or {}).get("nodeName") else 0,
                        1 if st.get("phase") == "Running" else 0, 1 if pod_ready(p) else 0,
                        -ts(p["metadata"].get("creationTimestamp")))
            for p in sorted(active, key=rank)[: len(active) - want]:
                self.store.delete("pods", p["metadata"]["name"], ns)
                self.recorder.record(rs, "Normal", M.REASON_SUCCESSFUL_DELETE,
                                     M.MSG_DELETED_POD.format(name=p["metadata"]["name"]))
        pods_now = [p for p in self.store.view("pods", ns) if owned_by(p, rs) and pod_active(p)]
        min_ready = float(spec.get("minReadySeconds", 0))
        ready = [p for p in pods_now if pod_ready(p)]
        available = [p for p in ready if now - (pod_ready_since(p) or now) >= min_ready]
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        fully = [p for p in pods_now if all((p["metadata"].get("labels") or {}).get(k) == v for k, v in labels.items())]
        status: dict[str, Any] = {"replicas": len(pods_now)}
        if fully:
            status["fullyLabeledReplicas"] = len(fully)
        if ready:
            status["readyReplicas"] = len(ready)
        if available:
            status["availableReplicas"] = len(available)
        status["observedGeneration"] = rs["metadata"].get("generation", 1)
        old = rs.get("status") or {}
        if any(k in old for k in ("terminatingReplicas",)):
            status["terminatingReplicas"] = old["terminatingReplicas"]
        if status != old:
            obj = copy.deepcopy(rs)
            obj["status"] = status
            self.store.update_status("replicasets", obj, namespace=ns, manager="kube-controller-manager")
        pending = [pod_ready_since(p) for p in ready if p not in available]
        return min(t + min_ready for t in pending if t is not None) if pending else None

    def _create_pod(self, rs: dict[str, Any]) -> None:
        tmpl = copy.deepcopy((rs.get("spec") or {}).get("template") or {})
        md = tmpl.get("metadata") or {}
        pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"generateName": rs["metadata"]["name"] + "-", "namespace": rs["metadata"]["namespace"],
                            "labels": dict(md.get("labels") or {}), "ownerReferences": [controller_ref(rs)]},
               "spec": tmpl.get("spec") or {}}
        if md.get("annotations"):
            pod["metadata"]["annotations"] = dict(md["annotations"])
        created = self.store.create("pods", pod, namespace=rs["metadata"]["namespace"],
                                    manager="kube-controller-manager")
        self.recorder.record(rs, "Normal", M.REASON_SUCCESSFUL_CREATE,
                             M.MSG_CREATED_POD.format(name=created["metadata"]["name"]))


def _int_or_percent(v: Any, total: int, round_up: bool) -> int:
    if isinstance(v, int):
        return v
    s = str(v)
    if s.endswith("%"):
        x = int(s[:-1]) * total / 100
        return math.ceil(x) if round_up else math.floor(x)
    return int(s)


class DeploymentController:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.recorder = EventRecorder(store, "deployment-controller")

    async def run(self) -> None:
        await run_loop(self.store, self.reconcile, {"Deployment", "ReplicaSet", "Pod"})

    def reconcile(self) -> float | None:
        wake: list[float] = []
        for d in self.store.items("deployments"):
            if d["metadata"].get("deletionTimestamp"):
                continue
            nxt = self._sync(d)
            if nxt is not None:
                wake.append(nxt)
        return min(wake) if wake else None

    def _sync(self, d: dict[str, Any]) -> float | None:
        ns = d["metadata"]["namespace"]
        spec = d.get("spec") or {}
        replicas = int(spec.get("replicas", 1))
        tmpl = spec.get("template") or {}
        h = template_hash(tmpl)
        rss = [rs for rs in self.store.items("replicasets", ns) if owned_by(rs, d)]
        new_rs = next((rs for rs in rss if (rs["metadata"].get("labels") or {}).get("pod-template-hash") == h), None)
        olds = [rs for rs in rss if rs is not new_rs]
        max_rev = max([int((rs["metadata"].get("annotations") or {}).get(REVISION, "0")) for rs in rss] or [0])
        created = False
        if new_rs is None:
            new_rs = self._create_rs(d, h, max_rev + 1, olds, replicas)
            created = True
        elif int((new_rs["metadata"].get("annotations") or {}).get(REVISION, "0")) < max_rev:
            new_rs["metadata"].setdefault("annotations", {})[REVISION] = str(max_rev + 1)
            new_rs = self.store.update("replicasets", new_rs, namespace=ns, manager="kube-controller-manager")
        strategy = (spec.get("strategy") or {})
        paused = bool(spec.get("paused"))
        if not paused:
            if strategy.get("type") == "Recreate":
                self._recreate(d, new_rs, olds, replicas)
            else:
                self._rolling(d, new_rs, olds, replicas, strategy.get("rollingUpdate") or {})
            self._cleanup(d, olds, int(spec.get("revisionHistoryLimit", 10)))
        return self._status(d, created)

    def _create_rs(self, d: dict[str, Any], h: str, revision: int, olds: list[dict[str, Any]],
                   replicas: int) -> dict[str, Any]:
        ns = d["metadata"]["namespace"]
        spec = d.get("spec") or {}
        tmpl = copy.deepcopy(spec.get("template") or {})
        tmpl.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = h
        sel = copy.deepcopy(spec.get("selector") or {})
        sel.setdefault("matchLabels", {})["pod-template-hash"] = h
        surge = _int_or_percent((spec.get("strategy") or {}).get("rollingUpdate", {}).get("maxSurge", "25%"),
                                replicas, True)
        start = 0
        old_total = sum(int((rs.get("spec") or {}).get("replicas", 0)) for rs in olds)
        if (spec.get("strategy") or {}).get("type") != "Recreate":
            start = max(0, min(replicas, replicas + surge - old_total))
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
              "metadata": {"name": f"{d['metadata']['name']}-{h}", "namespace": ns,
                           "labels": dict(tmpl["metadata"]["labels"]),
                           "annotations": {"deployment.kubernetes.io/desired-replicas": str(replicas),
                                           "deployment.kubernetes.io/max-replicas": str(replicas + surge),
                                           REVISION: str(revision)},
                           "ownerReferences": [controller_ref(d)]},
              "spec": {"replicas": start, "minReadySeconds": int(spec.get("minReadySeconds", 0)),
                       "selector": sel, "template": tmpl}}
        created = self.store.create("replicasets", rs, namespace=ns, manager="kube-controller-manager")
        if start > 0:
            self.recorder.record(d, "Normal", M.REASON_SCALING_RS, M.MSG_SCALED_RS.format(
                direction="up", name=created["metadata"]["name"], old=0, new=start))
        return created

    def _scale(self, d: dict[str, Any], rs: dict[str, Any], n: int) -> None:
        cur = int((rs.get("spec") or {}).get("replicas", 0))
        if cur == n:
            return
        rs = self.store.get("replicasets", rs["metadata"]["name"], rs["metadata"]["namespace"])
        rs["spec"]["replicas"] = n
        ann = rs["metadata"].setdefault("annotations", {})
        ann["deployment.kubernetes.io/desired-replicas"] = str((d.get("spec") or {}).get("replicas", 1))
        self.store.update("replicasets", rs, namespace=rs["metadata"]["namespace"], manager="kube-controller-manager")
        self.recorder.record(d, "Normal", M.REASON_SCALING_RS, M.MSG_SCALED_RS.format(
            direction="up" if n > cur else "down", name=rs["metadata"]["name"], old=cur, new=n))

    def _available(self, rs: dict[str, Any]) -> int:
        return int((rs.get("status") or {}).get("availableReplicas", 0))

    def _rolling(self, d: dict[str, Any], new_rs: dict[str, Any], olds: list[dict[str, Any]], replicas: int,
                 ru: dict[str, Any]) -> None:
        surge = _int_or_percent(ru.get("maxSurge", "25%"), replicas, True)
        unavail = _int_or_percent(ru.get("maxUnavailable", "25%"), replicas, False)
        if surge == 0 and unavail == 0:
            unavail = 1
        new_spec = int((new_rs.get("spec") or {}).get("replicas", 0))
        old_spec = sum(int((rs.get("spec") or {}).get("replicas", 0)) for rs in olds)
        # scale up the new ReplicaSet within maxSurge
        allowed = replicas + surge - (new_spec + old_spec)
        if new_spec < replicas and allowed > 0:
            target = min(replicas, new_spec + allowed)
            self._scale(d, new_rs, target)
            new_spec = target
        elif new_spec > replicas:
            self._scale(d, new_rs, replicas)
            new_spec = replicas
        # scale down old ReplicaSets within maxUnavailable
        if not olds:
            return
        min_available = replicas - unavail
        new_available = self._available(new_rs)
        old_available = sum(self._available(rs) for rs in olds)
        # unhealthy old replicas can always go
        for rs in olds:
            spec_n = int((rs.get("spec") or {}).get("replicas", 0))
            healthy = self._available(rs)
            if spec_n > healthy:
                self._scale(d, rs, healthy)
                old_spec -= spec_n - healthy
        can_remove = new_available + old_available - min_available
        can_remove = min(can_remove, new_spec + old_spec - min_available) if new_spec + old_spec > min_available \
            else min(can_remove, 0)
        for rs in sorted(olds, key=lambda r: ts(r["metadata"].get("creationTimestamp"))):
            if can_remove <= 0:
                break
            cur = int((self.store.get("replicasets", rs["metadata"]["name"], rs["metadata"]["namespace"])
                       .get("spec") or {}).get("replicas", 0))
            if cur == 0:
                continue
            take = min(cur, can_remove)
            self._scale(d, rs, cur - take)
            can_remove -= take

    def _recreate(self, d: dict[str, Any], new_rs: dict[str, Any], olds: list[dict[str, Any]],
                  replicas: int) -> None:
        for rs in olds:
            self._scale(d, rs, 0)
        ns = d["metadata"]["namespace"]
        still = [p for p in self.store.view("pods", ns) if any(owned_by(p, rs) for rs in olds)]
        if not still:
            self._scale(d, new_rs, replicas)

    def _cleanup(self, d: dict[str, Any], olds: list[dict[str, Any]], limit: int) -> None:
        dead = [rs for rs in olds if int((rs.get("spec") or {}).get("replicas", 0)) == 0
                and int((rs.get("status") or {}).get("replicas", 0)) == 0]
        dead.sort(key=lambda r: int((r["metadata"].get("annotations") or {}).get(REVISION, "0")))
        for rs in dead[: max(0, len(dead) - limit)]:
            self.store.delete("replicasets", rs["metadata"]["name"], rs["metadata"]["namespace"])

    def _status(self, d: dict[str, Any], created: bool) -> float | None:
        ns = d["metadata"]["namespace"]
        spec = d.get("spec") or {}
        replicas = int(spec.get("replicas", 1))
        h = template_hash(spec.get("template") or {})
        rss = [rs for rs in self.store.items("replicasets", ns) if owned_by(rs, d)]
        new_rs = next((rs for rs in rss if (rs["metadata"].get("labels") or {}).get("pod-template-hash") == h), None)
        total = sum(int((rs.get("status") or {}).get("replicas", 0)) for rs in rss)
        ready = sum(int((rs.get("status") or {}).get("readyReplicas", 0)) for rs in rss)
        available = sum(self._available(rs) for rs in rss)
        updated = int((new_rs.get("status") or {}).get("replicas", 0)) if new_rs else 0
        ru = (spec.get("strategy") or {}).get("rollingUpdate") or {}
        unavail = _int_or_percent(ru.get("maxUnavailable", "25%"), replicas, False) \
            if (spec.get("strategy") or {}).get("type") != "Recreate" else 0
        now = now_str(self.store)
        old = d.get("status") or {}
        conds = list(old.get("conditions") or [])
        if available >= replicas - unavail:
            avail_c = {"message": M.MSG_MIN_AVAILABLE, "reason": M.REASON_MIN_AVAILABLE, "status": "True",
                       "type": "Available"}
        else:
            avail_c = {"message": M.MSG_MIN_UNAVAILABLE, "reason": M.REASON_MIN_UNAVAILABLE, "status": "False",
                       "type": "Available"}
        conds = set_condition(conds, avail_c, now, update_time=True)
        rs_name = new_rs["metadata"]["name"] if new_rs else ""
        prog = next((c for c in conds if c.get("type") == "Progressing"), None)
        complete = (new_rs is not None and updated == replicas and available >= replicas and total == replicas
                    and int((new_rs.get("status") or {}).get("availableReplicas", 0)) >= replicas)
        deadline = spec.get("progressDeadlineSeconds")
        wake = None
        if complete:
            pc = {"message": M.MSG_RS_PROGRESSED.format(name=rs_name), "reason": M.REASON_NEW_RS_AVAILABLE,
                  "status": "True", "type": "Progressing"}
            conds = set_condition(conds, pc, now, update_time=True)
        elif prog is None or created:
            pc = {"message": M.MSG_NEW_RS_CREATED.format(name=rs_name), "reason": M.REASON_NEW_RS_CREATED,
                  "status": "True", "type": "Progressing"}
            conds = set_condition(conds, pc, now, update_time=True)
        else:
            progressed = self._progressed(old, updated, ready, available, total)
            if prog.get("reason") == M.REASON_PROGRESS_DEADLINE and not progressed:
                pass
            elif progressed or prog.get("reason") == M.REASON_NEW_RS_AVAILABLE:
                pc = {"message": M.MSG_RS_PROGRESSING.format(name=rs_name), "reason": M.REASON_RS_UPDATED,
                      "status": "True", "type": "Progressing"}
                conds = [c for c in conds if c.get("type") != "Progressing"] + [
                    {**pc, "lastTransitionTime": prog.get("lastTransitionTime", now) if prog.get("status") == "True"
                     else now, "lastUpdateTime": now}]
            if deadline is not None:
                cur = next(c for c in conds if c.get("type") == "Progressing")
                if cur.get("reason") != M.REASON_PROGRESS_DEADLINE:
                    due = ts(cur.get("lastUpdateTime")) + int(deadline)
                    if self.store.clock.timestamp() >= due:
                        pc = {"message": M.MSG_RS_TIMED_OUT.format(name=rs_name),
                              "reason": M.REASON_PROGRESS_DEADLINE, "status": "False", "type": "Progressing"}
                        conds = set_condition(conds, pc, now, update_time=True)
                    else:
                        wake = due
        # Progressing first, then Available, as upstream orders them once both exist
        conds.sort(key=lambda c: {"Progressing": 0, "Available": 1}.get(c.get("type", ""), 2))
        status: dict[str, Any] = {"observedGeneration": d["metadata"].get("generation", 1)}
        if total:
            status["replicas"] = total
        if updated:
            status["updatedReplicas"] = updated
        if ready:
            status["readyReplicas"] = ready
        if available:
            status["availableReplicas"] = available
        if total - available > 0 or replicas - available > 0:
            status["unavailableReplicas"] = max(total, replicas) - available
        status["conditions"] = conds
        if status != old:
            obj = copy.deepcopy(d)
            obj["status"] = status
            self.store.update_status("deployments", obj, namespace=ns, manager="kube-controller-manager")
        return wake

    @staticmethod
    def _progressed(old: dict[str, Any], updated: int, ready: int, available: int, total: int) -> bool:
        return (updated > int(old.get("updatedReplicas", 0)) or ready > int(old.get("readyReplicas", 0))
                or available > int(old.get("availableReplicas", 0)) or total < int(old.get("replicas", 0)))
