"""The default-scheduler of the embedded cluster: binds pending pods to nodes or says why it cannot.

Why: a pod that asks for more CPU than a node has, selects no node, or waits on an unbound claim must show
``PodScheduled=False/Unschedulable`` with the real FitError text (``0/1 nodes are available: 1 Insufficient
cpu. preemption: ...``) and FailedScheduling events, and a schedulable one the ``Scheduled`` event.
Filters modelled: node Ready/unschedulable, nodeSelector, resource requests vs allocatable (cpu, memory,
pods), PersistentVolumeClaims (missing, unbound immediate, WaitForFirstConsumer). Not modelled: taints,
affinity, topology spread, preemption itself (the preemption suffix is computed, victims never evicted).
Must not: read the host clock; bind a pod a filter rejects.
"""

from __future__ import annotations

from typing import Any

from pytest_simian.sim import messages as M
from pytest_simian.sim.controllers.base import effective_requests, now_str, pod_active, run_loop, set_condition
from pytest_simian.sim.eventrecorder import EventRecorder
from pytest_simian.sim.names import NODE_NAME
from pytest_simian.sim.store import json_copy

__all__ = ["Scheduler"]

RETRY_UNSCHEDULABLE = 300.0  # podMaxInUnschedulablePodsDuration


class Scheduler:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.recorder = EventRecorder(
            store, "default-scheduler", f"default-scheduler-{NODE_NAME}", series=True, action="Scheduling"
        )
        self.last_attempt: dict[str, tuple[float, str]] = {}

    async def run(self) -> None:
        await run_loop(
            self.store, self.reconcile, {"Pod", "Node", "PersistentVolumeClaim", "StorageClass", "PersistentVolume"}
        )

    def reconcile(self) -> float | None:
        now = self.store.clock.timestamp()
        # read-only views of the store: a pod is copied only when this scheduler writes it
        pods = self.store.view("pods")
        queue = [p for p in pods if not (p.get("spec") or {}).get("nodeName") and not p["metadata"].get(
            "deletionTimestamp") and (p.get("spec") or {}).get("schedulerName", "default-scheduler")
            == "default-scheduler"]
        if not queue:
            self.last_attempt.clear()
            return None
        nodes = self.store.view("nodes")
        pvcs = {
            (p["metadata"]["namespace"], p["metadata"]["name"]): p for p in self.store.view("persistentvolumeclaims")
        }
        classes = {c["metadata"]["name"]: c for c in self.store.view("storageclasses")}
        sig: str | None = None  # computed when first needed, again after each binding of this pass
        usage = self._usage(pods)
        bound: list[dict[str, Any]] = []  # pods this pass bound (the views above do not show them yet)
        wake: list[float] = []
        for pod in queue:
            md = pod["metadata"]
            uid = md["uid"]
            last = self.last_attempt.get(uid)
            if last is not None and now - last[0] < RETRY_UNSCHEDULABLE:
                if sig is None:
                    sig = self._signature(nodes, pods, pvcs, classes, bound)
                if last[1] == sig:  # nothing a filter reads changed since it last failed
                    wake.append(last[0] + RETRY_UNSCHEDULABLE)
                    continue
            node, message = self._schedule(pod, nodes, usage, pvcs, classes)
            if node is not None:
                self._bind(json_copy(pod), node)
                bound.append({"metadata": {"uid": uid}, "spec": {"nodeName": node["metadata"]["name"]}})
                self.last_attempt.pop(uid, None)
                self._account(usage, node["metadata"]["name"], pod)
                sig = None  # recomputed (with this binding) only if a later pod fails
            else:
                if sig is None:
                    sig = self._signature(nodes, pods, pvcs, classes, bound)
                self._fail(json_copy(pod), message)
                self.last_attempt[uid] = (now, sig)
                wake.append(now + RETRY_UNSCHEDULABLE)
        return min(wake) if wake else None

    @staticmethod
    def _usage(pods: list[dict[str, Any]]) -> dict[str, tuple[int, dict[str, float]]]:
        """Per node: how many active pods are bound to it and the sum of their effective requests."""
        usage: dict[str, tuple[int, dict[str, float]]] = {}
        for p in pods:
            name = (p.get("spec") or {}).get("nodeName")
            if name and pod_active(p):
                Scheduler._account(usage, name, p)
        return usage

    @staticmethod
    def _account(usage: dict[str, tuple[int, dict[str, float]]], node: str, pod: dict[str, Any]) -> None:
        count, used = usage.get(node, (0, {}))
        used = dict(used)
        for k, v in effective_requests(pod.get("spec") or {}).items():
            used[k] = used.get(k, 0.0) + v
        usage[node] = (count + 1, used)

    @staticmethod
    def _signature(
        nodes: list[dict[str, Any]],
        pods: list[dict[str, Any]],
        pvcs: dict[Any, dict[str, Any]],
        classes: dict[str, dict[str, Any]],
        bound: list[dict[str, Any]] = [],  # noqa: B006 - read only
    ) -> str:
        """What the filters read, minus our own writes: a change here re-queues unschedulable pods.
        ``bound``: pods bound during this pass, which ``pods`` (read before the pass) shows unbound."""
        parts = [f"n:{n['metadata']['name']}:{n['metadata'].get('resourceVersion')}" for n in nodes]
        parts += [f"c:{k}:{(v.get('status') or {}).get('phase')}" for k, v in sorted(pvcs.items())]
        parts += [f"s:{k}" for k in sorted(classes)]
        parts += sorted(
            f"p:{p['metadata']['uid']}:{(p.get('spec') or {}).get('nodeName')}"
            for p in [*pods, *bound]
            if pod_active(p) and (p.get("spec") or {}).get("nodeName")
        )
        return "|".join(parts)

    def _schedule(
        self,
        pod: dict[str, Any],
        nodes: list[dict[str, Any]],
        usage: dict[str, tuple[int, dict[str, float]]],
        pvcs: dict[tuple[str, str], dict[str, Any]],
        classes: dict[str, dict[str, Any]],
    ) -> tuple[dict[str, Any] | None, str]:
        total = len(nodes)
        ns = pod["metadata"]["namespace"]
        # PreFilter: volumes
        for v in (pod.get("spec") or {}).get("volumes") or []:
            claim = (v.get("persistentVolumeClaim") or {}).get("claimName")
            if not claim:
                continue
            pvc = pvcs.get((ns, claim))
            if pvc is None:
                return None, self._prefilter_msg(total, M.MSG_PVC_NOT_FOUND.format(name=claim))
            if (pvc.get("status") or {}).get("phase") == "Bound":
                continue
            cls_name = (pvc.get("spec") or {}).get("storageClassName")
            cls = classes.get(cls_name or "") if cls_name else self._default_class(classes)
            if cls is None or cls.get("volumeBindingMode", "Immediate") != "WaitForFirstConsumer":
                return None, self._prefilter_msg(total, M.MSG_UNBOUND_IMMEDIATE_PVC)
        req = effective_requests(pod.get("spec") or {})
        reasons: dict[str, int] = {}
        resolvable = 0
        best: tuple[float, dict[str, Any]] | None = None
        for node in nodes:
            why = self._filter(pod, node, usage, req)
            if not why:
                score = self._least_allocated(node, usage, req)
                if best is None or score > best[0]:
                    best = (score, node)
                continue
            for w, _fixable in why:
                reasons[w] = reasons.get(w, 0) + 1
            if any(f for _, f in why):
                resolvable += 1
        if best is not None:
            return best[1], ""
        parts = sorted(f"{n} {r}" for r, n in reasons.items())
        pre = []
        if resolvable:
            pre.append(M.MSG_NO_PREEMPTION_VICTIMS.format(count=resolvable))
        if total - resolvable:
            pre.append(M.MSG_PREEMPTION_NOT_HELPFUL.format(count=total - resolvable))
        return None, M.MSG_FIT_ERROR.format(total=total, reasons=", ".join(parts), preemption=", ".join(pre))

    def _prefilter_msg(self, total: int, reason: str) -> str:
        return M.MSG_FIT_ERROR.format(
            total=total, reasons=reason, preemption=M.MSG_PREEMPTION_NOT_HELPFUL.format(count=total)
        )

    @staticmethod
    def _default_class(classes: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
        for c in classes.values():
            if (c["metadata"].get("annotations") or {}).get("storageclass.kubernetes.io/is-default-class") == "true":
                return c
        return None

    @staticmethod
    def _least_allocated(node: dict[str, Any], usage: dict[str, tuple[int, dict[str, float]]],
                         req: dict[str, float]) -> float:
        """NodeResourcesFit's default LeastAllocated score: the mean free fraction of cpu and memory after
        placing the pod (the highest wins; ties go to the first node in name order), so pods spread."""
        from pytest_simian.sim.containers import parse_quantity

        alloc = (node.get("status") or {}).get("allocatable") or {}
        used = usage.get(node["metadata"]["name"], (0, {}))[1]
        fractions = []
        for res in ("cpu", "memory"):
            cap = parse_quantity(alloc.get(res, "0"))
            if cap > 0:
                fractions.append((cap - used.get(res, 0.0) - req.get(res, 0.0)) / cap)
        return sum(fractions) / len(fractions) if fractions else 0.0

    def _filter(
        self, pod: dict[str, Any], node: dict[str, Any], usage: dict[str, tuple[int, dict[str, float]]],
        req: dict[str, float]
    ) -> list[tuple[str, bool]]:
        """Reasons the node does not fit, each with whether preemption could help."""
        from pytest_simian.sim.containers import parse_quantity

        out: list[tuple[str, bool]] = []
        labels = node["metadata"].get("labels") or {}
        sel = (pod.get("spec") or {}).get("nodeSelector") or {}
        if any(labels.get(k) != v for k, v in sel.items()):
            out.append((M.MSG_NODE_SELECTOR_MISMATCH, False))
            return out
        if (node.get("spec") or {}).get("unschedulable"):
            out.append(("node(s) were unschedulable", False))
            return out
        alloc = (node.get("status") or {}).get("allocatable") or {}
        name = node["metadata"]["name"]
        count, used = usage.get(name, (0, {}))
        if count + 1 > parse_quantity(alloc.get("pods", "110")):
            out.append((M.MSG_TOO_MANY_PODS, True))
        for res in ("cpu", "memory", "ephemeral-storage"):
            if res in req and res in alloc and used.get(res, 0.0) + req[res] > parse_quantity(alloc[res]) + 1e-9:
                out.append((M.MSG_INSUFFICIENT.format(resource=res), True))
        return out

    def _bind(self, pod: dict[str, Any], node: dict[str, Any]) -> None:
        md = pod["metadata"]
        name = node["metadata"]["name"]
        pod["spec"]["nodeName"] = name
        pod = self.store.update("pods", pod, namespace=md["namespace"], manager="kube-scheduler")
        st = pod.get("status") or {}
        conds = [{"lastProbeTime": None, "status": "True", "type": "PodScheduled"}]
        st["conditions"] = set_condition(st.get("conditions") or [], conds[0], now_str(self.store))
        pod["status"] = st
        self.store.update_status("pods", pod, namespace=md["namespace"], manager="kube-scheduler")
        self.recorder.record(
            pod,
            "Normal",
            M.REASON_SCHEDULED,
            M.MSG_SCHEDULED.format(namespace=md["namespace"], name=md["name"], node=name),
            action="Binding",
        )

    def _fail(self, pod: dict[str, Any], message: str) -> None:
        md = pod["metadata"]
        st = pod.get("status") or {}
        cond = {
            "lastProbeTime": None,
            "message": message,
            "reason": M.REASON_UNSCHEDULABLE,
            "status": "False",
            "type": "PodScheduled",
        }
        new_conds = set_condition(st.get("conditions") or [], cond, now_str(self.store))
        if new_conds != st.get("conditions"):
            st["conditions"] = new_conds
            pod["status"] = st
            self.store.update_status("pods", pod, namespace=md["namespace"], manager="kube-scheduler")
        self.recorder.record(pod, "Warning", M.REASON_FAILED_SCHEDULING, message, action="Scheduling")
