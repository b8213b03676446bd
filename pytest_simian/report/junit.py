"""`simian-junit.xml`: one testcase per attempt, for CI systems that read JUnit.

Why: CI shows JUnit, so the run's verdicts must reach it, and from the artifacts (offline rescoring
regenerates the file). Each testcase's outcome is the `decide()` verdict the pytest item got, so this
file and pytest's own `--junitxml` agree on every attempt; what pytest's file cannot carry (the
per-measure scores, the efficacy rate, the means) is here: scores in `system-out`, run-level figures
as testsuite properties. Valid against the JUnit schema pytest validates its xunit2 output against
(tests/report/data/junit-10.xsd). That schema has no `<error>` element (it declares `<errors>`, which
no CI reads), so an error attempt is a `<failure type="simian.error">`; the testsuite's `errors`
attribute still counts it as an error, as pytest does.
Must not: decide an outcome (scoring.outcomes.decide does), or write a timestamp from a clock.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from pytest_simian.report.load import AttemptView, LoadedRun, load_run
from pytest_simian.scoring.measures import MEASURES
from pytest_simian.scoring.outcomes import ERROR, FAILED, SKIPPED

JUNIT_FILE = "simian-junit.xml"
SUITE_NAME = "simian"

_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """Text safe for XML 1.0: characters it cannot hold become `\\xNN` (as pytest's bin_xml_escape)."""
    return _ILLEGAL_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def mangle(nodeid: str) -> tuple[str, str]:
    """(classname, name) for a node id, the way pytest's junitxml derives them."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def _time(seconds: float | None) -> str:
    return f"{max(seconds or 0.0, 0.0):.3f}"


def _system_out(a: AttemptView) -> str:
    v = a.verdict
    lines = [f"attempt {v.attempt_id}: scenario {v.scenario_id}, subject {v.subject}, outcome {v.outcome}"]
    if v.scored:
        for m in MEASURES:
            s = v.scores[m]
            shown = "not measured" if s.value is None else f"{s.value:.2f}"
            lines.append(f"{m}: {shown} ({s.comment})")
    else:
        lines.append(v.message)
    if v.time_to_report is not None:
        lines.append(f"time_to_report: {v.time_to_report:.1f}s")
    return "\n".join(lines) + "\n"


def _testcase(a: AttemptView) -> ET.Element:
    v = a.verdict
    classname, name = mangle(a.nodeid) if a.nodeid else (f"simian.{v.scenario_id}", f"{v.scenario_id}[{v.subject}]")
    case = ET.Element("testcase", classname=xml_text(classname), name=xml_text(name), time=_time(a.duration))
    first = v.message.split("\n", 1)[0]
    if v.outcome == SKIPPED:
        ET.SubElement(case, "skipped", type="simian.skip", message=xml_text(first)).text = xml_text(v.message)
    elif v.outcome == FAILED:
        ET.SubElement(case, "failure", type="simian.subject-error" if v.subject_error else "simian.diagnosis",
                      message=xml_text(first)).text = xml_text(v.message)
    elif v.outcome == ERROR:
        ET.SubElement(case, "failure", type="simian.error", message=xml_text(first)).text = xml_text(v.message)
    if v.teardown_error:
        msg = f"clearing the faults failed: {v.teardown_error}"
        ET.SubElement(case, "failure", type="simian.teardown-error", message=xml_text(msg)).text = xml_text(msg)
    ET.SubElement(case, "system-out").text = xml_text(_system_out(a))
    return case


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def render_junit(loaded: LoadedRun) -> str:
    ev = loaded.evaluation
    verdicts = ev.verdicts
    total_time = sum(a.duration or 0.0 for a in loaded.attempts)
    suite = ET.Element("testsuite", name=SUITE_NAME, tests=str(len(verdicts)),
                       failures=str(sum(1 for v in verdicts if v.outcome == FAILED)),
                       errors=str(sum(1 for v in verdicts if v.outcome == ERROR)
                                  + sum(1 for v in verdicts if v.teardown_error)),
                       skipped=str(sum(1 for v in verdicts if v.outcome == SKIPPED)),
                       time=_time(total_time))
    started = loaded.run.get("started_at")
    if started:
        suite.set("timestamp", str(started))
    props = ET.SubElement(suite, "properties")
    rate = ev.efficacy_rate
    figures: list[tuple[str, str]] = [
        ("simian.cluster", ev.cluster), ("simian.gate", ev.gate),
        ("simian.efficacy_rate", _fmt(rate)), ("simian.efficacy_manifested", str(ev.manifested)),
        ("simian.efficacy_attempts", str(ev.attempts - ev.not_valid)), ("simian.not_valid", str(ev.not_valid)),
        ("simian.min_efficacy", f"{ev.min_efficacy:.2f}"), ("simian.refused", "true" if ev.refused else "false"),
    ]
    refusal = ev.refusal_line()
    if refusal:
        figures.append(("simian.refusal", refusal))
    if loaded.floor:
        figures.append(("simian.floor", loaded.floor))
    for subject in loaded.subjects():
        for m in MEASURES:
            mean = ev.means.get(subject, {}).get(m)
            figures.append((f"simian.mean.{subject}.{m}", _fmt(mean.value if mean else None)))
            figures.append((f"simian.mean.{subject}.{m}.n", str(mean.count if mean else 0)))
    for name, value in figures:
        ET.SubElement(props, "property", name=xml_text(name), value=xml_text(value))
    for a in loaded.attempts:
        suite.append(_testcase(a))
    root = ET.Element("testsuites", name="pytest-simian")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(run_dir: Path, *, loaded: LoadedRun | None = None) -> Path:
    """Write `simian-junit.xml` into `run_dir` from its artifacts; return its path."""
    loaded = loaded or load_run(run_dir)
    path = run_dir / JUNIT_FILE
    path.write_text(render_junit(loaded), encoding="utf-8")
    return path
