"""Admission the embedded API server performs on create: LimitRange defaults and bounds, ResourceQuota.

Why: "the namespace's quota is exhausted" and "a LimitRange caps memory" are everyday failures; a ReplicaSet
that cannot create pods must fail with the API server's own words (``pods "x" is forbidden: exceeded quota:
compute, requested: limits.memory=512Mi, used: limits.memory=1Gi, limited: limits.memory=1Gi``), and a quota's
``status.used`` must add up, as plugin/pkg/admission/{limitranger,resourcequota} and the quota controller do.
Must not: run on updates (upstream re-evaluates only a few update cases); hold state (usage is recomputed from
the store).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from . import errors
from .resources import ResourceType

if TYPE_CHECKING:
    from .store import Store

_QTY = re.compile(r"^([+-]?\d+(?:\.\d+)?|[+-]?\.\d+)(?:[eE]([+-]?\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$")
_BIN = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DEC = {"n": -3, "u": -2, "m": -1, "": 0, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}

COMPUTE = ("requests.cpu", "requests.memory", "limits.cpu", "limits.memory")
_ALIASES = {"cpu": "requests.cpu", "memory": "requests.memory", "ephemeral-storage": "requests.ephemeral-storage",
            "count/pods": "pods", "count/services": "services", "count/configmaps": "configmaps",
            "count/secrets": "secrets", "count/persistentvolumeclaims": "persistentvolumeclaims",
            "count/resourcequotas": "resourcequotas", "count/replicationcontrollers": "replicationcontrollers"}
_OBJECT_COUNTS = {"pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "resourcequotas"}


class Quantity:
    """An exact resource.Quantity value that remembers whether it was written in binary (Ki, Mi...) form."""

    def __init__(self, value: Fraction, binary: bool = False) -> None:
        self.value = value
        self.binary = binary

    @classmethod
    def parse(cls, q: Any) -> Quantity:
        if isinstance(q, int | float):
            return cls(Fraction(q))
        s = str(q).strip()
        m = _QTY.match(s)
        if not m:
            raise ValueError(f"quantities must match the regular expression "
                             f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {s!r}")
        v = Fraction(m.group(1)) * (Fraction(10) ** int(m.group(2) or 0))
        suf = m.group(3) or ""
        if suf in _BIN:
            return cls(v * 1024 ** _BIN[suf], True)
        return cls(v * Fraction(1000) ** _DEC[suf])

    def __add__(self, other: Quantity) -> Quantity:
        return Quantity(self.value + other.value, self.binary or other.binary)

    def __str__(self) -> str:
        v = self.value
        if v == 0:
            return "0"
        if self.binary and v.denominator == 1 and v % 1024 == 0:
            n, k = int(v), 0
            while n % 1024 == 0 and k < 6:
                n //= 1024
                k += 1
            return f"{n}{[s for s, e in _BIN.items() if e == k][0]}"
        for suf, e in sorted(_DEC.items(), key=lambda kv: -kv[1]):  # the largest exact suffix wins
            scaled = v / Fraction(1000) ** e
            if scaled.denominator == 1:
                return f"{int(scaled)}{suf}"
        return str(float(v))


def _container_resources(c: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    res = c.get("resources") or {}
    return dict(res.get("requests") or {}), dict(res.get("limits") or {})


def pod_usage(pod: dict[str, Any]) -> dict[str, Quantity]:
    """requests.*/limits.* a pod charges to quota: sum over containers, max with each init container."""
    spec = pod.get("spec") or {}
    total: dict[str, Quantity] = {}

    def charge(c: dict[str, Any]) -> dict[str, Quantity]:
        reqs, lims = _container_resources(c)
        out: dict[str, Quantity] = {}
        for r, v in reqs.items():
            out[f"requests.{r}"] = Quantity.parse(v)
        for r, v in lims.items():
            out[f"limits.{r}"] = Quantity.parse(v)
        return out

    for c in spec.get("containers") or []:
        for k, q in charge(c).items():
            total[k] = total[k] + q if k in total else q
    for c in spec.get("initContainers") or []:
        for k, q in charge(c).items():
            if k not in total or q.value > total[k].value:
                total[k] = q
    total["pods"] = Quantity(Fraction(1))
    return total


def _counts_against_quota(rt: ResourceType, obj: dict[str, Any]) -> bool:
    if rt.kind == "Pod":
        return (obj.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    return True


def usage(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Quantity]:
    """Everything one object charges to a namespace's quotas."""
    one = Quantity(Fraction(1))
    out: dict[str, Quantity] = {f"count/{rt.key}": one}
    if rt.group == "" and rt.plural in _OBJECT_COUNTS:
        out[rt.plural] = one
    if rt.kind == "Pod":
        out.update(pod_usage(obj))
    elif rt.kind == "Service":
        t = (obj.get("spec") or {}).get("type")
        if t == "LoadBalancer":
            out["services.loadbalancers"] = one
        if t in ("NodePort", "LoadBalancer"):
            out["services.nodeports"] = Quantity(Fraction(len((obj.get("spec") or {}).get("ports") or [])))
    elif rt.kind == "PersistentVolumeClaim":
        st = (((obj.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
        if st is not None:
            out["requests.storage"] = Quantity.parse(st)
    return out


def _hard(quota: dict[str, Any]) -> dict[str, Quantity]:
    return {_ALIASES.get(k, k): Quantity.parse(v) for k, v in ((quota.get("spec") or {}).get("hard") or {}).items()}


def _namespace_usage(store: Store, namespace: str, keys: set[str]) -> dict[str, Quantity]:
    total: dict[str, Quantity] = {k: Quantity(Fraction(0)) for k in keys}
    for rt in store.registry.resources:
        if not rt.namespaced or rt.kind in ("SelfSubjectRulesReview",) or (rt.group == "events.k8s.io"):
            continue
        wanted = {f"count/{rt.key}"} | ({rt.plural} if rt.group == "" else set())
        if rt.kind in ("Pod", "Service", "PersistentVolumeClaim"):
            wanted = set(keys)
        if not wanted & keys:
            continue
        for obj in store.raw_list(rt, namespace)[0]:
            if not _counts_against_quota(rt, obj):
                continue
            for k, q in usage(rt, obj).items():
                if k in total:
                    total[k] = total[k] + q
    return total


def _pretty(d: dict[str, Quantity], keys: list[str]) -> str:
    return ",".join(f"{k}={d[k]}" for k in sorted(keys) if k in d)


def _quotas(store: Store, namespace: str) -> list[dict[str, Any]]:
    return list(store.raw_list(store.registry.lookup("resourcequotas"), namespace)[0])


def admit_create(store: Store, rt: ResourceType, obj: dict[str, Any]) -> None:
    """LimitRange defaulting and bounds, then quota. Raises 403 Forbidden the way the plugins word it."""
    if not rt.namespaced:
        return
    ns = obj["metadata"].get("namespace", "")
    name = obj["metadata"].get("name", "")
    if rt.kind == "Pod":
        _limit_ranges(store, rt, obj, ns, name)
        from .defaults import _qos

        obj.setdefault("status", {})["qosClass"] = _qos(obj.get("spec") or {})
    quotas = _quotas(store, ns)
    if not quotas or not _counts_against_quota(rt, obj):
        return
    requested = usage(rt, obj)
    for quota in quotas:
        hard = _hard(quota)
        qname = quota["metadata"]["name"]
        if rt.kind == "Pod":
            missing: dict[str, list[str]] = {}
            for res in COMPUTE:
                if res in hard or (res.startswith("requests.") and res.split(".", 1)[1] in hard):
                    kind, r = res.split(".", 1)
                    for c in (obj.get("spec") or {}).get("containers") or []:
                        reqs, lims = _container_resources(c)
                        if r not in (reqs if kind == "requests" else lims):
                            missing.setdefault(res, []).append(c.get("name", ""))
            if missing:
                msg = "; ".join(f"{r} for: {','.join(sorted(cs))}" for r, cs in sorted(missing.items()))
                raise errors.forbidden(rt.plural, rt.group, name, f"failed quota: {qname}: must specify {msg}")
        relevant = [k for k in requested if k in hard]
        if not relevant:
            continue
        used = _namespace_usage(store, ns, set(relevant))
        exceeded = [k for k in relevant if (used[k] + requested[k]).value > hard[k].value]
        if exceeded:
            raise errors.forbidden(
                rt.plural, rt.group, name,
                f"exceeded quota: {qname}, requested: {_pretty(requested, exceeded)}, used: "
                f"{_pretty(used, exceeded)}, limited: {_pretty(hard, exceeded)}")


def _limit_ranges(store: Store, rt: ResourceType, pod: dict[str, Any], ns: str, name: str) -> None:
    problems: list[str] = []
    for lr in store.raw_list(store.registry.lookup("limitranges"), ns)[0]:
        for item in (lr.get("spec") or {}).get("limits") or []:
            if item.get("type") != "Container":
                continue
            for c in (pod.get("spec") or {}).get("containers") or []:
                res = c.setdefault("resources", {})
                for r, v in (item.get("default") or {}).items():
                    res.setdefault("limits", {}).setdefault(r, v)
                for r, v in (item.get("defaultRequest") or {}).items():
                    res.setdefault("requests", {}).setdefault(r, v)
                for r, v in (res.get("limits") or {}).items():  # requests default to limits
                    res.setdefault("requests", {}).setdefault(r, v)
                reqs, lims = _container_resources(c)
                for r, mx in (item.get("max") or {}).items():
                    if r not in lims:
                        problems.append(f"maximum {r} usage per Container is {mx}.  No limit is specified")
                    elif Quantity.parse(lims[r]).value > Quantity.parse(mx).value:
                        problems.append(f"maximum {r} usage per Container is {mx}, but limit is {lims[r]}")
                for r, mn in (item.get("min") or {}).items():
                    if r not in reqs:
                        problems.append(f"minimum {r} usage per Container is {mn}.  No request is specified")
                    elif Quantity.parse(reqs[r]).value < Quantity.parse(mn).value:
                        problems.append(f"minimum {r} usage per Container is {mn}, but request is {reqs[r]}")
    if problems:
        why = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
        raise errors.forbidden(rt.plural, rt.group, name, why)


def refresh_quotas(store: Store, namespace: str) -> None:
    """What the quota controller keeps true: ``status.hard`` mirrors ``spec.hard`` and ``status.used`` is the
    namespace's current usage."""
    for quota in _quotas(store, namespace):
        spec_hard = (quota.get("spec") or {}).get("hard") or {}
        keys = {_ALIASES.get(k, k): k for k in spec_hard}
        used = _namespace_usage(store, namespace, set(keys))
        status = {"hard": dict(spec_hard), "used": {orig: str(used[k]) for k, orig in keys.items()}}
        if quota.get("status") == status:
            continue
        new = dict(quota)
        new["status"] = status
        store.update("resourcequotas", new, subresource="status", manager="kube-controller-manager")
