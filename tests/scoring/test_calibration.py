"""Upstream's calibration cases (upstream-scoring.md §8) on the eleven parity fixtures as recorded.

Ground truth comes from data/parity_truth.yaml, transcribed from ../shared/reference/upstream-parity-record.yaml
(see the comment at its top), so these tests read nothing outside the repository.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_simian.scoring.measures import Expectation, GroundTruth, injected_families, score_report
from pytest_simian.scoring.report import Finding, Report
from pytest_simian.scoring.vocabulary import UPSTREAM

DATA = Path(__file__).parent / "data" / "parity_truth.yaml"

UPSTREAM_ORDER = ["fault-imagepull", "fault-crashloop", "fault-oomkill", "fault-unschedulable", "fault-failedjob",
                  "fault-badselector", "fault-none", "fault-storefront", "fault-sessions", "fault-ledger",
                  "fault-invoicing"]


def parity_fixtures() -> list[dict[str, Any]]:
    return list(yaml.safe_load(DATA.read_text(encoding="utf-8"))["fixtures"])


def ground_truth(fixture: dict[str, Any]) -> GroundTruth:
    """GroundTruth for one recorded fixture: its Wants, severity and its own namespace."""
    return GroundTruth(
        scenario_id=fixture["id"],
        expect=tuple(Expectation(kind=w["kind"], name=w["name"], reasons=tuple(w["reasons"]),
                                 also_accept_kinds=tuple(w["also_accept_kinds"]), min_severity=w["min_severity"],
                                 root=bool(w["root"]))
                     for w in fixture["wants"]),
        also_true=(),
        severity=fixture["severity"],
        namespaces=(fixture["namespace"],),
    )


FIXTURES = parity_fixtures()
TRUTHS = {f["id"]: ground_truth(f) for f in FIXTURES}


def finding(ns: str, kind: str, name: str, reason: str, severity: str) -> Finding:
    return Finding(kind=kind, resource_name=name, namespace=ns, reason=reason, severity=severity,
                   title="reference finding", detail="reference detail")


def perfect_report(gt: GroundTruth) -> Report:
    """Upstream's perfect run: one finding per Want (its kind, name, first reason, min severity or
    warning, the fixture namespace); overall = expected severity."""
    return Report(
        overall_severity=gt.severity or "ok", summary="reference answer",
        findings=tuple(finding(gt.namespaces[0], w.kind, w.name, w.reasons[0] if w.reasons else "",
                               w.min_severity or "warning") for w in gt.expect))


def values(scores: dict[str, Any]) -> dict[str, float | None]:
    return {k: s.value for k, s in scores.items()}


def test_the_transcribed_record_has_the_eleven_fixtures_in_upstream_order() -> None:
    assert [f["id"] for f in FIXTURES] == UPSTREAM_ORDER
    assert all(f["namespace"] == f["id"] for f in FIXTURES)
    assert {f["id"]: len(f["wants"]) for f in FIXTURES} == {
        "fault-imagepull": 1, "fault-crashloop": 1, "fault-oomkill": 1, "fault-unschedulable": 1,
        "fault-failedjob": 1, "fault-badselector": 1, "fault-none": 0, "fault-storefront": 3,
        "fault-sessions": 2, "fault-ledger": 1, "fault-invoicing": 1}
    assert {f["id"]: f["severity"] for f in FIXTURES} == {
        "fault-imagepull": "critical", "fault-crashloop": "critical", "fault-oomkill": "critical",
        "fault-unschedulable": "critical", "fault-failedjob": "warning", "fault-badselector": "warning",
        "fault-none": "ok", "fault-storefront": "critical", "fault-sessions": "critical",
        "fault-ledger": "critical", "fault-invoicing": "critical"}
    assert [gt.scenario_id for gt in TRUTHS.values() if any(w.root for w in gt.expect)] == ["fault-sessions"]


@pytest.mark.parametrize("fixture_id", UPSTREAM_ORDER)
def test_perfect_run_scores_one_on_every_unskipped_measure(fixture_id: str) -> None:
    gt = TRUTHS[fixture_id]
    scores = score_report(perfect_report(gt), gt, UPSTREAM)
    unskipped = {k: v for k, v in values(scores).items() if v is not None}
    assert unskipped and all(v == 1.0 for v in unskipped.values()), {k: s.comment for k, s in scores.items()}
    skipped = sorted(k for k, v in values(scores).items() if v is None)
    if fixture_id == "fault-none":
        assert skipped == ["fault_recall", "root_cause"]
    elif fixture_id == "fault-sessions":
        assert skipped == []
    else:
        assert skipped == ["root_cause"]


def test_floor_an_ok_report_with_no_findings_recalls_nothing() -> None:
    clean = Report(overall_severity="ok", summary="no issues detected", findings=())
    recall = [score_report(clean, gt, UPSTREAM)["fault_recall"].value for gt in TRUTHS.values()]
    scored = [r for r in recall if r is not None]
    assert len(scored) == 10
    assert sum(scored) / len(scored) <= 0.25
    assert sum(scored) == 0.0
    # It invented nothing, so hallucination is full marks everywhere.
    assert all(score_report(clean, gt, UPSTREAM)["hallucinated_fault"].value == 1.0 for gt in TRUTHS.values())


def carpet_bomb(gt: GroundTruth) -> Report:
    """Every fixture's Wants (first reason, critical), claimed in the scored fixture's namespace."""
    return Report(overall_severity="critical", summary="everything is broken", findings=tuple(
        finding(gt.namespaces[0], w.kind, w.name, w.reasons[0] if w.reasons else "", "critical")
        for other in TRUTHS.values() for w in other.expect))


def test_carpet_bombing_buys_recall_and_pays_in_hallucination() -> None:
    recall, hallucination = [], []
    for gt in TRUTHS.values():
        scores = score_report(carpet_bomb(gt), gt, UPSTREAM)
        if scores["fault_recall"].value is not None:
            recall.append(scores["fault_recall"].value)
        hallucination.append(scores["hallucinated_fault"].value)
    assert sum(recall) / len(recall) >= 0.9
    mean = sum(hallucination) / len(hallucination)
    assert mean <= 0.4
    # Ten family claims per report (two first reasons are the generic Unschedulable, invoicing's is coined);
    # per fixture the real ones are its own families' claims.
    assert dict(zip(TRUTHS, hallucination, strict=True)) == pytest.approx({
        "fault-imagepull": 0.2, "fault-crashloop": 0.2, "fault-oomkill": 0.1, "fault-unschedulable": 0.0,
        "fault-failedjob": 0.2, "fault-badselector": 0.2, "fault-none": 0.0, "fault-storefront": 0.4,
        "fault-sessions": 0.4, "fault-ledger": 0.1, "fault-invoicing": 0.0})
    # Over the eleven fixtures the mean is 1.8/11 = 0.164, not AGENTS.md's 0.180. The 0.180 is the same
    # sum over ten fixtures: upstream recorded it before fault-invoicing existed (invoicing adds no claim to
    # the bomb and scores 0 itself). Our rules reproduce upstream's number exactly on those ten.
    assert mean == pytest.approx(1.8 / 11)
    ten = [h for fid, h in zip(TRUTHS, hallucination, strict=True) if fid != "fault-invoicing"]
    assert round(sum(ten) / len(ten), 3) == 0.180


def test_misdiagnosis_crash_loop_on_unschedulable_scores_zero_recall_and_zero_hallucination() -> None:
    gt = TRUTHS["fault-unschedulable"]
    r = Report("critical", "pod is crash looping", (
        finding("fault-unschedulable", "Pod", "analytics-etl-abc123", "CrashLoopBackOff", "critical"),))
    scores = score_report(r, gt, UPSTREAM)
    assert scores["fault_recall"].value == 0.0
    assert scores["hallucinated_fault"].value == 0.0


def test_healthy_fixture_separates_advice_from_invention() -> None:
    gt = TRUTHS["fault-none"]
    advisory = Report("warning", "workloads are running; configuration could be tightened", (
        finding("fault-none", "Deployment", "docs-site", "MissingProbes", "warning"),))
    invention = Report("critical", "workload is crash looping", (
        finding("fault-none", "Pod", "docs-site-abc123", "CrashLoopBackOff", "critical"),))
    adv = score_report(advisory, gt, UPSTREAM)
    assert adv["hallucinated_fault"].value == 1.0
    assert adv["fault_severity"].value == pytest.approx(1 / 3)  # advisories cost severity, not hallucination
    assert score_report(invention, gt, UPSTREAM)["hallucinated_fault"].value == 0.0


def test_root_cause_on_fault_sessions_separates_cause_from_symptom() -> None:
    gt = TRUTHS["fault-sessions"]
    cause = finding("fault-sessions", "Pod", "session-store-7d9f4-x2k9", "CrashLoopBackOff", "critical")
    symptom = finding("fault-sessions", "Service", "session-store", "NoEndpoints", "critical")

    def run(*fs: Finding) -> dict[str, float | None]:
        return values(score_report(Report("critical", "s", fs), gt, UPSTREAM))

    assert run(symptom)["fault_recall"] == 0.5 and run(symptom)["root_cause"] == 0.0
    assert run(cause)["fault_recall"] == 0.5 and run(cause)["root_cause"] == 1.0
    assert run(symptom, cause)["fault_recall"] == 1.0 and run(symptom, cause)["root_cause"] == 1.0


@pytest.mark.parametrize("fixture_id", UPSTREAM_ORDER)
def test_prose_only_run_scores_every_unskipped_measure_zero(fixture_id: str) -> None:
    gt = TRUTHS[fixture_id]
    got = values(score_report(None, gt, UPSTREAM))
    assert got["hallucinated_fault"] == 0.0
    assert got["fault_severity"] == 0.0
    assert got["fault_recall"] == (None if fixture_id == "fault-none" else 0.0)
    assert got["root_cause"] == (0.0 if fixture_id == "fault-sessions" else None)


@pytest.mark.parametrize(("token", "family"), [
    ("CrashLoopBackOff", "crash-loop"), ("crash_loop_back_off", "crash-loop"), ("OOMKilled", "oom"),
    ("ImagePullBackOff", "image-pull"), ("NoEndpoints", "no-endpoints"), ("VolumeBindingFailed", "volume-binding"),
    ("InsufficientCPU", "resource-pressure"), ("InsufficientMemory", "resource-pressure"), ("FailedMount", "disk"),
    ("ImagePullError", "image-pull"), ("JobFailed", "job-failed"), ("BackoffLimitExceeded", "job-failed"),
    ("NodeNotReady", "node-down"),
])
def test_pinned_family_lookups(token: str, family: str) -> None:
    assert UPSTREAM.family_of(token) == family


@pytest.mark.parametrize("token", [
    "MissingResourceLimits", "NoPodDisruptionBudget", "LatestImageTag", "MissingProbes", "", "Pending", "Failed",
    "Error", "Unhealthy", "FailedScheduling", "Unschedulable", "PodsNotReady", "ContainersNotReady",
    "ProgressDeadlineExceeded", "CrashLoop", "ContainerCrashLoopBackOff", "OOMKilledRepeatedly", "ReplicaFailure",
    "FailedCreate", "ContainerCreating", "PodInitializing", "Terminating", "Completed", "ScalingReplicaSet",
    "SuccessfulCreate", "ReadinessProbeFailed", "LivenessProbeFailed", "FailedGetResourceMetric",
    "NotTriggerScaleUp", "NoNetworkPolicy", "SingleReplicaNoPDB", "IntentionalZeroReplicas", "SlowWebhookRisk",
    "SecretNotFound", "ConfigMapNotFound",
])
def test_pinned_tokens_resolve_to_no_family(token: str) -> None:
    assert UPSTREAM.family_of(token) is None


PINNED_INJECTED = {
    "fault-imagepull": {"image-pull"}, "fault-crashloop": {"crash-loop"}, "fault-oomkill": {"oom"},
    "fault-unschedulable": {"resource-pressure"}, "fault-failedjob": {"job-failed"},
    "fault-badselector": {"no-endpoints"}, "fault-none": set(),
    "fault-storefront": {"image-pull", "job-failed", "resource-pressure"},
    "fault-sessions": {"crash-loop", "no-endpoints"}, "fault-ledger": {"volume-binding"}, "fault-invoicing": set(),
}


@pytest.mark.parametrize("fixture_id", UPSTREAM_ORDER)
def test_pinned_injected_families_per_fixture(fixture_id: str) -> None:
    fixture = next(f for f in FIXTURES if f["id"] == fixture_id)
    assert set(fixture["injected_families"]) == PINNED_INJECTED[fixture_id]  # the record agrees with §5.2
    assert injected_families(TRUTHS[fixture_id], UPSTREAM) == PINNED_INJECTED[fixture_id]


def test_fault_invoicing_charges_every_family_claim() -> None:
    gt = TRUTHS["fault-invoicing"]
    honest = finding("fault-invoicing", "Pod", "invoice-reconciler-5f-x", "ConnectionRefused", "critical")
    assert values(score_report(Report("critical", "s", (honest,)), gt, UPSTREAM))["fault_recall"] == 1.0
    for token in ("CrashLoopBackOff", "OOMKilled", "NoEndpoints", "ImagePullBackOff"):
        claim = finding("fault-invoicing", "Pod", "invoice-reconciler-5f-x", token, "warning")
        scores = score_report(Report("critical", "s", (honest, claim)), gt, UPSTREAM)
        assert scores["hallucinated_fault"].value == 0.0, token
        assert scores["fault_recall"].value == 1.0, token  # recall is untouched by the charge


@pytest.mark.parametrize("reason", [
    "ConnectionRefused", "connection_refused", "connection-refused", "ConnectionFailure", "Unreachable",
    "DatabaseUnreachable", "UpstreamUnreachable", "BackendUnreachable", "DependencyUnreachable",
    "DependencyFailure", "DependencyMissing", "DataDependencyMissing", "Connection", "Refused", "Failure",
    "Dependency", "Missing",
])
def test_fault_invoicing_reason_matcher_accepts(reason: str) -> None:
    gt = TRUTHS["fault-invoicing"]
    r = Report("critical", "s", (finding("fault-invoicing", "Pod", "invoice-reconciler", reason, "critical"),))
    assert score_report(r, gt, UPSTREAM)["fault_recall"].value == 1.0


@pytest.mark.parametrize("reason", [
    "Available", "Unavailable", "Progressing", "Ready", "NotReady", "Running", "ReplicaFailure",
    "ProgressDeadlineExceeded", "Error", "Errors", "Failed", "Pending", "Healthy", "MissingProbes", "MissingPDB",
    "NoPodDisruptionBudget", "SingleReplica", "SingleReplicaNoPDB", "MissingResourceLimits", "LatestImageTag",
    "NoServiceDefined", "RolloutIncomplete", "ExcessiveRestarts", "SuspectImage", "PodsNotReady",
    "SlowWebhookRisk", "CrashLoopBackOff", "OOMKilled", "ImagePullBackOff", "NoEndpoints",
    "ServiceHasNoEndpoints", "Unschedulable",
])
def test_fault_invoicing_reason_matcher_rejects_status_only_reasons(reason: str) -> None:
    gt = TRUTHS["fault-invoicing"]
    r = Report("critical", "s", (finding("fault-invoicing", "Pod", "invoice-reconciler", reason, "critical"),))
    assert score_report(r, gt, UPSTREAM)["fault_recall"].value == 0.0
