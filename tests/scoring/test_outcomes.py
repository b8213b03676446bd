"""The outcome table of issue 2, through `decide()` on hand-built AttemptRecords, plus the gate and
the run-level efficacy rate, refusal line and exit status of `scorecard.evaluate_run`."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_simian.record.join import AttemptRecord, join
from pytest_simian.scoring.efficacy import manifested
from pytest_simian.scoring.measures import Expectation, GroundTruth
from pytest_simian.scoring.outcomes import ERROR, FAILED, PASSED, SKIPPED, Gate, decide
from pytest_simian.scoring.scorecard import evaluate_run, render_text
from pytest_simian.scoring.vocabulary import UPSTREAM

NS = "fault-imagepull"
WANT = Expectation(kind="Pod", name="checkout-api", reasons=("ImagePullBackOff", "ErrImagePull"),
                   also_accept_kinds=("Deployment",), min_severity="warning")
TRUTH = GroundTruth(scenario_id="imagepull", expect=(WANT,), also_true=(), severity="critical", namespaces=(NS,))
CONTROL = GroundTruth(scenario_id="none", expect=(), also_true=(), severity="ok", namespaces=("fault-none",))

GOOD_REPORT = {"overall_severity": "critical", "summary": "image pull failing", "findings": [
    {"kind": "Pod", "resource_name": "checkout-api-7d9f-x", "namespace": NS, "reason": "ImagePullBackOff",
     "severity": "critical", "title": "t", "detail": "d"}]}
WRONG_REPORT = {"overall_severity": "critical", "summary": "crash loop", "findings": [
    {"kind": "Pod", "resource_name": "checkout-api-7d9f-x", "namespace": NS, "reason": "CrashLoopBackOff",
     "severity": "critical", "title": "t", "detail": "d"}]}
OK_REPORT = {"overall_severity": "ok", "summary": "healthy", "findings": []}


def efficacy(fault_index: int, passed: bool, ts: str = "2026-11-29T12:00:10Z",
             probe: str = "pods pull") -> dict[str, Any]:
    return {"event": "fault.efficacy", "ts": ts,
            "payload": {"fault_index": fault_index, "passed": passed, "probe": probe, "type": "k8s"}}


def record(*, scenario: str = "imagepull", efficacies: tuple[dict[str, Any], ...] = (efficacy(0, True),),
           report: Any = None, received: str | None = "2026-11-29T12:00:22.5Z", ended: bool = True,
           **kw: Any) -> AttemptRecord:
    return AttemptRecord(attempt_id=kw.pop("attempt_id", "a1"), scenario_id=scenario, subject=kw.pop("subject", "s"),
                         started_at="2026-11-29T12:00:00Z", efficacy=list(efficacies), report=report,
                         report_received_at=received, ended=ended, **kw)


def verdict(rec: AttemptRecord, truth: GroundTruth = TRUTH, faults: int = 1, gate: Gate | None = None) -> Any:
    return decide(rec, truth, faults, UPSTREAM, gate or Gate.default())


# --------------------------------------------------------------------------- the outcome table


def test_not_valid_is_skipped_and_not_attempted() -> None:
    v = verdict(record(not_valid="NOT VALID ON sim — the embedded cluster cannot run this program",
                       efficacies=(), received=None))
    assert v.outcome == SKIPPED
    assert v.message == "NOT VALID ON sim — the embedded cluster cannot run this program"
    assert not v.attempted and not v.manifested and not v.scored
    assert v.scores == {}


def test_not_valid_message_from_the_audit_events() -> None:
    recs = join([{"event": "eval.scenario_started", "attempt_id": "a1", "scenario_id": "imagepull", "ts": "1",
                  "payload": {"subject": "s"}},
                 {"event": "eval.not_valid", "attempt_id": "a1", "ts": "2",
                  "payload": {"cluster": "sim", "why": "no container runtime"}}], {})
    v = verdict(recs["a1"])
    assert v.outcome == SKIPPED and not v.attempted
    assert v.message == "NOT VALID ON sim — no container runtime"


def test_inject_error_is_skipped_not_scored() -> None:
    v = verdict(record(inject_error="settle probe 'pods pull' timed out after 5m", efficacies=(), received=None))
    assert v.outcome == SKIPPED
    assert v.message == "NOT SCORED — settle probe 'pods pull' timed out after 5m"
    assert v.cell == "NOT SCORED"
    assert v.attempted and not v.manifested and not v.scored


def test_harness_failure_before_efficacy_is_error_not_scored() -> None:
    v = verdict(record(harness_error="audit log write failed", efficacies=(), received=None))
    assert v.outcome == ERROR
    assert v.message == "NOT SCORED — audit log write failed"
    assert v.cell == "NOT SCORED"
    assert v.attempted and not v.manifested and not v.scored


def test_interrupted_before_efficacy_is_error_not_scored() -> None:
    v = verdict(record(efficacies=(), received=None, ended=False))
    assert v.outcome == ERROR and v.message.startswith("NOT SCORED — ")
    assert not v.manifested and not v.scored


def test_harness_failure_after_efficacy_is_error_harness_error_manifested() -> None:
    v = verdict(record(harness_error="lookout exited with usage error 2", report=GOOD_REPORT))
    assert v.outcome == ERROR
    assert v.message == "HARNESS ERROR — lookout exited with usage error 2"
    assert v.cell == "HARNESS ERROR"
    assert v.attempted and v.manifested and not v.scored


def test_subject_error_is_failed_and_scored_as_no_report() -> None:
    v = verdict(record(subject_error="exit status 3", report=None))
    assert v.outcome == FAILED
    assert v.subject_error and v.manifested and v.scored
    assert "SUBJECT ERROR — exit status 3" in v.message
    assert {k: s.value for k, s in v.scores.items()} == {
        "fault_recall": 0.0, "hallucinated_fault": 0.0, "fault_severity": 0.0, "root_cause": None}


def test_subject_error_on_a_control_scores_hallucination_and_severity_zero() -> None:
    v = verdict(record(scenario="none", subject_error="timed out after 8m", report=None), truth=CONTROL)
    assert v.outcome == FAILED and v.scored
    assert {k: s.value for k, s in v.scores.items()} == {
        "fault_recall": None, "hallucinated_fault": 0.0, "fault_severity": 0.0, "root_cause": None}


def test_gate_holds_passes() -> None:
    v = verdict(record(report=GOOD_REPORT))
    assert v.outcome == PASSED and v.scored and v.manifested and v.report_structured
    assert v.scores["fault_recall"].value == 1.0


def test_severity_is_reported_never_gating() -> None:
    cold = dict(GOOD_REPORT, overall_severity="info")
    v = verdict(record(report=cold))
    assert v.scores["fault_severity"].value == pytest.approx(1 / 3)
    assert v.outcome == PASSED


def test_gate_fails_with_diff_like_message() -> None:
    v = verdict(record(report=WRONG_REPORT))
    assert v.outcome == FAILED and v.scored and v.manifested
    lines = v.message.splitlines()
    assert lines[0] == "diagnosis gate failed: fault_recall 0.00 < 1; hallucinated_fault 0.00 < 1"
    assert "- missed Pod/checkout-api ImagePullBackOff|ErrImagePull" in lines
    assert "+ charged CrashLoopBackOff(Pod/checkout-api-7d9f-x): family crash-loop was not injected" in lines


def test_gate_failure_marks_a_missed_root() -> None:
    root = Expectation("Pod", "session-store", ("CrashLoopBackOff",), root=True)
    svc = Expectation("Service", "session-store", ("NoEndpoints",))
    gt = GroundTruth("sessions", (root, svc), (), "critical", ("fault-sessions",))
    rep = {"overall_severity": "critical", "summary": "s", "findings": [
        {"kind": "Service", "resource_name": "session-store", "namespace": "fault-sessions",
         "reason": "NoEndpoints", "severity": "critical"}]}
    v = verdict(record(scenario="sessions", report=rep), truth=gt)
    assert v.outcome == FAILED
    assert "- missed Pod/session-store CrashLoopBackOff (root)" in v.message.splitlines()
    assert "root_cause 0.00 < 1" in v.message.splitlines()[0]


def test_unstructured_report_fails_the_gate_and_says_why() -> None:
    v = verdict(record(report={"overall_severity": "", "summary": ""}))
    assert v.outcome == FAILED and v.scored and not v.report_structured
    assert "(no structured report:" in v.message


def test_clear_failure_is_a_teardown_error_and_leaves_the_outcome() -> None:
    clean = verdict(record(report=GOOD_REPORT))
    v = verdict(record(report=GOOD_REPORT, clear_error="namespace fault-imagepull still terminating"))
    assert v.teardown_error == "namespace fault-imagepull still terminating"
    assert (v.outcome, v.manifested, v.scored, v.message) == (clean.outcome, clean.manifested, clean.scored,
                                                              clean.message)
    assert clean.teardown_error is None


def test_a_fault_with_a_failing_efficacy_record_is_not_manifested_even_if_another_passed() -> None:
    rec = record(efficacies=(efficacy(0, False, probe="pods pull"), efficacy(0, True)), report=GOOD_REPORT)
    assert not manifested(rec, 1)
    v = verdict(rec)
    assert not v.manifested and not v.scored
    assert v.outcome == ERROR and "NOT SCORED" in v.message and "'pods pull' did not pass" in v.message


def test_partial_cascade_is_not_manifested() -> None:
    rec = record(efficacies=(efficacy(0, True),), report=GOOD_REPORT)
    assert manifested(rec, 1)
    assert not manifested(rec, 2)
    v = verdict(rec, faults=2)
    assert not v.manifested and not v.scored
    assert v.outcome == ERROR and "fault 1 has no efficacy record" in v.message
    both = record(efficacies=(efficacy(0, True), efficacy(1, True)), report=GOOD_REPORT)
    assert verdict(both, faults=2).manifested


def test_no_efficacy_record_is_not_manifestation() -> None:
    rec = record(efficacies=(), report=GOOD_REPORT)
    assert not manifested(rec, 1)
    assert not verdict(rec).scored


def test_a_control_needs_a_passing_efficacy_record_and_then_is_scored() -> None:
    v = verdict(record(scenario="none", report=OK_REPORT), truth=CONTROL)
    assert v.manifested and v.scored and v.outcome == PASSED
    assert v.scores["fault_recall"].skipped and v.scores["hallucinated_fault"].value == 1.0
    unchecked = verdict(record(scenario="none", report=OK_REPORT, efficacies=()), truth=CONTROL)
    assert not unchecked.manifested and not unchecked.scored


def test_time_to_report_runs_from_efficacy_passed_to_report_returned() -> None:
    v = verdict(record(report=GOOD_REPORT, efficacies=(efficacy(0, True, ts="2026-11-29T12:00:10Z"),),
                       received="2026-11-29T12:00:22.5Z"))
    assert v.time_to_report == pytest.approx(12.5)


# --------------------------------------------------------------------------- Gate.parse


def test_gate_default_is_recall_root_and_hallucination_at_one() -> None:
    for text in (None, "", "  "):
        assert dict(Gate.parse(text).thresholds) == {"fault_recall": 1.0, "root_cause": 1.0,
                                                     "hallucinated_fault": 1.0}
    assert "fault_severity" not in Gate.default().thresholds


def test_gate_none_measures_only() -> None:
    gate = Gate.parse("none")
    assert dict(gate.thresholds) == {}
    assert gate.describe() == "none"
    v = verdict(record(report=WRONG_REPORT), gate=gate)
    assert v.outcome == PASSED and v.scored and v.scores["fault_recall"].value == 0.0


def test_gate_thresholds_parse() -> None:
    gate = Gate.parse("fault_recall>=0.5, hallucinated_fault>=1,fault_severity>=0")
    assert dict(gate.thresholds) == {"fault_recall": 0.5, "hallucinated_fault": 1.0, "fault_severity": 0.0}
    assert gate.describe() == "fault_recall>=0.5,hallucinated_fault>=1,fault_severity>=0"
    lenient = verdict(record(report={**GOOD_REPORT, "findings": GOOD_REPORT["findings"] + WRONG_REPORT["findings"]}),
                      gate=Gate.parse("fault_recall>=0.5,hallucinated_fault>=0.5"))
    assert lenient.scores["hallucinated_fault"].value == 0.5
    assert lenient.outcome == PASSED


@pytest.mark.parametrize("text", ["fault_recall>0.5", "fault_recall=1", "recall>=1", "fault_recall>=x",
                                  "fault_recall>=1.5", "fault_recall>=-0.1", "fault_recall>=1,", "None",
                                  "fault_recall>=1;root_cause>=1"])
def test_gate_bad_input_errors(text: str) -> None:
    with pytest.raises(ValueError, match="--simian-gate"):
        Gate.parse(text)


def test_skipped_measures_never_gate() -> None:
    v = verdict(record(scenario="none", report=OK_REPORT), truth=CONTROL, gate=Gate.parse("fault_recall>=1"))
    assert v.scores["fault_recall"].skipped and v.outcome == PASSED


# --------------------------------------------------------------------------- evaluate_run


def run_json(min_efficacy: float = 0.8, gate: str | None = None, subjects: tuple[str, ...] = ("s",)) -> dict[str, Any]:
    def entry(gt: GroundTruth) -> dict[str, Any]:
        return {"expect": [{"kind": w.kind, "name": w.name, "reasons": list(w.reasons),
                            "also_accept_kinds": list(w.also_accept_kinds), "min_severity": w.min_severity,
                            "root": w.root} for w in gt.expect],
                "also_true": list(gt.also_true), "severity": gt.severity, "namespaces": list(gt.namespaces),
                "fault_count": 1, "vocabulary": "upstream"}
    return {"scenarios": {"imagepull": entry(TRUTH), "none": entry(CONTROL), "other": entry(TRUTH)},
            "subjects": [{"name": n} for n in subjects], "gate": gate, "min_efficacy": min_efficacy,
            "clusters": [{"backend": "sim"}], "packs": []}


def recs(*rs: AttemptRecord) -> dict[str, AttemptRecord]:
    return {r.attempt_id: r for r in rs}


def test_efficacy_rate_counts_controls_and_excludes_not_valid() -> None:
    ev = evaluate_run(run_json(), recs(
        record(attempt_id="a1", report=GOOD_REPORT),
        record(attempt_id="a2", scenario="none", report=OK_REPORT),  # a manifested control counts
        record(attempt_id="a3", scenario="other", inject_error="apply refused", efficacies=(), received=None),
        record(attempt_id="a4", scenario="other", not_valid="NOT VALID ON sim — x", efficacies=(), received=None),
    ))
    assert (ev.attempts, ev.not_valid, ev.manifested) == (4, 1, 2)
    assert ev.efficacy_rate == pytest.approx(2 / 3)
    # Controls are in the denominator too: an unmanifested control lowers the rate.
    ev2 = evaluate_run(run_json(), recs(
        record(attempt_id="a1", report=GOOD_REPORT),
        record(attempt_id="a2", scenario="none", report=OK_REPORT, efficacies=())))
    assert ev2.efficacy_rate == pytest.approx(0.5)


def test_not_valid_is_outside_numerator_and_denominator() -> None:
    base = [record(attempt_id=f"a{i}", report=GOOD_REPORT) for i in range(4)]
    ev = evaluate_run(run_json(), recs(*base))
    nv = [record(attempt_id=f"n{i}", scenario="other", not_valid="NOT VALID ON sim — x", efficacies=(),
                 received=None) for i in range(6)]
    ev_nv = evaluate_run(run_json(), recs(*base, *nv))
    assert ev.efficacy_rate == ev_nv.efficacy_rate == 1.0
    assert not ev_nv.refused and ev_nv.exit_status(0) == 0


def two_of_three_manifested() -> list[AttemptRecord]:
    return [
        record(attempt_id="a1", report=GOOD_REPORT),
        record(attempt_id="a2", scenario="none", report=OK_REPORT),
        record(attempt_id="a3", scenario="other", inject_error="probe timed out", efficacies=(), received=None)]


def test_refusal_line_and_exit_status_below_min_efficacy() -> None:
    ev = evaluate_run(run_json(), recs(*two_of_three_manifested()))
    assert ev.refused
    assert ev.refusal_line() == ("REFUSED: efficacy 0.67 < 0.80 — the numbers above are unmeasured, not poor")
    assert render_text(ev).rstrip("\n").splitlines()[-1] == ev.refusal_line()
    assert ev.exit_status(0) == 1
    assert ev.exit_status(1) == 1
    # A lowered bar, said on the command line, accepts the same run.
    ev_low = evaluate_run(run_json(min_efficacy=0.5), recs(*two_of_three_manifested()))
    assert not ev_low.refused and ev_low.refusal_line() is None and ev_low.exit_status(0) == 0
    assert ev_low.exit_status(1) == 1


def test_means_include_subject_errors_and_exclude_unscored_attempts() -> None:
    ev = evaluate_run(run_json(gate="none"), recs(
        record(attempt_id="a1", report=GOOD_REPORT),  # recall 1
        record(attempt_id="a2", scenario="other", subject_error="exit 1"),  # hard zero that counts
        record(attempt_id="a3", scenario="other", harness_error="artifact I/O", report=GOOD_REPORT),  # excluded
        record(attempt_id="a4", scenario="other", inject_error="apply failed", efficacies=(), received=None),
    ))
    recall = ev.means["s"]["fault_recall"]
    assert (recall.value, recall.count) == (0.5, 2)
    assert ev.means["s"]["root_cause"].value is None and ev.means["s"]["root_cause"].count == 0
    assert ev.manifested == 3  # HARNESS ERROR after efficacy is manifested


def test_not_scored_is_shown_per_cell_and_listed_with_why() -> None:
    ev = evaluate_run(run_json(subjects=("s", "t")), recs(
        record(attempt_id="a1", scenario="other", report=GOOD_REPORT),
        record(attempt_id="a2", scenario="other", subject="t", inject_error="probe 'pods pull' timed out",
               efficacies=(), received=None)))
    text = render_text(ev)
    assert "  other [t]  NOT SCORED — probe 'pods pull' timed out" in text.splitlines()
    recall_rows = [ln.split() for ln in text.splitlines() if ln.startswith("  other") and "[" not in ln]
    assert recall_rows[0] == ["other", "1.00", "NOT", "SCORED"]  # the scored cell beside the unscored one
    assert ev.means["s"]["fault_recall"].count == 1 and ev.means["t"]["fault_recall"].count == 0
