"""The disruption controller of the embedded cluster: PodDisruptionBudget status.

Why: ``kubectl get pdb`` (MIN AVAILABLE / MAX UNAVAILABLE / ALLOWED DISRUPTIONS) and drain-style checks read
currentHealthy, desiredHealthy, disruptionsAllowed, expectedPods and the DisruptionAllowed condition, computed
as pkg/controller/disruption/disruption.go does (expected pods from the owning controllers' scale for
maxUnavailable and percentages, the matching pods otherwise; healthy = Ready and not terminating).
Must not: evict anything (eviction refusal is the API server's business); read the host clock.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from pytest_simian.sim import messages as M
from pytest_simian.sim.controllers.base import now_str, pod_ready, run_loop, set_condition

__all__ = ["DisruptionController"]


def _matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    ml = selector.get("matchLabels") or {}
    return bool(ml) and all(labels.get(k) == v for k, v in ml.items())


class DisruptionController:
    def __init__(self, store: Any) -> None:
        self.store = store

    async def run(self) -> None:
        await run_loop(self.store, self.reconcile, {"PodDisruptionBudget", "Pod", "ReplicaSet", "Deployment"})

    def reconcile(self) -> float | None:
        for pdb in self.store.items("poddisruptionbudgets"):
            self._sync(pdb)
        return None

    def _expected(self, pods: list[dict[str, Any]], ns: str) -> int:
        """Sum of the scale of the controllers owning the pods (getExpectedScale)."""
        total = 0
        seen: set[str] = set()
        for p in pods:
            ref = next((r for r in p["metadata"].get("ownerReferences") or [] if r.get("controller")), None)
            if ref is None:
                total += 1  # upstream refuses non-controller pods for percentages; count them as one
                continue
            if ref["uid"] in seen:
                continue
            seen.add(ref["uid"])
            res = {"ReplicaSet": "replicasets", "StatefulSet": "statefulsets", "Job": "jobs"}.get(ref.get("kind", ""))
            owner = self.store.get_or_none(res, ref["name"], ns) if res else None
            total += int(((owner or {}).get("spec") or {}).get("replicas", 1)) if owner else 1
        return total

    def _sync(self, pdb: dict[str, Any]) -> None:
        ns = pdb["metadata"]["namespace"]
        spec = pdb.get("spec") or {}
        pods = [p for p in self.store.view("pods", ns)
                if _matches(spec.get("selector") or {}, p["metadata"].get("labels") or {})]
        healthy = len([p for p in pods if pod_ready(p) and not p["metadata"].get("deletionTimestamp")])
        if "maxUnavailable" in spec:
            expected = self._expected(pods, ns)
            mu = spec["maxUnavailable"]
            n = math.ceil(int(str(mu)[:-1]) * expected / 100) if str(mu).endswith("%") else int(mu)
            desired = max(0, expected - n)
        else:
            ma = spec.get("minAvailable", 1)
            if str(ma).endswith("%"):
                expected = self._expected(pods, ns)
                desired = math.ceil(int(str(ma)[:-1]) * expected / 100)
            else:
                expected = len(pods)
                desired = int(ma)
        allowed = max(0, healthy - desired) if expected else 0
        old = pdb.get("status") or {}
        cond = {"message": "", "observedGeneration": pdb["metadata"].get("generation", 1),
                "reason": M.REASON_SUFFICIENT_PODS if allowed > 0 else M.REASON_INSUFFICIENT_PODS,
                "status": "True" if allowed > 0 else "False", "type": "DisruptionAllowed"}
        status = {"conditions": set_condition(list(old.get("conditions") or []), cond, now_str(self.store)),
                  "currentHealthy": healthy, "desiredHealthy": desired, "disruptionsAllowed": allowed,
                  "expectedPods": expected, "observedGeneration": pdb["metadata"].get("generation", 1)}
        if old.get("disruptedPods"):
            status["disruptedPods"] = old["disruptedPods"]
        if status != old:
            obj = copy.deepcopy(pdb)
            obj["status"] = status
            self.store.update_status("poddisruptionbudgets", obj, namespace=ns, manager="kube-controller-manager")
