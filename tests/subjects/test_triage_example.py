"""The reference subject (examples/subjects/triage.py) against a fake kubectl printing canned fault states.

It is a determinism check written by the team that writes the expectations, not a calibration; these
tests pin what it reports for each state and that it reports the same thing twice.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_simian.scoring.measures import Expectation, GroundTruth, fault_recall, hallucinated_fault
from pytest_simian.scoring.report import decode_report
from pytest_simian.scoring.vocabulary import get_vocabulary
from pytest_simian.subjects.builtin import ExecSubject

from .conftest import PROMPT, MakeCtx, write_script

ROOT = Path(__file__).resolve().parents[2]
TRIAGE = ROOT / "examples" / "subjects" / "triage.py"
PARITY = ROOT / "pytest_simian" / "packs" / "parity"
LOOKOUT = ROOT / "pytest_simian" / "packs" / "lookout"

FAKE_KUBECTL = r'''
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_KUBECTL_LOG"], "a") as fh:
    fh.write(json.dumps({"args": args, "kubeconfig": os.environ.get("KUBECONFIG", "")}) + "\n")
state = json.load(open(os.environ["FAKE_KUBE_STATE"]))
if args[:2] == ["get", "secrets"]:
    print(json.dumps({"apiVersion": "v1", "kind": "List", "items": state.get("secrets", [])}))
elif args[0] == "get":
    print(json.dumps({"apiVersion": "v1", "kind": "List", "items": state["items"]}))
elif args[0] == "logs":
    key = args[1] + "/" + args[args.index("-c") + 1]
    if key not in state.get("logs", {}):
        print(f'Error from server (BadRequest): container "{key}" is waiting to start', file=sys.stderr)
        sys.exit(1)
    sys.stdout.write(state["logs"][key])
else:
    sys.exit(1)
'''


def meta(name: str, ns: str, **kw: Any) -> dict[str, Any]:
    return {"name": name, "namespace": ns, **kw}


def pod(name: str, ns: str, *, phase: str = "Running", waiting: str = "", last: str = "", ready: bool = True,
        conditions: list[dict[str, Any]] | None = None, message: str = "") -> dict[str, Any]:
    cs: dict[str, Any] = {"name": "app", "image": "busybox:1.36", "ready": ready, "restartCount": 3 if last else 0,
                          "state": {"waiting": {"reason": waiting, "message": message}} if waiting
                          else {"running": {"startedAt": "2026-11-29T14:00:00Z"}}}
    if last:
        cs["lastState"] = {"terminated": {"reason": last, "exitCode": 137 if last == "OOMKilled" else 1}}
    status: dict[str, Any] = {"phase": phase, "conditions": conditions or []}
    if phase != "Pending" or waiting:
        status["containerStatuses"] = [cs]
    return {"kind": "Pod", "metadata": meta(name, ns), "status": status}


def service(name: str, ns: str, app: str) -> dict[str, Any]:
    return {"kind": "Service", "metadata": meta(name, ns), "spec": {"type": "ClusterIP", "selector": {"app": app}}}


def slice_(svc: str, ns: str, ready: list[bool]) -> dict[str, Any]:
    return {"kind": "EndpointSlice", "metadata": meta(f"{svc}-x1", ns, labels={"kubernetes.io/service-name": svc}),
            "endpoints": [{"addresses": [f"10.0.0.{i}"], "conditions": {"ready": r}} for i, r in enumerate(ready)]}


def event(ns: str, kind: str, name: str, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Event", "metadata": meta(f"{name}.1", ns), "involvedObject": {"kind": kind, "name": name},
            "reason": reason, "message": message, "type": "Warning"}


def owner(kind: str, name: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "apps/v1", "kind": kind, "name": name, "controller": True}]


def replicaset(name: str, ns: str, deployment: str, revision: int, *, replicas: int, available: int) -> dict[str, Any]:
    return {"kind": "ReplicaSet", "metadata": meta(name, ns, ownerReferences=owner("Deployment", deployment),
                                                   annotations={"deployment.kubernetes.io/revision": str(revision)}),
            "spec": {"replicas": replicas}, "status": {"replicas": replicas, "availableReplicas": available}}


def owned_pod(name: str, ns: str, rs: str, **kw: Any) -> dict[str, Any]:
    p = pod(name, ns, **kw)
    p["metadata"]["ownerReferences"] = owner("ReplicaSet", rs)
    return p


def tls(ns: str, name: str, expires_in: float) -> dict[str, Any]:
    """A real kubernetes.io/tls Secret (the engine's own generator: the test may use cryptography)."""
    from pytest_simian.engines.kube_state import tls_secret

    return tls_secret(ns, name, common_name=f"{name}.example.invalid", dns_names=[], expires_in=expires_in)


def state(ns: str, name: str) -> dict[str, Any]:
    """Canned `kubectl get … -o json` items (and logs, and TLS secrets) for one fault state."""
    logs: dict[str, str] = {}
    secrets: list[dict[str, Any]] = []
    items: list[dict[str, Any]]
    if name == "crashloop":
        items = [pod("payments-worker-6c9f7-abcde", ns, waiting="CrashLoopBackOff", last="Error", ready=False)]
    elif name == "crashloop-running":  # between two back-offs: running again, restarts and a non-zero exit
        items = [pod("payments-worker-6c9f7-abcde", ns, last="Error")]
    elif name == "errimagepull":
        items = [pod("checkout-api-7d9f4-klmno", ns, phase="Pending", waiting="ErrImagePull", ready=False,
                     message="rpc error: code = NotFound")]
    elif name == "oom":
        items = [pod("cache-warmer-5d8b9-fghij", ns, waiting="CrashLoopBackOff", last="OOMKilled", ready=False)]
    elif name == "imagepull":
        items = [pod("checkout-api-7d9f4-klmno", ns, phase="Pending", waiting="ImagePullBackOff", ready=False,
                     message='Back-off pulling image "busybox:9.99-nope"')]
    elif name == "pending":
        items = [pod("analytics-etl-66f4c-pqrst", ns, phase="Pending", conditions=[
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
             "message": "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available."}])]
    elif name == "failedjob":
        items = [{"kind": "Job", "metadata": meta("nightly-report", ns), "status": {"failed": 3, "conditions": [
            {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
             "message": "Job has reached the specified backoff limit"}]}},
                 pod("nightly-report-x1y2z", ns, phase="Failed")]
    elif name == "noendpoints":
        items = [pod("frontend-7b5c9-uvwxy", ns), service("frontend", ns, "frontend-v2"), slice_("frontend", ns, []),
                 service("backend", ns, "backend"), slice_("backend", ns, [True])]
    elif name == "pdb":
        items = [pod("api-0", ns), {"kind": "PodDisruptionBudget", "metadata": meta("api", ns), "status": {
            "expectedPods": 1, "currentHealthy": 1, "desiredHealthy": 1, "disruptionsAllowed": 0}}]
    elif name == "failedmount":
        items = [pod("mounter-5f6d7-zz9zz", ns, phase="Pending", waiting="ContainerCreating", ready=False),
                 event(ns, "Pod", "mounter-5f6d7-zz9zz", "FailedMount",
                       'MountVolume.SetUp failed for volume "config" : configmap "missing-config" not found')]
    elif name == "pvc":
        items = [{"kind": "PersistentVolumeClaim", "metadata": meta("ledger-data", ns),
                  "spec": {"storageClassName": "fast-ssd"}, "status": {"phase": "Pending"}},
                 event(ns, "PersistentVolumeClaim", "ledger-data", "ProvisioningFailed",
                       'storageclass.storage.k8s.io "fast-ssd" not found'),
                 pod("ledger-7c8d9-aaaaa", ns, phase="Pending", conditions=[
                     {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                      "message": "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims."}])]
    elif name == "dependency":
        items = [pod("invoice-reconciler-6d5f4-bbbbb", ns), pod("invoice-reconciler-6d5f4-ccccc", ns),
                 service("invoice-reconciler", ns, "invoice-reconciler"),
                 slice_("invoice-reconciler", ns, [True, True])]
        line = "wget: can't connect to remote host (127.0.0.1): Connection refused\n"
        logs = {f"{p['metadata']['name']}/app": "reconcile attempt 1\n" + line for p in items[:2]}
    elif name == "stalled":
        items = [{"kind": "Deployment", "metadata": meta("web", ns), "status": {"conditions": [
            {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
             "message": 'ReplicaSet "web-5d4c" has timed out progressing.'}]}}]
    elif name in ("rollout", "rollout-degraded"):
        # revision 2 crash-loops; revision 1 still serves both replicas (or, degraded, only one of two)
        old_avail = 2 if name == "rollout" else 1
        items = [{"kind": "Deployment", "metadata": meta("web", ns), "spec": {"replicas": 2}, "status": {
                     "replicas": 3, "updatedReplicas": 1, "availableReplicas": old_avail, "conditions": [
                         {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}]}},
                 replicaset("web-6c8d9f", ns, "web", 2, replicas=1, available=0),
                 replicaset("web-5d4c3", ns, "web", 1, replicas=2, available=old_avail),
                 owned_pod("web-6c8d9f-k2x7q", ns, "web-6c8d9f", waiting="CrashLoopBackOff", last="Error",
                           ready=False),
                 owned_pod("web-5d4c3-aaaaa", ns, "web-5d4c3"), owned_pod("web-5d4c3-bbbbb", ns, "web-5d4c3")]
    elif name == "rollout-healthy":  # a rollout in progress whose new pod is merely starting: not a finding
        items = [{"kind": "Deployment", "metadata": meta("web", ns), "spec": {"replicas": 2}, "status": {}},
                 replicaset("web-6c8d9f", ns, "web", 2, replicas=1, available=0),
                 replicaset("web-5d4c3", ns, "web", 1, replicas=2, available=2),
                 owned_pod("web-6c8d9f-k2x7q", ns, "web-6c8d9f", phase="Pending", waiting="ContainerCreating",
                           ready=False),
                 owned_pod("web-5d4c3-aaaaa", ns, "web-5d4c3"), owned_pod("web-5d4c3-bbbbb", ns, "web-5d4c3")]
    elif name in ("cert", "cert-expired", "cert-far"):
        items = [pod("storefront-5d4c3-ddddd", ns)]
        expires = {"cert": 48 * 3600, "cert-expired": -3600, "cert-far": 365 * 86400}[name]
        secrets = [tls(ns, "storefront-tls", expires),
                   {"kind": "Secret", "type": "Opaque", "metadata": meta("db-password", ns), "data": {"p": "eA=="}}]
    elif name == "healthy":
        items = [pod("web-5d4c3-ddddd", ns), service("web", ns, "web"), slice_("web", ns, [True]),
                 {"kind": "Deployment", "metadata": meta("web", ns), "status": {"conditions": [
                     {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}]}}]
        logs = {"web-5d4c3-ddddd/app": "listening on :8080\n"}
    else:
        raise KeyError(name)
    return {"items": items, "logs": logs, "secrets": secrets}


@pytest.fixture
def triage(tmp_path: Path, fakebin: Path, make_ctx: MakeCtx):  # type: ignore[no-untyped-def]
    write_script(fakebin / "kubectl", FAKE_KUBECTL)
    state_file = tmp_path / "state.json"
    log = tmp_path / "kubectl.jsonl"

    def run(ns: str, name: str) -> dict[str, Any]:
        state_file.write_text(json.dumps(state(ns, name)))
        ctx = make_ctx(ns, env={"FAKE_KUBE_STATE": str(state_file), "FAKE_KUBECTL_LOG": str(log)})
        env = {**ctx.env, "SIMIAN_PROMPT": ctx.prompt}
        proc = subprocess.run([str(TRIAGE)], input=ctx.prompt, capture_output=True, text=True, env=env,
                              cwd=ctx.workdir, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return {"stdout": proc.stdout, "report": json.loads(proc.stdout), "calls": [
            json.loads(x) for x in log.read_text().splitlines()], "kubeconfig": ctx.env["KUBECONFIG"]}

    return run


def triples(report: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    return {(f["kind"], f["resource_name"], f["reason"], f["severity"]) for f in report["findings"]}


EXPECTED = {
    "crashloop": ({("Pod", "payments-worker-6c9f7-abcde", "CrashLoopBackOff", "critical")}, "critical"),
    "crashloop-running": ({("Pod", "payments-worker-6c9f7-abcde", "CrashLoopBackOff", "critical")}, "critical"),
    "errimagepull": ({("Pod", "checkout-api-7d9f4-klmno", "ImagePullBackOff", "critical")}, "critical"),
    "oom": ({("Pod", "cache-warmer-5d8b9-fghij", "OOMKilled", "critical")}, "critical"),
    "imagepull": ({("Pod", "checkout-api-7d9f4-klmno", "ImagePullBackOff", "critical")}, "critical"),
    "pending": ({("Pod", "analytics-etl-66f4c-pqrst", "InsufficientCPU", "critical")}, "critical"),
    "failedjob": ({("Job", "nightly-report", "BackoffLimitExceeded", "warning")}, "warning"),
    "noendpoints": ({("Service", "frontend", "NoEndpoints", "warning")}, "warning"),
    "pdb": ({("PodDisruptionBudget", "api", "DisruptionsBlocked", "warning")}, "warning"),
    "failedmount": ({("Pod", "mounter-5f6d7-zz9zz", "FailedMount", "critical"),
                     ("ConfigMap", "missing-config", "FailedMount", "critical")}, "critical"),
    "pvc": ({("PersistentVolumeClaim", "ledger-data", "ProvisioningFailed", "critical"),
             ("Pod", "ledger-7c8d9-aaaaa", "Unschedulable", "critical")}, "critical"),
    "dependency": ({("Pod", "invoice-reconciler-6d5f4-bbbbb", "DependencyConnectionRefused", "critical"),
                    ("Pod", "invoice-reconciler-6d5f4-ccccc", "DependencyConnectionRefused", "critical")},
                   "critical"),
    "stalled": ({("Deployment", "web", "ProgressDeadlineExceeded", "warning")}, "warning"),
    "rollout": ({("Deployment", "web", "RolloutStalled", "warning"),
                 ("Pod", "web-6c8d9f-k2x7q", "CrashLoopBackOff", "warning")}, "warning"),
    "rollout-degraded": ({("Deployment", "web", "RolloutStalled", "warning"),
                          ("Pod", "web-6c8d9f-k2x7q", "CrashLoopBackOff", "critical")}, "critical"),
    "rollout-healthy": (set(), "ok"),
    "cert": ({("Secret", "storefront-tls", "CertificateExpiringSoon", "warning")}, "warning"),
    "cert-expired": ({("Secret", "storefront-tls", "CertificateExpired", "critical")}, "critical"),
    "cert-far": (set(), "ok"),
    "healthy": (set(), "ok"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fault_state(triage, name: str) -> None:  # type: ignore[no-untyped-def]
    out = triage("shop", name)
    want, overall = EXPECTED[name]
    assert triples(out["report"]) == want
    assert out["report"]["overall_severity"] == overall
    assert all(f["namespace"] == "shop" and f["title"] and f["detail"] for f in out["report"]["findings"])
    assert out["calls"][0]["args"] == ["get", "pods,deployments,replicasets,services,endpointslices,jobs,pvc,pdb,"
                                       "events", "-n", "shop", "-o", "json"]
    assert all(c["kubeconfig"] == out["kubeconfig"] for c in out["calls"])
    assert decode_report(out["report"]).structured


def test_details_name_the_evidence(triage) -> None:  # type: ignore[no-untyped-def]
    pending = triage("shop", "pending")["report"]["findings"][0]
    assert "Insufficient cpu" in pending["detail"] and "FailedScheduling" in pending["detail"]
    dep = triage("shop", "dependency")["report"]["findings"][0]
    assert "Connection refused" in dep["detail"]
    assert triage("shop", "crashloop")["report"]["recommended_actions"]


def test_run_twice_prints_the_same_bytes(triage) -> None:  # type: ignore[no-untyped-def]
    for name in ("dependency", "pvc", "healthy"):
        assert triage("shop", name)["stdout"] == triage("shop", name)["stdout"]
    # states a live cluster flickers between print the same report
    assert triage("shop", "imagepull")["stdout"] == triage("shop", "errimagepull")["stdout"]
    assert triage("shop", "crashloop")["report"]["findings"] == triage("shop", "crashloop-running")["report"][
        "findings"]


PARITY_STATES = {"fault-payments": "crashloop", "fault-cache": "oom", "fault-checkout": "imagepull",
                 "fault-analytics": "pending", "fault-failedjob": "failedjob", "fault-badselector": "noendpoints",
                 "fault-ledger": "pvc", "fault-invoicing": "dependency", "fault-none": "healthy"}


def _truth(sid: str, pack: Path = PARITY, ns: str | None = None) -> GroundTruth:
    doc = yaml.safe_load((pack / f"{sid}.yaml").read_text())
    return GroundTruth(
        scenario_id=sid, severity=doc.get("severity"), also_true=tuple(doc.get("also_true") or ()),
        namespaces=(ns or sid,),
        expect=tuple(Expectation(kind=e["kind"], name=e["name"], reasons=tuple(e.get("reasons") or ()),
                                 also_accept_kinds=tuple(e.get("also_accept_kinds") or ()),
                                 min_severity=e.get("min_severity"), root=bool(e.get("root")))
                     for e in doc.get("expect") or ()))


@pytest.mark.parametrize("sid", sorted(PARITY_STATES))
def test_canned_parity_states_score_full_marks(triage, sid: str) -> None:  # type: ignore[no-untyped-def]
    """Against the state the parity scenario describes (canned, renamed to the scenario's names), the
    reference subject recalls everything and invents nothing. Canned states, so not a calibration."""
    out = triage(sid, PARITY_STATES[sid])
    report = decode_report(out["report"]).report
    truth = _truth(sid)
    vocab = get_vocabulary("upstream")
    recall = fault_recall(report, truth)
    assert recall.value in (None, 1.0), recall.comment
    assert hallucinated_fault(report, truth, vocab).value == 1.0


LOOKOUT_STATES = {"lookout-bad-rollout": "rollout", "lookout-cert-expiry": "cert", "lookout-pdb-gridlock": "pdb",
                  "lookout-healthy": "healthy"}


@pytest.mark.parametrize("sid", sorted(LOOKOUT_STATES))
def test_canned_lookout_states_score_full_marks(triage, sid: str) -> None:  # type: ignore[no-untyped-def]
    """The lookout states the reference subject gained (stalled rollout, expiring certificate) and the PDB
    gridlock, scored against the lookout pack's own expectations, severity included."""
    doc = yaml.safe_load((LOOKOUT / f"{sid}.yaml").read_text())
    ns = doc["faults"][0]["namespace"]
    out = triage(ns, LOOKOUT_STATES[sid])
    report = decode_report(out["report"]).report
    truth = _truth(sid, LOOKOUT, ns)
    assert fault_recall(report, truth).value in (None, 1.0)
    assert hallucinated_fault(report, truth, get_vocabulary("upstream")).value == 1.0
    assert out["report"]["overall_severity"] == doc["severity"]


def test_the_certificate_detail_is_the_same_on_every_run(triage) -> None:  # type: ignore[no-untyped-def]
    detail = triage("shop", "cert")["report"]["findings"][0]["detail"]
    assert detail.startswith("tls.crt notAfter 20") and detail.endswith("Z")


def test_through_the_exec_adapter(tmp_path: Path, fakebin: Path, make_ctx: MakeCtx) -> None:
    write_script(fakebin / "kubectl", FAKE_KUBECTL)
    (tmp_path / "s.json").write_text(json.dumps(state("shop", "oom")))
    env = {"FAKE_KUBE_STATE": str(tmp_path / "s.json"), "FAKE_KUBECTL_LOG": str(tmp_path / "k.jsonl"),
           "SIMIAN_PROMPT": PROMPT.format(ns="shop")}
    ctx = make_ctx("shop", env=env)
    result = ExecSubject("triage", f"exec:{TRIAGE}", str(TRIAGE)).investigate(ctx)
    assert triples(result.report) == EXPECTED["oom"][0]


def test_no_namespace_in_the_prompt_is_a_usage_error(tmp_path: Path) -> None:
    proc = subprocess.run([str(TRIAGE)], input="what is wrong?", capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"]}, timeout=30)
    assert proc.returncode == 2 and "names no namespace" in proc.stderr


def test_imports_nothing_from_the_plugin_and_only_the_stdlib() -> None:
    tree = ast.parse(TRIAGE.read_text())
    mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert mods <= set(sys.stdlib_module_names) | {"__future__"}
    assert TRIAGE.read_text().startswith("#!/usr/bin/env python3\n") and os.access(TRIAGE, os.X_OK)


def test_events_k8s_io_shape(tmp_path: Path, fakebin: Path, make_ctx: MakeCtx) -> None:
    """kubectl may resolve `events` to events.k8s.io/v1 (`regarding`, `note`) rather than core/v1."""
    write_script(fakebin / "kubectl", FAKE_KUBECTL)
    st = state("shop", "failedmount")
    for it in st["items"]:
        if it["kind"] == "Event":
            it["regarding"] = it.pop("involvedObject")
            it["note"] = it.pop("message")
    (tmp_path / "s.json").write_text(json.dumps(st))
    env = {"FAKE_KUBE_STATE": str(tmp_path / "s.json"), "FAKE_KUBECTL_LOG": str(tmp_path / "k.jsonl")}
    ctx = make_ctx("shop", env=env)
    result = ExecSubject("triage", f"exec:{TRIAGE}", str(TRIAGE)).investigate(ctx)
    assert triples(result.report) == EXPECTED["failedmount"][0]
