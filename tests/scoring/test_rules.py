"""One test per scoring rule of seed §6.5 and upstream-scoring.md §4–§5, each named after its rule.

The code under test is pure (scoring/measures.py, report.py, vocabulary.py): every test builds a
GroundTruth and a Report by hand and asserts the number the rule prescribes. A regression in any one
rule fails the test named after it.
"""

from __future__ import annotations

import pytest

from pytest_simian.pack.models import ExpectedFinding, FaultSpec, Scenario
from pytest_simian.scoring.measures import (
    Expectation,
    GroundTruth,
    claims,
    fault_recall,
    fault_severity,
    hallucinated_fault,
    injected_families,
    root_cause,
    satisfies,
    score_report,
)
from pytest_simian.scoring.report import SEVERITY_RANK, Finding, Report, decode_report, rank
from pytest_simian.scoring.vocabulary import UPSTREAM, Vocabulary, normalize

NS = "fault-imagepull"

# Upstream's Want matcher unit case (upstream-scoring.md §4): Pod/checkout-api, also Deployment,
# reasons ImagePullBackOff/ErrImagePull, min warning.
CHECKOUT = Expectation(kind="Pod", name="checkout-api", reasons=("ImagePullBackOff", "ErrImagePull"),
                       also_accept_kinds=("Deployment",), min_severity="warning")


def truth(*expect: Expectation, also_true: tuple[str, ...] = (), severity: str | None = "critical",
          namespaces: tuple[str, ...] = (NS,), scenario_id: str = "s") -> GroundTruth:
    return GroundTruth(scenario_id=scenario_id, expect=tuple(expect), also_true=also_true, severity=severity,
                       namespaces=namespaces)


def finding(kind: str = "Pod", name: str = "checkout-api", reason: str = "ImagePullBackOff",
            severity: str = "critical", namespace: str = NS) -> Finding:
    return Finding(kind=kind, resource_name=name, namespace=namespace, reason=reason, severity=severity,
                   title="t", detail="d")


def report(*findings: Finding, overall: str = "critical") -> Report:
    return Report(overall_severity=overall, summary="s", findings=tuple(findings))


def matches(f: Finding, want: Expectation = CHECKOUT, gt: GroundTruth | None = None) -> bool:
    return satisfies(f, want, gt or truth(want))


# --------------------------------------------------------------------------- §4 matching a finding


def test_kind_matches_case_insensitively_including_also_accept_kinds() -> None:
    assert matches(finding(kind="Pod"))
    assert matches(finding(kind="pod"))
    assert matches(finding(kind="POD"))
    assert matches(finding(kind="Deployment"))
    assert matches(finding(kind="deployment"))
    assert not matches(finding(kind="Node"))
    assert not matches(finding(kind="ReplicaSet"))  # not in this want's also_accept_kinds
    assert not matches(finding(kind=""))


def test_name_matches_exactly_or_as_dash_prefix_case_sensitive() -> None:
    assert matches(finding(name="checkout-api"))
    assert matches(finding(name="checkout-api-7d9f4b6c8-x2k9"))  # generated pod suffix
    assert matches(finding(name="  checkout-api  "))  # reported name is trimmed
    assert not matches(finding(name="checkout"))  # reversed prefix
    assert not matches(finding(name="checkout-apiserver"))  # sibling without the dash
    assert not matches(finding(name="Checkout-api"))  # case-sensitive
    assert not matches(finding(name="CHECKOUT-API-7d9f"))
    assert not matches(finding(name="payments-api"))  # other workload
    assert not matches(finding(name=""))  # empty name never matches
    assert not matches(finding(name="   "))


def test_reasons_match_normalized_bidirectional_substring() -> None:
    # Normalized: `_`, `-`, space deleted, lowercased.
    assert matches(finding(reason="ImagePullBackOff"))
    assert matches(finding(reason="imagepullbackoff"))
    assert matches(finding(reason="image_pull_back_off"))
    assert matches(finding(reason="Image-Pull Back-Off"))
    # Reported reason contains an accepted token.
    assert matches(finding(reason="ContainerImagePullBackOffRepeated"))
    # Accepted token contains the reported reason (the other direction).
    assert matches(finding(reason="PullBack"))
    assert matches(finding(reason="Err"))
    # Only `_`, `-` and space are removed: other punctuation is kept.
    assert not matches(finding(reason="Image.Pull.BackOff"))
    # A different failure mode, or an empty reason, fails.
    assert not matches(finding(reason="CrashLoopBackOff"))
    assert not matches(finding(reason=""))
    assert not matches(finding(reason=" _- "))


def test_want_without_reasons_accepts_any_reason() -> None:
    want = Expectation(kind="Service", name="frontend")
    gt = truth(want)
    assert satisfies(finding(kind="Service", name="frontend", reason="Whatever"), want, gt)
    assert satisfies(finding(kind="Service", name="frontend", reason=""), want, gt)


def test_min_severity_is_graded_by_exact_lowercase_rank() -> None:
    assert matches(finding(severity="warning"))
    assert matches(finding(severity="critical"))
    assert not matches(finding(severity="info"))
    assert not matches(finding(severity=""))
    assert not matches(finding(severity="Critical"))  # capitalised ranks 0
    ungraded = Expectation(kind="Pod", name="checkout-api", reasons=("ImagePullBackOff",))
    assert satisfies(finding(severity="info"), ungraded, truth(ungraded))
    assert satisfies(finding(severity="whatever"), ungraded, truth(ungraded))


def test_finding_outside_named_namespaces_is_ignored() -> None:
    gt = truth(CHECKOUT)
    assert satisfies(finding(namespace=NS), CHECKOUT, gt)
    assert satisfies(finding(namespace=""), CHECKOUT, gt)  # cluster-scoped: always in scope
    assert not satisfies(finding(namespace="default"), CHECKOUT, gt)
    assert not satisfies(finding(namespace=NS.upper()), CHECKOUT, gt)  # exact, case-sensitive
    assert fault_recall(report(finding(namespace="other")), gt).value == 0.0
    # Out of scope for the hallucination measure too: a bogus claim elsewhere is not charged.
    bogus_elsewhere = finding(reason="OOMKilled", namespace="other")
    assert hallucinated_fault(report(finding(), bogus_elsewhere), gt, UPSTREAM).value == 1.0
    assert hallucinated_fault(report(finding(), finding(reason="OOMKilled")), gt, UPSTREAM).value == 0.5


def test_finding_in_any_namespace_the_scenario_names_counts() -> None:
    gt = truth(CHECKOUT, namespaces=("shop", "shop-db"))
    assert fault_recall(report(finding(namespace="shop-db")), gt).value == 1.0
    assert fault_recall(report(finding(namespace=NS)), gt).value == 0.0


def test_control_holding_whole_cluster_is_scored_on_its_own_namespace_only() -> None:
    # The arena's hold is isolation, not scope: a control is scored on the namespace it names.
    control = truth(severity="ok", namespaces=("fault-none",))
    other_scenarios_faults = report(
        finding(namespace="fault-crashloop", kind="Pod", name="payments-worker", reason="CrashLoopBackOff"),
        finding(namespace="fault-oomkill", kind="Pod", name="cache-warmer", reason="OOMKilled"),
        overall="ok",
    )
    assert hallucinated_fault(other_scenarios_faults, control, UPSTREAM).value == 1.0
    invented_here = report(finding(namespace="fault-none", kind="Pod", name="docs-site", reason="CrashLoopBackOff"))
    assert hallucinated_fault(invented_here, control, UPSTREAM).value == 0.0


# --------------------------------------------------------------------------- §5.2 family lookup


def test_family_lookup_is_exact_not_substring() -> None:
    assert UPSTREAM.family_of("CrashLoopBackOff") == "crash-loop"
    assert UPSTREAM.family_of("crash_loop_back_off") == "crash-loop"  # normalized, then exact
    assert UPSTREAM.family_of(" Crash-Loop Back-Off ") == "crash-loop"
    # Abbreviations and elaborations of a family token resolve to nothing.
    assert UPSTREAM.family_of("CrashLoop") is None
    assert UPSTREAM.family_of("ContainerCrashLoopBackOff") is None
    assert UPSTREAM.family_of("OOMKilledRepeatedly") is None
    # Bare tokens removed upstream must not annex longer tokens.
    assert UPSTREAM.family_of("ProgressDeadlineExceeded") is None
    assert UPSTREAM.family_of("PodsNotReady") is None
    assert UPSTREAM.family_of("ContainersNotReady") is None
    assert UPSTREAM.family_of("NodeNotReady") == "node-down"
    # Two matchers: CrashLoop satisfies a crash-loop want but is not itself a family claim.
    want = Expectation(kind="Pod", name="w", reasons=("CrashLoopBackOff",))
    gt = truth(want)
    f = finding(name="w", reason="CrashLoop")
    assert satisfies(f, want, gt)
    assert claims(report(f), gt, UPSTREAM) == []


def test_generic_reasons_are_never_charged() -> None:
    generic = ["Pending", "Failed", "Error", "Unhealthy", "FailedScheduling", "Unschedulable",
               "failed_scheduling", "UNSCHEDULABLE"]
    for token in generic:
        assert UPSTREAM.family_of(token) is None, token
    # Exact exclusion, not substring: the families containing those words still resolve.
    assert UPSTREAM.family_of("FailedMount") == "disk"
    assert UPSTREAM.family_of("ImagePullError") == "image-pull"
    assert UPSTREAM.family_of("JobFailed") == "job-failed"
    # The exclusion holds even for a vocabulary that lists a generic token in a family (as upstream's once did
    # with Unschedulable): generic first, then the exact lookup.
    old = Vocabulary(name="t", version="0", families={"scheduling": ("Unschedulable", "InsufficientCPU")},
                     generic=UPSTREAM.generic)
    assert old.family_of("Unschedulable") is None
    assert old.family_of("InsufficientCPU") == "scheduling"
    # On a control, a critical report full of generic reasons is not invention.
    control = truth(severity="ok", namespaces=("fault-none",))
    r = report(*(finding(namespace="fault-none", name="docs-site", reason=t) for t in generic))
    s = hallucinated_fault(r, control, UPSTREAM)
    assert s.value == 1.0
    assert s.comment == "claimed no concrete failure mode"


def test_advisories_are_never_charged() -> None:
    advisories = ["MissingProbes", "NoPodDisruptionBudget", "MissingResourceLimits", "LatestImageTag",
                  "NoNetworkPolicy", "SingleReplicaNoPDB", "SecretNotFound", "ConfigMapNotFound", ""]
    for token in advisories:
        assert UPSTREAM.family_of(token) is None, token
    control = truth(severity="ok", namespaces=("fault-none",))
    r = report(*(finding(namespace="fault-none", name="docs-site", kind="Deployment", reason=t, severity="warning")
                 for t in advisories), overall="warning")
    assert hallucinated_fault(r, control, UPSTREAM).value == 1.0


def test_each_family_token_belongs_to_exactly_one_family() -> None:
    seen: dict[str, str] = {}
    for family, tokens in UPSTREAM.families.items():
        for token in tokens:
            assert normalize(token) not in seen, token
            seen[normalize(token)] = family
            assert UPSTREAM.family_of(token) == family
    assert set(UPSTREAM.families) == {"image-pull", "crash-loop", "oom", "resource-pressure", "job-failed",
                                      "no-endpoints", "node-down", "disk", "volume-binding"}


def test_injected_families_are_read_from_the_scenarios_own_reasons() -> None:
    gt = truth(Expectation("Pod", "a", ("Unschedulable", "InsufficientCPU", "Pending")),
               Expectation("Job", "b", ("BackoffLimitExceeded", "Failed", "DeadlineExceeded")))
    assert injected_families(gt, UPSTREAM) == {"resource-pressure", "job-failed"}
    # also_true is not an injected family: it licenses without requiring.
    gt2 = truth(Expectation("Deployment", "web", ("ProgressDeadlineExceeded",)), also_true=("CrashLoopBackOff",))
    assert injected_families(gt2, UPSTREAM) == set()


# --------------------------------------------------------------------------- §5.2 hallucinated_fault


def test_claims_are_in_scope_findings_at_warning_or_worse_with_a_family_reason() -> None:
    gt = truth(CHECKOUT)
    r = report(
        finding(reason="OOMKilled", severity="info"),  # below warning: not a claim
        finding(reason="OOMKilled", severity="Critical"),  # capitalised ranks 0: not a claim
        finding(reason="OOMKilled", namespace="elsewhere"),  # out of scope: not a claim
        finding(reason="OOMKilledRepeatedly"),  # no family: not a claim
        finding(reason="ImagePullBackOff", severity="warning"),  # real claim
    )
    cl = claims(r, gt, UPSTREAM)
    assert [(c.finding.reason, c.family, c.charged) for c in cl] == [("ImagePullBackOff", "image-pull", False)]
    assert hallucinated_fault(r, gt, UPSTREAM).value == 1.0


def test_hallucinated_fault_is_one_minus_bogus_over_claims() -> None:
    gt = truth(CHECKOUT)
    r = report(finding(), finding(reason="ErrImagePull"), finding(reason="OOMKilled"),
               finding(reason="CrashLoopBackOff", severity="warning"))
    s = hallucinated_fault(r, gt, UPSTREAM)
    assert s.value == pytest.approx(0.5)
    assert s.comment.startswith("2/4 failure claims are real")
    assert "invented=OOMKilled(Pod/checkout-api),CrashLoopBackOff(Pod/checkout-api)" in s.comment


def test_no_claims_scores_hallucinated_fault_one() -> None:
    s = hallucinated_fault(report(overall="ok"), truth(CHECKOUT), UPSTREAM)
    assert s.value == 1.0
    assert s.comment == "claimed no concrete failure mode"


def test_duplicates_count_individually_as_claims() -> None:
    gt = truth(CHECKOUT)
    real = finding()
    bogus = finding(reason="OOMKilled")
    assert hallucinated_fault(report(real, bogus), gt, UPSTREAM).value == pytest.approx(0.5)
    assert hallucinated_fault(report(real, real, real, bogus), gt, UPSTREAM).value == pytest.approx(0.75)
    assert hallucinated_fault(report(real, bogus, bogus, bogus), gt, UPSTREAM).value == pytest.approx(0.25)
    assert len(claims(report(bogus, bogus), gt, UPSTREAM)) == 2


def test_hallucinated_fault_is_not_a_precision_metric() -> None:
    # Extra findings that claim no family (advisories, other objects) never cost anything.
    gt = truth(CHECKOUT)
    r = report(finding(), finding(kind="Deployment", name="unrelated", reason="MissingResourceLimits"),
               finding(kind="Service", name="x", reason="PodsNotReady"))
    assert hallucinated_fault(r, gt, UPSTREAM).value == 1.0
    assert fault_recall(r, gt).value == 1.0


def test_misdiagnosis_of_a_real_fault_is_charged() -> None:
    want = Expectation("Pod", "analytics-etl", ("Unschedulable", "FailedScheduling", "InsufficientCPU",
                                                "InsufficientResources", "Pending"), ("Deployment", "ReplicaSet"),
                       "warning")
    gt = truth(want, namespaces=("fault-unschedulable",))
    r = report(finding(namespace="fault-unschedulable", name="analytics-etl-abc123", reason="CrashLoopBackOff"))
    assert fault_recall(r, gt).value == 0.0
    assert hallucinated_fault(r, gt, UPSTREAM).value == 0.0


# --------------------------------------------------------------------------- also_true (seed §6.5)

ROLLOUT = Expectation(kind="Deployment", name="web", reasons=("ProgressDeadlineExceeded", "RolloutStalled"),
                      min_severity="warning")
BAD_ROLLOUT = truth(ROLLOUT, also_true=("CrashLoopBackOff",), namespaces=("bad-rollout",),
                    scenario_id="bad-rollout")
DEPLOYMENT_STALLED = finding(kind="Deployment", name="web", reason="ProgressDeadlineExceeded", namespace="bad-rollout")
POD_CRASH_LOOP = finding(kind="Pod", name="web-6b7f9c-abcde", reason="CrashLoopBackOff", namespace="bad-rollout")


def test_also_true_licenses_a_claim_without_adding_to_recall() -> None:
    without = truth(ROLLOUT, namespaces=("bad-rollout",))
    r = report(POD_CRASH_LOOP)
    # Licensed: the same claim is charged without also_true and not charged with it.
    assert hallucinated_fault(r, without, UPSTREAM).value == 0.0
    assert hallucinated_fault(r, BAD_ROLLOUT, UPSTREAM).value == 1.0
    # ...and it adds nothing to recall.
    assert fault_recall(r, BAD_ROLLOUT).value == 0.0
    assert fault_recall(r, without).value == 0.0
    # It licenses a family, not one object or one spelling: any crash-loop token in scope.
    r2 = report(finding(kind="Pod", name="anything", reason="crash_loop_back_off", namespace="bad-rollout"),
                finding(kind="Pod", name="other", reason="CrashLooping", namespace="bad-rollout"))
    assert hallucinated_fault(r2, BAD_ROLLOUT, UPSTREAM).value == 1.0
    # Only that family: another family is still charged.
    r3 = report(POD_CRASH_LOOP, finding(kind="Pod", name="web-1", reason="OOMKilled", namespace="bad-rollout"))
    assert hallucinated_fault(r3, BAD_ROLLOUT, UPSTREAM).value == pytest.approx(0.5)


def test_bad_rollout_crash_loop_pod_licensed_by_also_true_is_not_charged() -> None:
    scores = score_report(report(DEPLOYMENT_STALLED, POD_CRASH_LOOP), BAD_ROLLOUT, UPSTREAM)
    assert scores["hallucinated_fault"].value == 1.0
    assert scores["fault_recall"].value == 1.0
    assert all(not c.charged for c in claims(report(DEPLOYMENT_STALLED, POD_CRASH_LOOP), BAD_ROLLOUT, UPSTREAM))


def test_bad_rollout_report_of_only_the_crash_loop_is_charged_by_recall_not_precision() -> None:
    scores = score_report(report(POD_CRASH_LOOP), BAD_ROLLOUT, UPSTREAM)
    assert scores["fault_recall"].value == 0.0
    assert "missed=Deployment/web" in scores["fault_recall"].comment
    assert scores["hallucinated_fault"].value == 1.0


def test_oom_declines_the_crash_loop_exemption() -> None:
    oom = truth(Expectation("Pod", "cache-warmer", ("OOMKilled", "OutOfMemory", "MemoryLimitExceeded"),
                            ("Deployment", "ReplicaSet"), "warning"), namespaces=("oom",), scenario_id="oom")
    assert oom.also_true == ()
    crash_loop_instead = report(finding(name="cache-warmer-5d6f-x1", reason="CrashLoopBackOff", namespace="oom"))
    scores = score_report(crash_loop_instead, oom, UPSTREAM)
    assert scores["hallucinated_fault"].value == 0.0
    assert "invented=CrashLoopBackOff(Pod/cache-warmer-5d6f-x1)" in scores["hallucinated_fault"].comment
    assert scores["fault_recall"].value == 0.0
    # The crash loop beside the diagnosis is charged too (one real, one invented).
    both = report(finding(name="cache-warmer-5d6f-x1", reason="OOMKilled", namespace="oom"),
                  finding(name="cache-warmer-5d6f-x1", reason="CrashLoopBackOff", namespace="oom"))
    assert hallucinated_fault(both, oom, UPSTREAM).value == pytest.approx(0.5)


def _scenario(**kw: object) -> Scenario:
    base: dict[str, object] = dict(
        id="s", prompt="Assess the health of the \"shop\" namespace.",
        faults=[FaultSpec(kind="NoOp", namespace="shop")], severity="ok")
    base.update(kw)
    return Scenario.model_validate(base)


def test_control_is_a_scenario_with_empty_expect_and_severity_ok() -> None:
    assert _scenario().is_control
    with pytest.raises(ValueError, match="severity ok"):
        _scenario(severity="warning")
    crash = ExpectedFinding(kind="Pod", name="web", reasons=["CrashLoopBackOff"])
    assert not _scenario(expect=[crash], severity="critical").is_control


def test_control_may_not_carry_also_true() -> None:
    with pytest.raises(ValueError, match="also_true"):
        _scenario(also_true=["CrashLoopBackOff"])


def test_also_true_entry_naming_no_family_is_rejected() -> None:
    crash = ExpectedFinding(kind="Deployment", name="web", reasons=["ProgressDeadlineExceeded"])
    ok = _scenario(expect=[crash], severity="critical", also_true=["CrashLoopBackOff"])
    ok.check_also_true("upstream")
    for token in ("CrashLoop", "Pending", "RolloutStuck"):
        sc = _scenario(expect=[crash], severity="critical", also_true=[token])
        with pytest.raises(ValueError, match="names no failure family"):
            sc.check_also_true("upstream")


# --------------------------------------------------------------------------- §5.1 fault_recall


def test_recall_is_wants_satisfied_over_wants() -> None:
    a = Expectation("Pod", "a", ("CrashLoopBackOff",))
    b = Expectation("Service", "b", ("NoEndpoints",))
    c = Expectation("Job", "c", ("BackoffLimitExceeded",))
    gt = truth(a, b, c)
    s = fault_recall(report(finding(name="a-1", reason="CrashLoopBackOff")), gt)
    assert s.value == pytest.approx(1 / 3)
    assert s.comment == "found 1/3 missed=Job/c,Service/b"
    assert fault_recall(report(), gt).value == 0.0


def test_one_finding_may_satisfy_several_wants() -> None:
    a = Expectation("Pod", "web", ("CrashLoopBackOff",))
    b = Expectation("Deployment", "web", (), also_accept_kinds=("Pod",))
    assert fault_recall(report(finding(name="web", reason="CrashLoopBackOff")), truth(a, b)).value == 1.0


def test_recall_skipped_on_controls() -> None:
    control = truth(severity="ok", namespaces=("fault-none",))
    s = fault_recall(report(overall="ok"), control)
    assert s.skipped and s.value is None
    assert s.comment == "healthy fixture; nothing to recall"
    # The skip comes before the missing-report zero.
    assert fault_recall(None, control).skipped


# --------------------------------------------------------------------------- §5.3 fault_severity


@pytest.mark.parametrize(("reported", "expected", "value"), [
    ("critical", "critical", 1.0), ("warning", "critical", 2 / 3), ("info", "critical", 1 / 3),
    ("ok", "critical", 0.0), ("critical", "warning", 2 / 3), ("warning", "ok", 1 / 3), ("info", "ok", 2 / 3),
    ("critical", "ok", 0.0), ("ok", "ok", 1.0),
])
def test_fault_severity_is_one_minus_rank_distance_over_three(reported: str, expected: str, value: float) -> None:
    s = fault_severity(report(overall=reported), truth(CHECKOUT, severity=expected))
    assert s.value == pytest.approx(value)


def test_fault_severity_uses_only_overall_severity_not_findings() -> None:
    r = report(finding(severity="info"), overall="critical")
    assert fault_severity(r, truth(CHECKOUT)).value == 1.0


def test_report_without_overall_severity_scores_fault_severity_zero() -> None:
    decoded = decode_report({"summary": "pods cannot pull their image", "findings": []})
    assert decoded.report is not None  # a summary alone is still a structured report
    gt = truth(CHECKOUT)
    s = fault_severity(decoded.report, gt)
    assert s.value == 0.0 and not s.skipped
    # ...while its findings are still scored.
    decoded2 = decode_report({"summary": "x", "findings": [
        {"kind": "Pod", "resource_name": "checkout-api", "namespace": NS, "reason": "ErrImagePull",
         "severity": "critical"}]})
    assert decoded2.report is not None
    assert fault_recall(decoded2.report, gt).value == 1.0
    assert fault_severity(decoded2.report, gt).value == 0.0


def test_invalid_or_capitalised_overall_severity_scores_zero() -> None:
    gt = truth(CHECKOUT, severity="critical")
    for bad in ("Critical", "CRITICAL", "high", "severe", " critical", "critical "):
        s = fault_severity(report(overall=bad), gt)
        assert s.value == 0.0, bad
        assert s.comment.startswith("invalid severity"), bad
    # Invalid is zero even where rank 0 would otherwise be exact.
    assert fault_severity(report(overall="OK"), truth(severity="ok")).value == 0.0


def test_capitalised_finding_severity_ranks_zero() -> None:
    assert SEVERITY_RANK == {"ok": 0, "info": 1, "warning": 2, "critical": 3}
    for s in ("Critical", "WARNING", "Warning", "high", ""):
        assert rank(s) == 0, s
    gt = truth(CHECKOUT)
    # Fails min_severity, so it does not satisfy the want...
    assert fault_recall(report(finding(severity="Critical")), gt).value == 0.0
    # ...and is not counted as a hallucination claim.
    assert hallucinated_fault(report(finding(reason="OOMKilled", severity="Critical")), gt, UPSTREAM).value == 1.0
    # A capitalised-severities report from end to end.
    decoded = decode_report({"overall_severity": "Critical", "summary": "x", "findings": [
        {"kind": "Pod", "resource_name": "checkout-api", "namespace": NS, "reason": "ImagePullBackOff",
         "severity": "Critical"},
        {"kind": "Pod", "resource_name": "checkout-api", "namespace": NS, "reason": "OOMKilled",
         "severity": "Warning"}]})
    assert decoded.report is not None
    scores = score_report(decoded.report, gt, UPSTREAM)
    assert {k: s.value for k, s in scores.items()} == {
        "fault_recall": 0.0, "hallucinated_fault": 1.0, "fault_severity": 0.0, "root_cause": None}


def test_fault_severity_skipped_when_no_expected_severity() -> None:
    assert fault_severity(report(), truth(CHECKOUT, severity=None)).skipped
    assert fault_severity(None, truth(CHECKOUT, severity=None)).skipped


# --------------------------------------------------------------------------- §5.4 root_cause

SESSIONS_ROOT = Expectation("Pod", "session-store", ("CrashLoopBackOff", "CrashLoop"), ("Deployment", "ReplicaSet"),
                            "warning", root=True)
SESSIONS_SVC = Expectation("Service", "session-store", ("NoEndpoints", "NoReadyEndpoints", "EmptyEndpoints",
                                                        "ServiceHasNoEndpoints", "NoHealthyBackends", "Unavailable"),
                           ("Endpoints", "EndpointSlice"))
SESSIONS = truth(SESSIONS_ROOT, SESSIONS_SVC, namespaces=("fault-sessions",), scenario_id="fault-sessions")
CAUSE = finding(kind="Pod", name="session-store-7d9f4-x2k9", reason="CrashLoopBackOff", namespace="fault-sessions")
SYMPTOM = finding(kind="Service", name="session-store", reason="NoEndpoints", namespace="fault-sessions")


def test_root_cause_scored_separately_from_recall() -> None:
    symptom_only = score_report(report(SYMPTOM), SESSIONS, UPSTREAM)
    cause_only = score_report(report(CAUSE), SESSIONS, UPSTREAM)
    both = score_report(report(SYMPTOM, CAUSE), SESSIONS, UPSTREAM)
    assert symptom_only["fault_recall"].value == pytest.approx(0.5)
    assert symptom_only["root_cause"].value == 0.0
    assert symptom_only["root_cause"].comment == "named 0/1 root causes missed=Pod/session-store"
    assert cause_only["fault_recall"].value == pytest.approx(0.5)
    assert cause_only["root_cause"].value == 1.0
    assert both["fault_recall"].value == 1.0
    assert both["root_cause"].value == 1.0  # reporting the symptom as well costs nothing
    # Only the wants marked root are graded, wherever they sit in the list.
    reordered = truth(SESSIONS_SVC, SESSIONS_ROOT, namespaces=("fault-sessions",))
    assert root_cause(report(SYMPTOM), reordered).value == 0.0
    assert root_cause(report(CAUSE), reordered).value == 1.0


def test_root_cause_skipped_without_a_root_want() -> None:
    s = root_cause(report(finding()), truth(CHECKOUT))
    assert s.skipped
    assert root_cause(None, truth(CHECKOUT)).skipped
    assert root_cause(None, truth(severity="ok")).skipped


# --------------------------------------------------------------------------- §5.6 no structured report


def test_no_structured_report_scores_every_unskipped_measure_zero() -> None:
    for gt in (SESSIONS, truth(CHECKOUT)):
        scores = score_report(None, gt, UPSTREAM)
        assert list(scores) == ["fault_recall", "hallucinated_fault", "fault_severity", "root_cause"]
        for s in scores.values():
            if gt is SESSIONS or s.name != "root_cause":
                assert s.value == 0.0, s
                assert s.comment == "agent produced no structured report"
    assert score_report(None, truth(CHECKOUT), UPSTREAM)["root_cause"].skipped
    # On a control: hallucination and severity are 0; recall and root_cause stay skipped.
    control = score_report(None, truth(severity="ok", namespaces=("fault-none",)), UPSTREAM)
    assert {k: s.value for k, s in control.items()} == {
        "fault_recall": None, "hallucinated_fault": 0.0, "fault_severity": 0.0, "root_cause": None}


def test_report_with_empty_overall_severity_and_summary_is_no_structured_report() -> None:
    decoded = decode_report({"overall_severity": "", "summary": "", "findings": [
        {"kind": "Pod", "resource_name": "checkout-api", "namespace": NS, "reason": "ImagePullBackOff",
         "severity": "critical"}]})
    assert decoded.report is None
    scores = score_report(decoded.report, truth(CHECKOUT), UPSTREAM)
    assert scores["fault_recall"].value == 0.0
    assert scores["hallucinated_fault"].value == 0.0
