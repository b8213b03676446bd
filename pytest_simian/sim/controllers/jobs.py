"""The Job controller of the embedded cluster (NonIndexed jobs: parallelism, completions, backoffLimit,
activeDeadlineSeconds), as Kubernetes 1.36 reports them.

Why: a failing Job must end with ``FailureTarget`` then ``Failed`` (reason BackoffLimitExceeded, message
``Job has reached the specified backoff limit``) and a succeeding one with ``SuccessCriteriaMet`` then
``Complete``, with the pod replacement back-off (10s doubling) between failed pods, as the pinned version
does; ``kubectl get job`` reads status.active/succeeded/failed/ready/terminating.
Must not: read the host clock; count a pod twice (pods carry the job's controller reference and are
counted by uid).
"""

from __future__ import annotations

import copy
from typing import Any

from pytest_simian.sim import messages as M
from pytest_simian.sim.controllers.base import controller_ref, now_str, owned_by, pod_ready, run_loop, ts
from pytest_simian.sim.eventrecorder import EventRecorder

__all__ = ["JobController"]

POD_BACKOFF_INITIAL = 10.0
POD_BACKOFF_MAX = 360.0
REASON_DEADLINE = "DeadlineExceeded"
MSG_DEADLINE = "Job was active longer than specified deadline"


class JobController:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.recorder = EventRecorder(store, "job-controller")

    async def run(self) -> None:
        await run_loop(self.store, self.reconcile, {"Job", "Pod"})

    def reconcile(self) -> float | None:
        wake: list[float] = []
        for job in self.store.items("jobs"):
            if job["metadata"].get("deletionTimestamp"):
                continue
            nxt = self._sync(job)
            if nxt is not None:
                wake.append(nxt)
        return min(wake) if wake else None

    def _finished(self, job: dict[str, Any]) -> bool:
        return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
                   for c in (job.get("status") or {}).get("conditions") or [])

    def _sync(self, job: dict[str, Any]) -> float | None:
        if self._finished(job):
            return None
        ns = job["metadata"]["namespace"]
        spec = job.get("spec") or {}
        now = self.store.clock.timestamp()
        now_s = now_str(self.store)
        old = job.get("status") or {}
        status = copy.deepcopy(old)
        status.setdefault("startTime", now_s)
        pods = [p for p in self.store.view("pods", ns) if owned_by(p, job)]
        live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
        active = [p for p in live if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        succeeded = [p for p in pods if (p.get("status") or {}).get("phase") == "Succeeded"]
        failed = [p for p in pods if (p.get("status") or {}).get("phase") == "Failed"]
        completions = spec.get("completions")
        parallelism = int(spec.get("parallelism", 1))
        backoff_limit = int(spec.get("backoffLimit", 6))
        conds = list(status.get("conditions") or [])
        wake: float | None = None

        def cond(ctype: str, reason: str, message: str) -> dict[str, Any]:
            return {"lastProbeTime": now_s, "lastTransitionTime": now_s, "message": message, "reason": reason,
                    "status": "True", "type": ctype}

        target = next((c for c in conds if c.get("type") in ("FailureTarget", "SuccessCriteriaMet")), None)
        deadline = spec.get("activeDeadlineSeconds")
        if target is None:
            if len(failed) > backoff_limit:
                conds.append(cond("FailureTarget", M.REASON_BACKOFF_LIMIT, M.MSG_BACKOFF_LIMIT))
                target = conds[-1]
            elif deadline is not None and now - ts(status["startTime"]) >= int(deadline):
                conds.append(cond("FailureTarget", REASON_DEADLINE, MSG_DEADLINE))
                target = conds[-1]
            elif completions is not None and len(succeeded) >= int(completions):
                conds.append(cond("SuccessCriteriaMet", M.REASON_COMPLETIONS_REACHED, M.MSG_COMPLETIONS_REACHED))
                target = conds[-1]
        if target is not None:
            for p in active:
                self.store.delete("pods", p["metadata"]["name"], ns)
            if not active:
                if target["type"] == "FailureTarget":
                    conds.append(cond("Failed", target["reason"], target["message"]))
                    self.recorder.record(job, "Warning", target["reason"], target["message"])
                else:
                    conds.append(cond("Complete", target["reason"], target["message"]))
                    status["completionTime"] = now_s
                    self.recorder.record(job, "Normal", M.REASON_JOB_COMPLETED, M.MSG_JOB_COMPLETED)
        else:
            want = parallelism
            if completions is not None:
                want = min(parallelism, int(completions) - len(succeeded))
            missing = want - len(active)
            if missing > 0:
                # pod replacement back-off after failures (jobs/backoff_utils.go)
                last_fail = max((ts(self._finished_at(p)) for p in failed), default=0.0)
                delay = 0.0
                if failed:
                    delay = min(POD_BACKOFF_INITIAL * 2 ** (len(failed) - 1), POD_BACKOFF_MAX)
                if now >= last_fail + delay:
                    for _ in range(missing):
                        self._create_pod(job)
                    pods = [p for p in self.store.view("pods", ns) if owned_by(p, job)]
                    active = [p for p in pods if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
                              and not p["metadata"].get("deletionTimestamp")]
                else:
                    wake = last_fail + delay
            if deadline is not None:
                due = ts(status["startTime"]) + int(deadline)
                wake = due if wake is None else min(wake, due)
        status["conditions"] = conds
        status["active"] = len(active)
        if succeeded:
            status["succeeded"] = len(succeeded)
        if failed:
            status["failed"] = len(failed)
        status["ready"] = len([p for p in active if pod_ready(p)])
        status["terminating"] = len([p for p in pods if p["metadata"].get("deletionTimestamp")])
        status["uncountedTerminatedPods"] = {}
        if not status["active"]:
            status.pop("active")
        if not conds:
            status.pop("conditions")
        if status != old:
            obj = copy.deepcopy(job)
            obj["status"] = status
            self.store.update_status("jobs", obj, namespace=ns, manager="kube-controller-manager")
        return wake

    @staticmethod
    def _finished_at(pod: dict[str, Any]) -> str | None:
        for cs in (pod.get("status") or {}).get("containerStatuses") or []:
            term = (cs.get("state") or {}).get("terminated")
            if term:
                return term.get("finishedAt")
        return None

    def _create_pod(self, job: dict[str, Any]) -> None:
        tmpl = copy.deepcopy((job.get("spec") or {}).get("template") or {})
        md = tmpl.get("metadata") or {}
        uid = job["metadata"]["uid"]
        name = job["metadata"]["name"]
        labels = dict(md.get("labels") or {})
        labels.update({"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name,
                       "controller-uid": uid, "job-name": name})
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"generateName": name + "-", "namespace": job["metadata"]["namespace"],
                            "labels": labels, "ownerReferences": [controller_ref(job)]},
               "spec": tmpl.get("spec") or {}}
        created = self.store.create("pods", pod, namespace=job["metadata"]["namespace"],
                                    manager="kube-controller-manager")
        self.recorder.record(job, "Normal", M.REASON_SUCCESSFUL_CREATE,
                             M.MSG_CREATED_POD.format(name=created["metadata"]["name"]))
