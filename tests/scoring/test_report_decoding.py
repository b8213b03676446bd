"""decode_report and last_json_object: the subject's report read the way upstream decodes a HealthReport
(upstream-scoring.md §2–§3; issue 2, "Pack format": never `extra="forbid"`)."""

from __future__ import annotations

import json

import pytest

from pytest_simian.scoring.report import Finding, decode_report, last_json_object

FULL = {
    "overall_severity": "critical",
    "summary": "CRITICAL: checkout-api cannot pull its image",
    "findings": [{
        "severity": "critical", "title": "image pull failing", "detail": "ErrImagePull for 2m",
        "namespace": "fault-imagepull", "kind": "Pod", "resource_name": "checkout-api-7d9f-x2k9",
        "reason": "ImagePullBackOff",
    }],
}


def test_full_health_report_decodes_field_for_field() -> None:
    decoded = decode_report(FULL)
    assert decoded.structured and decoded.why == ""
    r = decoded.report
    assert r is not None
    assert (r.overall_severity, r.summary) == ("critical", "CRITICAL: checkout-api cannot pull its image")
    assert r.findings == (Finding(kind="Pod", resource_name="checkout-api-7d9f-x2k9", namespace="fault-imagepull",
                                  reason="ImagePullBackOff", severity="critical", title="image pull failing",
                                  detail="ErrImagePull for 2m"),)
    assert r.extra == {}


def test_unknown_fields_are_kept_and_ignored() -> None:
    obj = json.loads(json.dumps(FULL))
    obj["recommended_actions"] = ["fix the image tag", "roll back"]
    obj["confidence"] = 0.9
    obj["findings"][0]["evidence"] = {"events": 3}
    decoded = decode_report(obj)
    assert decoded.report is not None
    assert decoded.report.extra == {"recommended_actions": ["fix the image tag", "roll back"], "confidence": 0.9}
    assert decoded.report.findings[0].extra == {"evidence": {"events": 3}}
    # Ignored: the known fields decode exactly as without them.
    plain = decode_report(FULL).report
    assert plain is not None
    assert (decoded.report.overall_severity, decoded.report.summary) == (plain.overall_severity, plain.summary)
    f, g = decoded.report.findings[0], plain.findings[0]
    assert (f.kind, f.resource_name, f.namespace, f.reason, f.severity) == (
        g.kind, g.resource_name, g.namespace, g.reason, g.severity)


def test_name_is_an_alias_for_resource_name() -> None:
    decoded = decode_report({"overall_severity": "warning", "summary": "s",
                             "findings": [{"kind": "Service", "name": "frontend", "severity": "warning"}]})
    assert decoded.report is not None
    assert decoded.report.findings[0].resource_name == "frontend"
    both = decode_report({"overall_severity": "warning", "summary": "s",
                          "findings": [{"resource_name": "real", "name": "alias", "severity": "warning"}]})
    assert both.report is not None
    assert both.report.findings[0].resource_name == "real"  # the canonical field wins


@pytest.mark.parametrize("findings", ["missing", None, []])
def test_missing_findings_means_no_findings(findings: object) -> None:
    obj: dict[str, object] = {"overall_severity": "ok", "summary": "all healthy"}
    if findings != "missing":
        obj["findings"] = findings
    decoded = decode_report(obj)
    assert decoded.report is not None
    assert decoded.report.findings == ()


def test_missing_finding_fields_decode_as_empty_strings() -> None:
    decoded = decode_report({"overall_severity": "warning", "summary": "s", "findings": [{"title": "t"}]})
    assert decoded.report is not None
    f = decoded.report.findings[0]
    assert (f.kind, f.resource_name, f.namespace, f.reason, f.severity, f.detail) == ("",) * 6


@pytest.mark.parametrize("obj", [
    {"overall_severity": "", "summary": ""},
    {"overall_severity": "", "summary": "", "findings": [FULL["findings"][0]]},  # type: ignore[index]
    {},
    {"findings": []},
    {"recommended_actions": ["x"]},
    {"overall_severity": None, "summary": None},
])
def test_both_overall_severity_and_summary_empty_is_no_structured_report(obj: dict[str, object]) -> None:
    decoded = decode_report(obj)
    assert decoded.report is None and not decoded.structured
    assert "neither overall_severity nor summary" in decoded.why


def test_either_overall_severity_or_summary_alone_is_a_structured_report() -> None:
    only_severity = decode_report({"overall_severity": "ok"})
    only_summary = decode_report({"summary": "looked around"})
    assert only_severity.report is not None and only_severity.report.summary == ""
    assert only_summary.report is not None and only_summary.report.overall_severity == ""


def test_severities_are_free_strings() -> None:
    decoded = decode_report({"overall_severity": "Critical", "summary": "s",
                             "findings": [{"severity": "HIGH", "kind": "Pod"}]})
    assert decoded.report is not None
    assert decoded.report.overall_severity == "Critical"
    assert decoded.report.findings[0].severity == "HIGH"


@pytest.mark.parametrize(("obj", "where"), [
    ({"overall_severity": 3, "summary": "s"}, "overall_severity"),
    ({"overall_severity": "ok", "summary": ["s"]}, "summary"),
    ({"overall_severity": "ok", "summary": "s", "findings": "none"}, "findings"),
    ({"overall_severity": "ok", "summary": "s", "findings": {"kind": "Pod"}}, "findings"),
    ({"overall_severity": "ok", "summary": "s", "findings": ["Pod/x"]}, "findings[0]"),
    ({"overall_severity": "ok", "summary": "s", "findings": [{"severity": 2}]}, "findings[0].severity"),
    ({"overall_severity": "ok", "summary": "s", "findings": [{}, {"resource_name": 7}]}, "findings[1].resource_name"),
    ({"overall_severity": "ok", "summary": "s", "findings": [{"name": True}]}, "findings[0].name"),
])
def test_wrong_field_types_are_no_structured_report(obj: dict[str, object], where: str) -> None:
    decoded = decode_report(obj)
    assert decoded.report is None
    assert "HealthReport shape" in decoded.why and where in decoded.why


@pytest.mark.parametrize("value", [None, [], [FULL], "report", 3, True])
def test_a_value_that_is_not_an_object_is_no_structured_report(value: object) -> None:
    decoded = decode_report(value)
    assert decoded.report is None
    assert decoded.why == "the report is not a JSON object"


def test_single_key_wrapper_is_unwrapped() -> None:
    for key in ("report", "health_report", "args"):
        decoded = decode_report({key: FULL})
        assert decoded.report is not None, key
        assert decoded.report.overall_severity == "critical"
        assert len(decoded.report.findings) == 1


def test_wrapper_is_unwrapped_only_when_single_key_and_inner_has_overall_severity() -> None:
    # Inner object without overall_severity: not unwrapped, and the outer object is no report.
    assert decode_report({"report": {"summary": "s"}}).report is None
    # Two keys: not a wrapper; the outer object is decoded as it is.
    two = decode_report({"report": FULL, "summary": "outer"})
    assert two.report is not None
    assert two.report.summary == "outer" and two.report.overall_severity == "" and two.report.findings == ()
    # A single-key wrapper whose value is not an object is no report either.
    assert decode_report({"report": json.dumps(FULL)}).report is None


# --------------------------------------------------------------------------- last_json_object


def test_last_json_object_finds_the_report_after_narration() -> None:
    text = "I looked at the pods {kubectl get pods}. Here is my report:\n" + json.dumps(FULL) + "\n"
    assert last_json_object(text) == FULL


def test_last_json_object_does_not_mistake_a_nested_object_for_the_report() -> None:
    text = "narration\n" + json.dumps(FULL, indent=2)
    got = last_json_object(text)
    assert got == FULL
    assert got is not None and "overall_severity" in got


def test_last_json_object_takes_the_last_of_several_objects() -> None:
    draft = {"overall_severity": "ok", "summary": "draft"}
    text = json.dumps(draft) + "\nthinking again...\n" + json.dumps(FULL)
    assert last_json_object(text) == FULL


def test_last_json_object_ignores_trailing_garbage() -> None:
    text = json.dumps(FULL) + "\n}} done {not json"
    assert last_json_object(text) == FULL


@pytest.mark.parametrize("text", ["", "no report today", "[1, 2, 3]", '"a string"', "{broken: json}", "}{"])
def test_last_json_object_returns_none_without_an_object(text: str) -> None:
    assert last_json_object(text) is None


def test_last_json_object_skips_a_broken_object_before_the_report() -> None:
    text = '{"overall_severity": "ok", oops\n' + json.dumps(FULL)
    assert last_json_object(text) == FULL


def test_last_json_object_then_decode_is_the_whole_read() -> None:
    text = "prelude\n" + json.dumps({"submit_health_report": FULL}) + "\n"
    decoded = decode_report(last_json_object(text))
    assert decoded.report is not None and decoded.report.findings[0].reason == "ImagePullBackOff"
    assert decode_report(last_json_object("nothing parseable")).report is None


def test_field_names_match_case_insensitively_as_upstreams_json_unmarshal_does() -> None:
    """Upstream decodes with Go's encoding/json (`json.Unmarshal` into schema.HealthReport, runner.go
    decodeReport), which matches object keys to the json tags ignoring case. A report written with
    capitalised keys is therefore a structured report upstream, with its fields read."""
    obj = {"Overall_Severity": "critical", "SUMMARY": "image pull failing", "Findings": [
        {"Kind": "Pod", "Resource_Name": "checkout-api", "Namespace": "fault-imagepull",
         "Reason": "ImagePullBackOff", "Severity": "critical", "Title": "t", "Detail": "d"}]}
    decoded = decode_report(obj)
    assert decoded.report is not None, decoded.why
    assert (decoded.report.overall_severity, decoded.report.summary) == ("critical", "image pull failing")
    f = decoded.report.findings[0]
    assert (f.kind, f.resource_name, f.namespace, f.reason, f.severity) == (
        "Pod", "checkout-api", "fault-imagepull", "ImagePullBackOff", "critical")

