"""End to end on the embedded cluster: every kind applies, settles, clears and verifies clear; the parity
fixtures land; nothing a subject can read names a fault."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_simian.engines.kube_state import KINDS
from pytest_simian.kubectl import pinned_kubectl_dir
from pytest_simian.leases import MANAGED, managed_resources
from pytest_simian.pack.loader import load_packs
from pytest_simian.pack.models import Scenario
from pytest_simian.record.audit import AuditLog
from tests.engine.harness import context, events, executor, names, scenario

MANIFEST_PROBE = {"name": "the config exists", "type": "k8s", "resource": "configmaps", "object": "settings",
                  "jsonpath": "{.data.mode}", "equals": "strict"}
FAULT_KINDS = [k for k in KINDS if k != "Manifests"]


def _fault(kind: str, ns: str) -> dict[str, Any]:
    if kind == "Manifests":
        return {"kind": kind, "namespace": ns, "probes": [MANIFEST_PROBE], "manifests": [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"mode": "strict"}}]}
    return {"kind": kind, "namespace": ns}


def _leftovers(kube: Any) -> list[str]:
    out = []
    for res in managed_resources(kube):
        for obj in kube.list(res, None, selector=f"{MANAGED}=true"):
            out.append(f"{obj['kind']}/{obj['metadata']['name']}")
    holds = [h["metadata"]["name"] for h in kube.list(kube.resolve("leases"), "kube-system")
             if h["metadata"]["name"].startswith(("arena-", "slot-"))]
    return out + holds


def run_attempt(sim: Any, audit: AuditLog, sc: Scenario, *, attempt_id: str = "a0000000000e1",
                settle: float = 240.0, between: Any = None) -> list[dict[str, Any]]:
    ex = executor(sim, audit)
    ex.check(sc)
    ctx = context(sc, audit, sim, attempt_id=attempt_id, settle_seconds=settle)
    injected = []
    try:
        with audit.attempt(attempt_id, sc.id):
            for i in range(len(sc.faults)):
                injected.append(i)
                ex.inject(ctx, i)
            if between is not None:
                between()
    finally:
        with audit.attempt(attempt_id, sc.id):
            for i in reversed(injected):
                ex.clear(ctx, i)
            ex.release(ctx)
        ex.close()
    return events(audit)


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_applies_settles_clears_and_verifies(kind: str, sim: Any, kube: Any, audit: AuditLog) -> None:
    sc = scenario([_fault(kind, "shop")])
    evs = run_attempt(sim, audit, sc)
    seq = names(evs)
    for ev in ("executor.received", "arena.held", "executor.validated", "driver.applied", "lease.registered",
               "fault.efficacy", "lease.cleared", "arena.released"):
        assert ev in seq, (kind, seq)
    assert seq.index("executor.validated") < seq.index("driver.applied") < seq.index("fault.efficacy")
    eff = [e for e in evs if e["event"] == "fault.efficacy"]
    assert eff and all(e["payload"]["passed"] for e in eff), eff
    assert all(e["attempt_id"] == "a0000000000e1" and e["fault_uid"] == "f-a0000000000e1-0" for e in eff)
    assert set(eff[0]["payload"]) == {"fault_index", "probe", "type", "observed", "passed", "elapsed"}
    cleared = [e for e in evs if e["event"] == "lease.cleared"]
    assert cleared[0]["reason"] == "explicit-clear" and cleared[0]["payload"]["verified"]
    assert _leftovers(kube) == []
    assert kube.get_or_none(kube.for_kind("v1", "Namespace"), None, "shop") is None


def _parity() -> list[Scenario]:
    return [sc for lp in load_packs(["parity"]) for sc in lp.pack.scenarios]


@pytest.mark.parametrize("sc", _parity(), ids=lambda s: s.id)
def test_parity_fixture_lands_on_the_embedded_cluster(sc: Scenario, sim: Any, kube: Any, audit: AuditLog) -> None:
    evs = run_attempt(sim, audit, sc, settle=240.0)
    eff = [e for e in evs if e["event"] == "fault.efficacy"]
    want = sum(len(f.probes) for f in sc.faults)
    assert len(eff) == want and all(e["payload"]["passed"] for e in eff), [e["payload"] for e in eff]
    assert [e["payload"]["fault_index"] for e in eff] == sorted(e["payload"]["fault_index"] for e in eff)
    assert _leftovers(kube) == []


# ------------------------------------------------------------------------------ nothing names the fault


def _kubectl(kubeconfig: Path, *args: str) -> str:
    kubectl = str(pinned_kubectl_dir() / "kubectl")  # type: ignore[operator]
    return subprocess.run([kubectl, "--kubeconfig", str(kubeconfig), *args], capture_output=True, text=True,
                          check=True).stdout


def subject_view(kubeconfig: Path) -> list[tuple[str, str, str]]:
    """(namespace, where, text) for everything a subject reads first: every object's name, labels and
    annotations and managedFields managers, events, leases, namespaces, its kubeconfig's names and the
    identity the cluster says it has."""
    out: list[tuple[str, str, str]] = []
    kinds = _kubectl(kubeconfig, "api-resources", "--verbs=list", "-o", "name").split()
    for res in kinds:
        try:
            doc = json.loads(_kubectl(kubeconfig, "get", res, "-A", "-o", "json"))
        except subprocess.CalledProcessError:
            continue  # not readable by the subject
        for obj in doc.get("items", []):
            meta = obj.get("metadata") or {}
            ns = meta.get("namespace") or (meta.get("name") if obj.get("kind") == "Namespace" else "")
            where = f"{obj.get('kind')}/{meta.get('name')}"
            out.append((ns, where + " name", str(meta.get("name", ""))))
            for part in ("labels", "annotations"):
                for k, v in (meta.get(part) or {}).items():
                    out.append((ns, f"{where} {part}", f"{k}={v}"))
            for mf in meta.get("managedFields") or []:
                out.append((ns, f"{where} manager", str(mf.get("manager", ""))))
            tmeta = ((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}
            for part in ("labels", "annotations"):
                for k, v in (tmeta.get(part) or {}).items():
                    out.append((ns, f"{where} template {part}", f"{k}={v}"))
            if obj.get("kind") == "Event":
                for key in ("reason", "message", "note"):
                    if obj.get(key):
                        out.append((ns, f"{where} {key}", str(obj[key])))
                inv = obj.get("involvedObject") or obj.get("regarding") or {}
                out.append((ns, f"{where} about", str(inv.get("name", ""))))
            if obj.get("kind") == "Lease":
                out.append((ns, f"{where} holder", str((obj.get("spec") or {}).get("holderIdentity", ""))))
    kc = json.loads(_kubectl(kubeconfig, "config", "view", "-o", "json"))
    for part in ("clusters", "contexts", "users"):
        for entry in kc.get(part) or []:
            out.append(("", f"kubeconfig {part}", entry["name"]))
    try:
        who = json.loads(_kubectl(kubeconfig, "auth", "whoami", "-o", "json"))
        out.append(("", "auth whoami", json.dumps(who.get("status", {}))))
    except subprocess.CalledProcessError as exc:  # pragma: no cover - depends on the server
        pytest.fail(f"kubectl auth whoami failed for the subject: {exc.stderr}")
    return out


@pytest.mark.skipif(pinned_kubectl_dir() is None, reason="the pinned kubectl wheel is not installed")
def test_nothing_a_subject_reads_names_the_fault(sim: Any, kube: Any, audit: AuditLog, tmp_path: Path) -> None:
    from pytest_simian.engines import builtin_catalog
    from pytest_simian.executor import leaks

    failure_kinds = builtin_catalog().failure_kinds()

    kinds = list(KINDS)
    spaces = [f"team-{chr(ord('a') + i)}" for i in range(len(kinds))]
    sc = scenario([_fault(k, ns) for k, ns in zip(kinds, spaces, strict=True)])
    allowed = {ns: KINDS[k].reasons for k, ns in zip(kinds, spaces, strict=True)}
    found: list[str] = []
    seen: list[int] = []

    def inspect() -> None:
        kc = sim.subject_kubeconfig("a0000000000e2", tmp_path)
        view = subject_view(kc)
        seen.append(len(view))
        for ns, where, text in view:
            found.extend(leaks([(where, text)], reasons=[], kinds=failure_kinds, allowed=allowed.get(ns, ())))

    evs = run_attempt(sim, audit, sc, attempt_id="a0000000000e2", between=inspect)
    eff = [e for e in evs if e["event"] == "fault.efficacy"]
    assert len({e["payload"]["fault_index"] for e in eff}) == len(kinds)
    assert all(e["payload"]["passed"] for e in eff)
    assert seen and seen[0] > 100
    assert found == [], found
    # and the kind names themselves, verbatim, nowhere (the lint would say so; this says it twice)
    text = " ".join(t for _, _, t in subject_view(sim.subject_kubeconfig("a0000000000e3", tmp_path)))
    for k in failure_kinds:
        assert k.lower() not in text.lower()


def test_the_embedded_cluster_answers_not_valid_for_what_its_model_never_runs(tmp_path: Path) -> None:
    """A StatefulSet or a NetworkPolicy would be stored and then ignored: NOT VALID up front, never a fault
    that silently fails to land."""
    from pytest_simian.cluster.sim import SimBackend
    from pytest_simian.engines.kube_state import render

    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
           "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                    "template": {"metadata": {"labels": {"app": "db"}},
                                 "spec": {"containers": [{"name": "db", "image": "busybox:1.36"}]}}}}
    probe = {"name": "db runs", "type": "k8s", "resource": "pods", "jsonpath": "{.items[*].status.phase}",
             "contains": "Running"}
    sc = scenario([{"kind": "Manifests", "namespace": "shop", "manifests": [sts], "probes": [probe]}])
    why = SimBackend().not_valid(render(sc.faults[0]), sc)
    assert why == "StatefulSet/db: the embedded cluster stores StatefulSets but runs no StatefulSet controller"
    ok = scenario([{"kind": "NoOp", "namespace": "shop"}])
    assert SimBackend().not_valid(render(ok.faults[0]), ok) is None
