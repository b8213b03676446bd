"""The replay: subject: saved reports by scenario id, from a directory, a mapping file or a previous run."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_simian.errors import HarnessError, PackError, SubjectError
from pytest_simian.subjects.base import SubjectContext
from pytest_simian.subjects.replay import ReplaySubject

PROMPT = 'Assess the health of the "{ns}" namespace in this Kubernetes cluster and report what you find.'


@dataclasses.dataclass(frozen=True)
class Ctx(SubjectContext):
    """The proposed SubjectContext.scenario_id (the lead adds it to base.py)."""

    scenario_id: str = ""


def ctx(tmp_path: Path, sid: str = "", prompt: str = "p") -> SubjectContext:
    return Ctx(prompt=prompt, workdir=tmp_path, env={}, timeout=5, attempt_id="a1", scenario_id=sid)


def report(reason: str) -> dict[str, Any]:
    return {"overall_severity": "critical", "summary": reason,
            "findings": [{"kind": "Pod", "resource_name": "x", "reason": reason, "severity": "critical",
                          "title": reason, "detail": ""}]}


def test_directory_of_scenario_files(tmp_path: Path) -> None:
    d = tmp_path / "saved"
    d.mkdir()
    (d / "fault-payments.json").write_text(json.dumps(report("CrashLoopBackOff")))
    # one of our own report files works too
    (d / "fault-cache.json").write_text(json.dumps({"attempt_id": "a9", "scenario_id": "fault-cache",
                                                    "report": report("OOMKilled")}))
    s = ReplaySubject("r", f"replay:{d}", str(d))
    assert s.investigate(ctx(tmp_path, "fault-payments")).report == report("CrashLoopBackOff")
    assert s.investigate(ctx(tmp_path, "fault-cache")).report == report("OOMKilled")
    with pytest.raises(SubjectError, match="no saved report for scenario 'fault-none'"):
        s.investigate(ctx(tmp_path, "fault-none"))


def test_mapping_file_with_repeats_served_in_order(tmp_path: Path) -> None:
    f = tmp_path / "saved.json"
    f.write_text(json.dumps({"fault-payments": [report("A"), report("B")], "fault-cache": report("OOMKilled")}))
    s = ReplaySubject("r", f"replay:{f}", str(f))
    got = [s.investigate(ctx(tmp_path, "fault-payments")).report["summary"] for _ in range(3)]
    assert got == ["A", "B", "A"]


def test_scenario_id_is_needed(tmp_path: Path) -> None:
    f = tmp_path / "saved.json"
    f.write_text(json.dumps({"x": report("A")}))
    s = ReplaySubject("r", f"replay:{f}", str(f))
    plain = SubjectContext(prompt="p", workdir=tmp_path, env={}, timeout=5, attempt_id="a1")
    with pytest.raises(HarnessError, match="scenario id"):
        s.investigate(plain)


def _run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "reports").mkdir(parents=True)
    scenarios = {sid: {"prompt": PROMPT.format(ns=sid), "expect": []} for sid in ("fault-payments", "fault-cache",
                                                                                  "fault-ledger")}
    (run / "run.json").write_text(json.dumps({"format": "pytest-simian/run", "version": 1, "scenarios": scenarios,
                                              "subjects": [{"name": "agent"}, {"name": "lookout"}]}))
    events = []
    seq = 0

    def ev(aid: str, sid: str, name: str, t: int, **payload: Any) -> None:
        nonlocal seq
        seq += 1
        events.append({"v": 1, "ts": f"2026-11-29T15:00:{t:02d}.000000Z", "seq": seq, "worker": "main",
                       "event": name, "attempt_id": aid, "scenario_id": sid, "payload": payload})

    def attempt(aid: str, sid: str, subject: str, t: int, outcome: str) -> None:
        ev(aid, sid, "eval.scenario_started", t, subject=subject, nodeid="n", worker="main")
        if outcome == "report":
            rel = f"reports/{aid}.json"
            (run / rel).write_text(json.dumps({"attempt_id": aid, "scenario_id": sid, "subject": subject,
                                               "report": report(f"{subject}-{sid}-{aid}")}))
            ev(aid, sid, "eval.report_received", t + 1, report_file=rel)
        elif outcome == "subject_error":
            ev(aid, sid, "eval.subject_error", t + 1, why="exited 1: boom", exit_code=1)
        else:
            ev(aid, sid, "eval.inject_error", t + 1, why="probe timed out", stage="settle")
        ev(aid, sid, "eval.scenario_ended", t + 2, writes_attempted=0)

    attempt("a1", "fault-payments", "agent", 1, "report")
    attempt("a2", "fault-payments", "lookout", 4, "report")
    attempt("a3", "fault-cache", "agent", 7, "subject_error")
    attempt("a4", "fault-ledger", "agent", 10, "inject")
    attempt("a5", "fault-payments", "agent", 13, "report")
    (run / "audit.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return run


def test_previous_run_directory(tmp_path: Path) -> None:
    run = _run_dir(tmp_path)
    with pytest.raises(PackError, match="several subjects"):
        ReplaySubject("r", f"replay:{run}", str(run))
    with pytest.raises(PackError, match="no subject 'nobody'"):
        ReplaySubject("r", "replay:…", f"{run} --subject nobody")
    s = ReplaySubject("r", "replay:…", f"{run} --subject agent")
    first = s.investigate(ctx(tmp_path, "fault-payments"))
    assert first.report["summary"] == "agent-fault-payments-a1"
    assert first.extra["replayed_from"] == "run/a1"
    assert s.investigate(ctx(tmp_path, "fault-payments")).report["summary"] == "agent-fault-payments-a5"
    with pytest.raises(SubjectError, match="replayed subject error.*exited 1: boom"):
        s.investigate(ctx(tmp_path, "fault-cache"))
    with pytest.raises(HarnessError, match="no report to grade: probe timed out"):
        s.investigate(ctx(tmp_path, "fault-ledger"))


def test_run_directory_finds_the_scenario_by_prompt_without_the_id(tmp_path: Path) -> None:
    run = _run_dir(tmp_path)
    s = ReplaySubject("r", "replay:…", f"{run} --subject=lookout")
    plain = SubjectContext(prompt=PROMPT.format(ns="fault-payments"), workdir=tmp_path, env={}, timeout=5,
                           attempt_id="b1")
    assert s.investigate(plain).report["summary"] == "lookout-fault-payments-a2"


@pytest.mark.parametrize("make,why", [
    (lambda p: p / "missing", "does not exist"),
    (lambda p: (p / "bad.json").write_text("{nope") and p / "bad.json", "not JSON"),
    (lambda p: (p / "list.json").write_text("[1]") and p / "list.json", "mapping scenario id"),
    (lambda p: (p / "empty").mkdir() or p / "empty", "no <scenario-id>.json"),
])
def test_bad_sources_are_refused_before_anything_runs(tmp_path: Path, make, why: str) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    with pytest.raises(PackError, match=why):
        ReplaySubject("r", f"replay:{path}", str(path))
