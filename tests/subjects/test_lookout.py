"""The lookout: adapter against a fake lookout emitting the recorded finding stream (lookout-findings.md)."""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_simian.errors import HarnessError, PackError, SubjectError
from pytest_simian.scoring.measures import Expectation, GroundTruth, fault_recall
from pytest_simian.scoring.report import decode_report
from pytest_simian.subjects.lookout import (
    LookoutSubject,
    StreamError,
    fingerprint_problems,
    merge_streams,
    namespace_from_prompt,
    parse_stream,
    scan_fingerprint,
)

from .conftest import MakeCtx, jsonl, pid_alive, write_script

FP_CRASH = "sha256:e2957792a0b3ad9e29db2051dbc69ff01dfe3a52da8dbb6d1331aa44fe946f8b"

FAKE_LOOKOUT = r'''
import json, os, sys, time, subprocess
args = sys.argv[1:]
with open(os.environ["FAKE_LOOKOUT_LOG"], "a") as fh:
    fh.write(json.dumps(args) + "\n")
key = " ".join(a for a in args if not a.startswith(("--format=", "--timeout=")))
data = json.load(open(os.environ["FAKE_LOOKOUT"]))
spec = data.get(key, data.get("*"))
if spec is None:
    sys.stderr.write(f"lookout: unknown command {key!r}\n")
    sys.exit(2)
mode = spec.get("mode", "")
if mode == "grandchild":
    child = subprocess.Popen(["sleep", "300"])
    open(os.environ["FAKE_PIDFILE"], "w").write(str(child.pid))
    time.sleep(300)
if mode == "flood":
    line = json.dumps({"kind": "pod.crashloop", "severity": "critical", "namespace": "shop",
                       "kind_of_object": "Pod", "name": "x" * 200, "reason": "CrashLoopBackOff"}) + "\n"
    chunk = (line * 1000).encode()
    n = 0
    while n < 50 * 1024 * 1024:
        sys.stdout.buffer.write(chunk)
        n += len(chunk)
    sys.stdout.buffer.write(b'{"scanned":1,"findings":1,"elapsed":"1s"}\n')
    sys.exit(0)
if mode == "kill":
    sys.stdout.write(spec.get("stdout", ""))
    sys.stdout.flush()
    os.kill(os.getpid(), 9)
sys.stdout.write(spec.get("stdout", ""))
sys.stderr.write(spec.get("stderr", ""))
sys.exit(spec.get("exit", 0))
'''

FAKE_KUBECTL = r'''
import json, os, sys
with open(os.environ["FAKE_LOOKOUT_LOG"], "a") as fh:
    fh.write(json.dumps(["kubectl"] + sys.argv[1:]) + "\n")
print(open(os.environ["FAKE_KUBECTL_WORKLOADS"]).read())
'''


def summary(n: int, scanned: int = 10) -> dict[str, Any]:
    return {"scanned": scanned, "findings": n, "elapsed": "100ms"}


def cat_line(category: str, status: str = "healthy", **kw: str) -> dict[str, Any]:
    return {"kind": "health.category", "severity": kw.pop("severity", "info"), "category": category,
            "status": status, **kw}


CRASH = {"kind": "pod.crashloop", "severity": "critical", "namespace": "shop", "kind_of_object": "Pod",
         "name": "api-7d9f8-x9k2l", "reason": "CrashLoopBackOff", "fingerprint": FP_CRASH, "category": "crashloops",
         "container": "app", "restarts": "12", "last_state": "Error", "exit_code": "1"}
CRASH_DELTA = {k: v for k, v in CRASH.items() if k != "category"}
OTHER_NS = {"kind": "pod.crashloop", "severity": "critical", "namespace": "kube-system", "kind_of_object": "Pod",
            "name": "coredns-abcde-fghij", "reason": "CrashLoopBackOff", "fingerprint": FP_CRASH}
PDB = {"kind": "pdb.gridlocked", "severity": "warning", "namespace": "shop", "kind_of_object": "PodDisruptionBudget",
       "name": "api", "reason": "DisruptionsBlocked", "healthy": "1", "required": "1", "pods": "1"}
JOB = {"kind": "job.failed", "severity": "warning", "namespace": "shop", "kind_of_object": "Job",
       "name": "nightly", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}
EDGE_SVC = {"kind": "edge.selector_empty", "severity": "critical", "namespace": "shop", "kind_of_object": "Service",
            "name": "web", "reason": "NoMatchingPods", "message": "selector app=web-unplugged selects no pods",
            "workload": "Deployment/shop/web", "selector": "app=web-unplugged"}
EDGE_CM = {"kind": "edge.missing_ref", "severity": "critical", "namespace": "shop", "kind_of_object": "ConfigMap",
           "name": "missing-config", "reason": "FailedMount",
           "message": "configmap missing-config not found (volume config)", "workload": "Deployment/shop/mounter",
           "volume": "config", "pods": "1"}
DRAIN_NODE = {"kind": "drain.node", "severity": "critical", "kind_of_object": "Node", "name": "node-1",
              "reason": "DrainBlocked", "message": "not drainable: 1 gridlocked PDB(s)", "blockers": "1",
              "pdb_gridlock": "1"}
DRAIN_PDB = {"kind": "drain.pdb_gridlock", "severity": "critical", "namespace": "shop",
             "kind_of_object": "PodDisruptionBudget", "name": "api", "reason": "PDBGridlock", "node": "node-1",
             "pods": "1", "disruptions_allowed": "0", "current_healthy": "1", "desired_healthy": "1"}

WORKLOADS = {"apiVersion": "v1", "kind": "List", "items": [
    {"kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}},
    {"kind": "Deployment", "metadata": {"name": "mounter", "namespace": "shop"}},
    {"kind": "StatefulSet", "metadata": {"name": "db", "namespace": "shop"}},
]}


def healthy_categories() -> list[dict[str, Any]]:
    return [cat_line(c) for c in ("control-plane", "nodes", "pending", "rollouts", "storage", "addons", "quota",
                                  "certs", "webhooks")]


def full_data() -> dict[str, Any]:
    health = [cat_line("crashloops", "degraded", severity="critical", total="1", top="pod.crashloop shop/api"),
              *healthy_categories(), CRASH]
    return {
        "health --namespace=shop": {"stdout": jsonl(*health, summary(len(health)))},
        "triage delta --namespace=shop --pending-age=1s": {
            "stdout": jsonl(CRASH_DELTA, OTHER_NS, PDB, JOB, summary(4))},
        "state edges --workload=Deployment/shop/mounter": {"stdout": jsonl(EDGE_CM, summary(1))},
        "state edges --workload=Deployment/shop/web": {"stdout": jsonl(EDGE_SVC, summary(1))},
        "state edges --workload=StatefulSet/shop/db": {"stdout": jsonl(summary(0))},
        "stab drain -A": {"stdout": jsonl(DRAIN_NODE, summary(1))},
        "stab drain --node=node-1": {"stdout": jsonl(DRAIN_PDB, summary(1))},
    }


@pytest.fixture
def rig(tmp_path: Path, fakebin: Path, make_ctx: MakeCtx):  # type: ignore[no-untyped-def]
    lookout = write_script(fakebin / "lookout", FAKE_LOOKOUT)
    write_script(fakebin / "kubectl", FAKE_KUBECTL)
    data_file = tmp_path / "lookout-data.json"
    log = tmp_path / "calls.jsonl"
    wl = tmp_path / "workloads.json"
    wl.write_text(json.dumps(WORKLOADS))

    class Rig:
        def __init__(self) -> None:
            self.subject = LookoutSubject("lookout", f"lookout:{lookout}", str(lookout))
            self.data = full_data()

        def run(self, ns: str | None = "shop", timeout: float = 30.0, **kw: Any):  # type: ignore[no-untyped-def]
            data_file.write_text(json.dumps(self.data))
            ctx = make_ctx(ns, timeout=timeout, env={"FAKE_LOOKOUT": str(data_file), "FAKE_LOOKOUT_LOG": str(log),
                                                      "FAKE_KUBECTL_WORKLOADS": str(wl),
                                                      "FAKE_PIDFILE": str(tmp_path / "pid")}, **kw)
            return self.subject.investigate(ctx)

        def calls(self) -> list[list[str]]:
            return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []

        @property
        def pidfile(self) -> Path:
            return tmp_path / "pid"

    return Rig()


# --------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize("prompt,ns", [
    ('Assess the health of the "fault-payments" namespace in this Kubernetes cluster and report what you find.',
     "fault-payments"),
    ("Assess the health of the \u201cshop\u201d namespace.", "shop"),
    ('Look at namespace "shop" please', "shop"),
    ('Is "web" in the "shop" namespace healthy?', "shop"),
    ("Assess the health of this Kubernetes cluster.", None),
    ('Compare "a" and "b".', None),
    ('Assess the "Shop_1" namespace', None),
])
def test_namespace_is_the_quoted_name(prompt: str, ns: str | None) -> None:
    assert namespace_from_prompt(prompt) == ns


def test_parse_stream_json_and_summary() -> None:
    s = parse_stream(jsonl(CRASH, summary(1)))
    assert len(s.records) == 1 and s.summary["findings"] == 1
    r = s.records[0]
    assert r.kind == "pod.crashloop" and r.get("fingerprint") == FP_CRASH
    assert r.details == {"category": "crashloops", "container": "app", "restarts": "12", "last_state": "Error",
                         "exit_code": "1"}


def test_parse_stream_logfmt_as_upstream_reader_does() -> None:
    text = ('kind=edge.missing_ref severity=critical namespace=lookout-demo kind_of_object=ConfigMap '
            'name=missing-config reason=FailedMount message="configmap missing-config not found (volume config)" '
            'check="state edges" workload=Deployment/lookout-demo/mounter volume=config pods=1\n'
            'scanned=3 findings=1 elapsed=12ms\n')
    s = parse_stream(text)
    assert s.records[0].get("message") == "configmap missing-config not found (volume config)"
    assert s.records[0].details["check"] == "state edges"
    assert s.summary == {"scanned": "3", "findings": "1", "elapsed": "12ms"}


@pytest.mark.parametrize("text,why", [
    (jsonl(CRASH), "no summary line"),
    ("", "no summary line"),
    (jsonl(CRASH, summary(2)), "findings=2"),
    (jsonl(CRASH, summary(1))[:-40] + "\n", "not JSON"),
    (jsonl({**CRASH, "restarts": 12}, summary(1)), "not a string"),
    ("Traceback (most recent call last):\n  oops\n", "not a logfmt record"),
    (jsonl(summary(0), CRASH), "after the summary"),
    (jsonl({"kind": "", "severity": "info"}, summary(1)), "empty kind"),
])
def test_parse_stream_refuses_what_is_not_the_format(text: str, why: str) -> None:
    with pytest.raises(StreamError, match=why):
        parse_stream(text)


@pytest.mark.parametrize("reason,obj,want", [
    ("CrashLoopBackOff", "Pod", FP_CRASH),
    ("BackOff", "Pod", FP_CRASH),
    ("Unschedulable", "Pod", "sha256:bfe155c0a308d61bd8cf9701619a8859d28b2c9d7c05e458fa9b58dcd2cc7eae"),
    ("ErrImagePull", "Pod", "sha256:e95154c788d628f5896b495c6dd0906e0c8f50f3c49b598aa720bd963398bd9e"),
    ("RolloutIncomplete", "Deployment", "sha256:f954cac01a76847aa7e59722fb0e7f2f85cfe25d1c8dfd610432742cb1b0fc43"),
    ("CertificateExpired", "Secret", "sha256:dd1c9738112cd7229a73b1920b06122bccee7bb0e7867c93752fa0b0e522557d"),
])
def test_fingerprint_recipe_matches_the_record(reason: str, obj: str, want: str) -> None:
    assert scan_fingerprint(reason, obj) == want


def test_merge_keeps_namespace_and_cluster_scoped_only() -> None:
    report = merge_streams([("triage delta --namespace=shop", parse_stream(jsonl(OTHER_NS, PDB, summary(2)))),
                            ("stab drain -A", parse_stream(jsonl(DRAIN_NODE, summary(1))))], "shop")
    names = [(f["kind"], f["resource_name"]) for f in report["findings"]]
    assert names == [("Node", "node-1"), ("PodDisruptionBudget", "api")]  # most severe first
    assert report["lookout"]["dropped_other_namespaces"] == 1
    assert report["overall_severity"] == "critical"


def test_merge_of_nothing_is_ok() -> None:
    report = merge_streams([("health --namespace=shop", parse_stream(jsonl(*healthy_categories(), summary(9))))],
                           "shop")
    assert report["overall_severity"] == "ok" and report["findings"] == []
    assert decode_report(report).structured


# --------------------------------------------------------------------------- the adapter against a fake lookout


def test_runs_each_read_command_with_its_flags_and_merges(rig) -> None:  # type: ignore[no-untyped-def]
    result = rig.run()
    lookout_calls = [c for c in rig.calls() if c[0] != "kubectl"]
    words = [" ".join(a for a in c if not a.startswith("--timeout=")) for c in lookout_calls]
    assert words == [
        "health --namespace=shop --format=json",
        "triage delta --namespace=shop --pending-age=1s --format=json",
        "state edges --workload=Deployment/shop/mounter --format=json",
        "state edges --workload=Deployment/shop/web --format=json",
        "state edges --workload=StatefulSet/shop/db --format=json",
        "stab drain -A --format=json",
        "stab drain --node=node-1 --format=json",
    ]
    assert all(any(a.startswith("--timeout=") for a in c) for c in lookout_calls)
    kubectl = [c for c in rig.calls() if c[0] == "kubectl"]
    assert kubectl == [["kubectl", "get", "deployments,statefulsets,daemonsets", "-n", "shop", "-o", "json"]]

    report = result.report
    got = {(f["kind"], f["resource_name"], f["reason"], f["severity"]) for f in report["findings"]}
    assert got == {
        ("Pod", "api-7d9f8-x9k2l", "CrashLoopBackOff", "critical"),
        ("PodDisruptionBudget", "api", "DisruptionsBlocked", "warning"),
        ("PodDisruptionBudget", "api", "PDBGridlock", "critical"),
        ("Job", "nightly", "BackoffLimitExceeded", "warning"),
        ("Service", "web", "NoMatchingPods", "critical"),
        ("ConfigMap", "missing-config", "FailedMount", "critical"),
        ("Node", "node-1", "DrainBlocked", "critical"),
    }
    assert report["overall_severity"] == "critical"
    crash = next(f for f in report["findings"] if f["reason"] == "CrashLoopBackOff")
    assert crash["fingerprint"] == FP_CRASH  # kept for calibration
    assert crash["lookout_commands"] == ["health --namespace=shop", "triage delta --namespace=shop --pending-age=1s"]
    assert crash["namespace"] == "shop" and "restarts=12" in crash["detail"]
    assert all(isinstance(f["title"], str) and f["title"] for f in report["findings"])
    assert result.extra["fingerprint_problems"] == []
    assert not any(f["resource_name"].startswith("coredns") for f in report["findings"])
    ranks = [{"critical": 3, "warning": 2}[f["severity"]] for f in report["findings"]]
    assert ranks == sorted(ranks, reverse=True)


def test_report_scores_like_any_other_subject(rig) -> None:  # type: ignore[no-untyped-def]
    decoded = decode_report(rig.run().report)
    assert decoded.structured
    truth = GroundTruth(scenario_id="x", namespaces=("shop",), also_true=(), severity="critical", expect=(
        Expectation(kind="Service", name="web", reasons=("NoMatchingPods",)),
        Expectation(kind="ConfigMap", name="missing-config", reasons=("FailedMount",)),
        Expectation(kind="Pod", name="api", reasons=("CrashLoopBackOff",), min_severity="warning"),
    ))
    assert fault_recall(decoded.report, truth).value == 1.0


def test_fingerprint_calibration_catches_a_different_detector(rig) -> None:  # type: ignore[no-untyped-def]
    report = rig.run().report
    report["findings"][0]["fingerprint"] = "sha256:" + "0" * 64
    assert len(fingerprint_problems(report)) == 1


def test_prompt_without_namespace_scans_the_cluster(rig) -> None:  # type: ignore[no-untyped-def]
    rig.data = {"*": {"stdout": jsonl(OTHER_NS, summary(1))}}
    result = rig.run(prompt="Assess the health of this Kubernetes cluster.")
    calls = [c for c in rig.calls() if c[0] != "kubectl"]
    assert calls[0][:2] == ["health", "-A"]
    assert [c for c in rig.calls() if c[0] == "kubectl"][0][-3:] == ["-A", "-o", "json"]
    assert result.report["findings"][0]["namespace"] == "kube-system"


def test_exit_2_is_our_adapter_being_wrong(rig) -> None:  # type: ignore[no-untyped-def]
    rig.data["triage delta --namespace=shop --pending-age=1s"] = {"exit": 2, "stderr": "unknown flag: --namespace\n"}
    with pytest.raises(HarnessError, match="usage error.*unknown flag"):
        rig.run()


def test_exit_1_is_the_subjects_failure(rig) -> None:  # type: ignore[no-untyped-def]
    rig.data["health --namespace=shop"] = {"exit": 1, "stderr": "health: timed out after 10s\n"}
    with pytest.raises(SubjectError, match="exited 1: health: timed out") as exc:
        rig.run()
    assert exc.value.exit_code == 1


def test_crash_mid_stream(rig) -> None:  # type: ignore[no-untyped-def]
    rig.data["health --namespace=shop"] = {"mode": "kill", "stdout": jsonl(CRASH)}
    with pytest.raises(SubjectError, match="exited -9"):
        rig.run()


@pytest.mark.parametrize("stdout,why", [
    ("panic: runtime error: invalid memory address\n", "not lookout's finding stream"),
    (jsonl(CRASH, PDB), "no summary line"),
    (jsonl(CRASH, summary(3)), "findings=3 but 1"),
    (jsonl(CRASH)[:50], "no summary line|not JSON"),
])
def test_garbage_and_partial_output(rig, stdout: str, why: str) -> None:  # type: ignore[no-untyped-def]
    rig.data["stab drain -A"] = {"stdout": stdout}
    with pytest.raises(SubjectError, match=why):
        rig.run()


def test_timeout_kills_grandchildren(rig) -> None:  # type: ignore[no-untyped-def]
    rig.data["health --namespace=shop"] = {"mode": "grandchild"}
    start = time.monotonic()
    with pytest.raises(SubjectError, match="timed out"):
        rig.run(timeout=2.0)
    assert time.monotonic() - start < 15
    pid = int(rig.pidfile.read_text())
    deadline = time.monotonic() + 5
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(pid)


def test_fifty_megabytes_neither_hangs_nor_blows_memory(rig) -> None:  # type: ignore[no-untyped-def]
    rig.data["health --namespace=shop"] = {"mode": "flood"}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    with pytest.raises(SubjectError, match="more than the harness keeps"):
        rig.run(timeout=60)
    assert time.monotonic() - start < 45
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200 * 1024  # the stream is 50 MiB; the harness keeps an 8 MiB tail


def test_spec_takes_only_the_binary(tmp_path: Path, fakebin: Path) -> None:
    lookout = write_script(fakebin / "lookout", "print(1)\n")
    with pytest.raises(PackError, match="only the binary"):
        LookoutSubject("l", f"lookout:{lookout} --namespace=x", f"{lookout} --namespace=x")
    with pytest.raises(PackError, match="does not exist"):
        LookoutSubject("l", "lookout:./nope/lookout", "./nope/lookout")
