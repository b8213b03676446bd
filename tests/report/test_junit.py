"""simian-junit.xml: valid against the schema pytest validates its xunit2 output against, and in
agreement with the verdicts (the same `decide()`), with pytest's own `--junitxml`, live and offline."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema

from pytest_simian.report.junit import JUNIT_FILE, mangle, render_junit, write_junit, xml_text
from pytest_simian.report.load import load_run
from tests.foundation.conftest import GOOD_REPORT, Rig, scenario
from tests.report.conftest import DATA
from tests.report.runs import golden_attempts, write_run

SCHEMA = DATA / "junit-10.xsd"

# What a JUnit consumer sees for each verdict outcome (the schema has no <error>: see junit.py).
ELEMENT = {"passed": None, "failed": "failure", "skipped": "skipped", "error": "failure"}


def _validate(path: Path) -> ET.Element:
    xmlschema.XMLSchema(str(SCHEMA)).validate(str(path))
    return ET.parse(path).getroot()


def _outcome(case: ET.Element) -> str:
    kids = [k for k in case if k.tag in ("failure", "skipped")]
    if not kids:
        return "passed"
    if kids[0].tag == "skipped":
        return "skipped"
    return "error" if kids[0].get("type") == "simian.error" else "failed"


def test_valid_against_pytests_junit_schema_and_agrees_with_the_verdicts(run_dir: Path) -> None:
    root = _validate(write_junit(run_dir))
    loaded = load_run(run_dir)
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(golden_attempts()) == len(loaded.evaluation.verdicts)
    for case, v in zip(cases, loaded.evaluation.verdicts, strict=True):
        assert case.get("name") == f"{v.scenario_id}[{v.subject}]"
        assert case.get("classname") == "simian:demo"
        assert _outcome(case) == v.outcome
        el = ELEMENT[v.outcome]
        if el:
            assert case.find(el).get("message") == v.message.split("\n")[0]  # type: ignore[union-attr]
        out = case.find("system-out").text or ""  # type: ignore[union-attr]
        if v.scored:
            for m, s in v.scores.items():
                assert f"{m}: {'not measured' if s.value is None else f'{s.value:.2f}'}" in out
        else:
            assert v.message in out
    suite = root.find("testsuite")
    assert suite is not None
    counts = (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped"))
    assert counts == ("6", "2", "0", "1")
    assert suite.get("timestamp") == "2026-01-02T03:00:00.000000Z"


def test_run_level_figures_are_testsuite_properties(run_dir: Path) -> None:
    root = _validate(write_junit(run_dir))
    props = {p.get("name"): p.get("value") for p in root.iterfind("./testsuite/properties/property")}
    assert props["simian.efficacy_rate"] == "0.8333"
    assert props["simian.efficacy_manifested"] == "5"
    assert props["simian.efficacy_attempts"] == "6"
    assert props["simian.refused"] == "false"
    assert props["simian.floor"] == "lookout"
    assert props["simian.mean.agent.fault_severity"] == "0.3333"
    assert props["simian.mean.agent.fault_severity.n"] == "2"
    assert props["simian.mean.lookout.root_cause.n"] == "1"
    assert props["simian.mean.agent.hallucinated_fault.n"] == "2"  # NOT SCORED is outside the means


def test_error_outcome_is_a_failure_the_schema_accepts(tmp_path: Path) -> None:
    attempts = [("a0000000000e1", "checkout", "lookout", "report", {"overall_severity": "critical", "summary": "x"})]
    d = write_run(tmp_path / "run", attempts)
    (d / "reports" / "a0000000000e1.json").unlink()  # a report that cannot be read back: a harness error
    root = _validate(write_junit(d))
    (case,) = root.iterfind("./testsuite/testcase")
    fail = case.find("failure")
    assert fail is not None and fail.get("type") == "simian.error"
    assert fail.get("message", "").startswith("HARNESS ERROR — ")
    assert root.find("testsuite").get("errors") == "1"  # type: ignore[union-attr]


def test_text_the_schema_cannot_hold_is_escaped(run_dir: Path) -> None:
    assert xml_text("a\x00b\x1bc\td") == "a\\x00b\\x1bc\td"
    ET.fromstring(render_junit(load_run(run_dir)).encode())


def test_mangle_matches_pytest() -> None:
    assert mangle("simian:demo::checkout[agent]") == ("simian:demo", "checkout[agent]")
    assert mangle("tests/test_x.py::TestA::test_b[x::y]") == ("tests.test_x.TestA", "test_b[x::y]")


def test_live_and_offline_junit_agree_with_pytests_junitxml(rig: Rig, tmp_path: Path) -> None:
    good = rig.reporting("good.sh", GOOD_REPORT)
    pack = rig.pack([
        scenario("checkout", "shop"),
        scenario("quiet", "docs", expect=[]),
        scenario("nope", "pay", faults=[{"engine": "fake", "kind": "Thing", "namespace": "pay", "duration": "2h",
                                          "params": {"raise": "inject"}}], settle_timeout="1s"),
        scenario("lost", "down-inv", faults=[{"engine": "fake", "kind": "Thing", "namespace": "down-inv",
                                               "duration": "2h"}]),
    ])
    pytest_xml = tmp_path / "pytest.xml"
    rig.run(f"--simian-pack={pack}", "--simian-subject=noop:", f"--simian-subject=good=exec:{good}",
            f"--junitxml={pytest_xml}", "-o", "junit_family=xunit2")
    (live,) = rig.runs()
    ours = _validate(live / JUNIT_FILE)
    theirs = ET.parse(pytest_xml).getroot()

    def outcomes(root: ET.Element, *, pytest_file: bool) -> dict[str, str]:
        out = {}
        for case in root.iter("testcase"):
            if pytest_file:
                kid = next((k.tag for k in case if k.tag in ("failure", "error", "skipped")), None)
                out[case.get("name", "")] = {None: "passed", "failure": "failed", "error": "error",
                                             "skipped": "skipped"}[kid]
            else:
                out[case.get("name", "")] = _outcome(case)
        return out

    live_outcomes = outcomes(ours, pytest_file=False)
    assert live_outcomes == outcomes(theirs, pytest_file=True)
    assert set(live_outcomes.values()) == {"passed", "failed", "skipped", "error"}
    assert (live / "report.html").is_file()

    result = rig.run(f"--simian-offline={live}")
    assert "simian scorecard" in result.stdout.str()
    (rescored,) = [r for r in rig.runs() if r.name.endswith("-rescored")]
    offline = _validate(rescored / JUNIT_FILE)
    assert outcomes(offline, pytest_file=False) == live_outcomes
    rescored_html = (rescored / "report.html").read_text()
    assert "; rescored offline" in rescored_html
    assert rescored_html.replace("; rescored offline", "") == (live / "report.html").read_text()
