"""Hand-written run directories for the report tests: run.json, audit lines and report files.

Why: the golden report must not depend on a clock, a cluster or the lifecycle, so the artifacts are
written here directly, in the documented format, with fixed timestamps and attempt ids.
Must not: read a clock or run pytest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROMPT = 'Assess the health of the "shop" namespace & report <what> you find.'


def _scenarios() -> dict[str, Any]:
    def scen(prompt: str, severity: str, expect: list[dict[str, Any]], ns: str, **extra: Any) -> dict[str, Any]:
        return {"pack": "demo", "file": "x.yaml", "vocabulary": "upstream", "name": "n", "prompt": prompt,
                "severity": severity, "expect": expect, "also_true": extra.get("also_true", []),
                "namespaces": [ns], "fault_count": 1,
                "faults": [{"kind": "Thing", "namespace": ns, "engine": "fake"}], "control": not expect}

    pull = {"kind": "Pod", "name": "checkout-api", "reasons": ["ImagePullBackOff", "ErrImagePull"],
            "also_accept_kinds": ["Deployment"], "min_severity": "warning", "root": True}
    job = {"kind": "Job", "name": "nightly", "reasons": ["BackoffLimitExceeded"], "root": False}
    return {
        "checkout": scen(PROMPT, "critical", [pull], "shop"),
        "quiet": scen('Assess the health of the "docs" namespace.', "ok", [], "docs"),
        "nightly": scen('Assess the health of the "batch" namespace.', "warning", [job], "batch"),
    }


def finding(kind: str, name: str, ns: str, reason: str, severity: str = "critical") -> dict[str, str]:
    return {"kind": kind, "resource_name": name, "namespace": ns, "reason": reason, "severity": severity,
            "title": f"{name} is {reason}", "detail": "<b>not bold</b>"}


# attempt id → (scenario, subject, how it goes, report)
Attempt = tuple[str, str, str, Any]


def golden_attempts() -> list[Attempt]:
    return [
        ("a000000000001", "checkout", "lookout", "report",
         {"overall_severity": "critical", "summary": "image pull failing",
          "findings": [finding("Pod", "checkout-api-7d9f", "shop", "ImagePullBackOff")]}),
        ("a000000000002", "checkout", "agent", "report",
         {"overall_severity": "warning", "summary": "memory trouble",
          "findings": [finding("Pod", "checkout-api-7d9f", "shop", "OOMKilled"),
                       finding("Pod", "elsewhere", "kube-system", "CrashLoopBackOff")]}),
        ("a000000000003", "quiet", "lookout", "report", {"overall_severity": "ok", "summary": "all fine"}),
        ("a000000000004", "quiet", "agent", "inject_error", None),
        ("a000000000005", "nightly", "lookout", "report",
         {"overall_severity": "warning", "summary": "job failing",
          "findings": [finding("Job", "nightly", "batch", "BackoffLimitExceeded", "warning")]}),
        ("a000000000006", "nightly", "agent", "subject_error", None),
    ]


def write_run(directory: Path, attempts: list[Attempt] | None = None, *, floor: str | None = "lookout",
              min_efficacy: float = 0.8) -> Path:
    """A complete, finalized run directory (as finalize_run leaves it, minus report.html)."""
    attempts = golden_attempts() if attempts is None else attempts
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "reports").mkdir(exist_ok=True)
    events: list[dict[str, Any]] = []
    seq = 0

    def emit(minute: int, second: float, event: str, aid: str, scen: str, payload: dict[str, Any] | None = None,
             **extra: Any) -> None:
        nonlocal seq
        seq += 1
        ev = {"v": 1, "ts": f"2026-01-02T03:{minute:02d}:{second:09.6f}Z", "seq": seq, "worker": "main",
              "event": event, "attempt_id": aid, "scenario_id": scen, **extra}
        if payload is not None:
            ev["payload"] = payload
        events.append(ev)

    emit(0, 0, "cluster.started", "", "", {"backend": "sim", "description": "embedded (emulated v1.33)",
                                          "version": "v1.33.0", "emulated_version": "1.33"})
    run_attempts = {}
    for i, (aid, scen, subject, how, report) in enumerate(attempts):
        m = i + 1
        nodeid = f"simian:demo::{scen}[{subject}]"
        run_attempts[aid] = {"scenario_id": scen, "subject": subject, "nodeid": nodeid}
        emit(m, 0, "eval.scenario_started", aid, scen, {"subject": subject, "nodeid": nodeid, "worker": "main"})
        if how == "inject_error":
            emit(m, 1, "eval.inject_error", aid, scen,
                 {"why": 'settle probe "docs quiet" timed out after 60s (last output "")', "stage": "settle"})
        else:
            emit(m, 2.5, "fault.efficacy", aid, scen, {"fault_index": 0, "probe": f"{scen} landed", "type": "k8s",
                                                      "observed": "Waiting: <ImagePullBackOff>", "passed": True,
                                                      "elapsed": 2.5}, fault_uid="f0")
            emit(m, 3, "eval.subject_started", aid, scen)
            if how == "subject_error":
                emit(m, 13, "eval.subject_error", aid, scen, {"why": "exit status 2", "exit_code": 2})
            else:
                rel = f"reports/{aid}.json"
                doc: dict[str, Any] = {"attempt_id": aid, "scenario_id": scen, "subject": subject, "report": report,
                                       "exit_code": 0, "stdout_bytes": 10, "stdout_tail": "", "stderr_tail": "",
                                       "duration": 7.0}
                if subject == "agent":
                    doc["extra"] = {"trajectory": [
                        {"verb": "get", "resource": "pods", "namespace": "shop", "status": 200},
                        {"verb": "delete", "resource": "pods", "name": "checkout-api-7d9f", "status": 403}]}
                (directory / rel).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
                emit(m, 10, "eval.report_received", aid, scen, {"report_file": rel})
        emit(m, 20, "eval.cleared", aid, scen)
        emit(m, 21, "eval.scenario_ended", aid, scen, {"writes_attempted": 1 if subject == "agent" else 0})
    (directory / "audit.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    run = {
        "format": "pytest-simian/run", "version": 1, "plugin_version": "0.1.0",
        "started_at": "2026-01-02T03:00:00.000000Z", "ended_at": "2026-01-02T03:59:00.000000Z",
        "options": {"cluster": "sim"}, "gate": "fault_recall>=1,root_cause>=1,hallucinated_fault>=1",
        "min_efficacy": min_efficacy, "vocabularies": {"upstream": {"name": "upstream", "version": "1"}},
        "packs": [{"name": "demo", "vocabulary": "upstream", "scenarios": ["checkout", "quiet", "nightly"]}],
        "scenarios": _scenarios(),
        "subjects": [{"name": "lookout", "spec": "exec:lookout --json", "scheme": "exec"},
                     {"name": "agent", "spec": "exec:./agent.sh {prompt}", "scheme": "exec"}],
        "clusters": [{"backend": "sim", "description": "embedded (emulated v1.33)", "version": "v1.33.0",
                      "emulated_version": "1.33"}],
        "attempts": run_attempts,
    }
    if floor:
        run["options"]["floor"] = floor
    (directory / "run.json").write_text(json.dumps(run, indent=2) + "\n", encoding="utf-8")
    tdir = directory / "transcripts"
    tdir.mkdir(exist_ok=True)
    (tdir / "a000000000002.jsonl").write_text('{"role": "assistant"}\n', encoding="utf-8")
    return directory
