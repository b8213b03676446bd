"""A third-party engine (tests/extending/teapot_engine.py, written from docs/architecture.md) on the embedded
cluster: it only renders, and gets validation, the arena, leases, the reaper and the executor's own efficacy
probes; when it misbehaves the executor refuses it or grades it by its own probes, and it is never handed
the audit log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
PROMPT = 'Assess the health of the "{ns}" namespace in this Kubernetes cluster and report what you find.'


def _scenario(sid: str, ns: str, params: dict[str, Any], *, settle: str = "1m") -> dict[str, Any]:
    return {"id": sid, "prompt": PROMPT.format(ns=ns), "severity": "critical", "settle_timeout": settle,
            "faults": [{"engine": "teapot", "kind": "Overbrewed", "namespace": ns, "duration": "2h",
                        "params": params}],
            "expect": [{"kind": "ConfigMap", "name": "kettle", "reasons": ["Overbrewed"]}]}


def _run(tmp: Path, scenarios: list[dict[str, Any]], *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    pack = tmp / "pack"
    pack.mkdir()
    (pack / "pack.yaml").write_text("name: tea\nvocabulary: upstream\n")
    for sc in scenarios:
        (pack / f"{sc['id']}.yaml").write_text(yaml.safe_dump(sc, sort_keys=False))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "SIMIAN_"))}
    env.pop("KUBECONFIG", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["TEAPOT_HANDED_LOG"] = str(tmp / "handed.jsonl")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.extending.teapot_engine",
                           f"--simian-pack={pack}", f"--simian-out={tmp / 'runs'}", "-p", "no:cacheprovider",
                           "-q", "-rA", *args], cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    return proc, tmp / "runs"


def _events(runs: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for f in sorted(runs.glob("*/audit*.jsonl")) for line in f.read_text().splitlines()]


def test_a_third_party_engine_gets_the_whole_chokepoint(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    subject = tmp_path / "subject.sh"
    subject.write_text("#!/bin/sh\ncat > /dev/null\n"
                       f"kubectl get configmap kettle -n brewery -o json > {seen}\n"
                       "echo '{\"overall_severity\": \"critical\", \"summary\": \"CRITICAL: the kettle\", "
                       "\"findings\": [{\"kind\": \"ConfigMap\", \"resource_name\": \"kettle\", "
                       "\"namespace\": \"brewery\", \"reason\": \"Overbrewed\", \"severity\": \"critical\"}]}'\n")
    subject.chmod(0o755)
    proc, runs = _run(tmp_path, [_scenario("brew", "brewery", {"strength": 9})], f"--simian-subject=exec:{subject}",
                      "--simian-allow-short-faults")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    names = [e["event"] for e in _events(runs) if e.get("attempt_id") and e["event"] != "cluster.started"]
    assert names == ["eval.scenario_started", "executor.received", "arena.held", "executor.validated",
                     "driver.applied", "lease.registered", "fault.efficacy", "eval.subject_started",
                     "eval.report_received", "lease.cleared", "arena.released", "eval.cleared", "eval.trajectory",
                     "eval.scenario_ended"]
    applied = next(e for e in _events(runs) if e["event"] == "driver.applied")
    assert applied["payload"]["engine"] == "teapot"
    # the lease lives on the object the subject saw: our marks and an expiry, written by the executor
    cm = json.loads(seen.read_text())
    assert cm["metadata"]["labels"]["simian.chaos/managed"] == "true"
    assert cm["metadata"]["labels"]["simian.chaos/fault-uid"].startswith("f-a")
    assert "simian.chaos/expires-at" in cm["metadata"]["annotations"]
    # the engine was only ever handed a fault and its scenario
    handed = [json.loads(line) for line in (tmp_path / "handed.jsonl").read_text().splitlines()]
    assert handed and {t for h in handed for t in h["types"]} <= {"FaultSpec", "Scenario"}
    assert {h["method"] for h in handed} == {"check", "render"}


def test_an_object_in_another_namespace_is_refused_before_anything_runs(tmp_path: Path) -> None:
    proc, runs = _run(tmp_path, [_scenario("spill", "brewery", {"escape": "always"})], "--simian-subject=noop:",
                      "--simian-allow-short-faults")
    assert proc.returncode == 4, proc.stdout[-3000:] + proc.stderr[-2000:]
    err = proc.stderr
    assert "spill.yaml faults[0]" in err and "executor[safety:namespace-not-eligible]" in err, err
    assert "ConfigMap/kettle is in namespace 'kube-system'" in err
    assert not runs.exists()  # refused before a run directory, a cluster or an audit log existed


def test_misbehaviour_at_run_time_is_refused_or_graded_by_the_executors_own_probes(tmp_path: Path) -> None:
    proc, runs = _run(tmp_path, [
        _scenario("late-spill", "spill", {"escape": "at-run"}),
        _scenario("cold", "cold", {"probe": "impossible"}, settle="3s"),
        _scenario("silent", "silent", {"probe": "none"}),
    ], "--simian-subject=noop:", "--simian-allow-short-faults", "--simian-min-efficacy=0")
    out = proc.stdout
    evs = _events(runs)
    by = {sid: [e for e in evs if e.get("scenario_id") == sid] for sid in ("late-spill", "cold", "silent")}
    # (a) at run time: rejected by the executor, nothing written
    spill = by["late-spill"]
    rejected = [e for e in spill if e["event"] == "executor.rejected"]
    assert rejected and rejected[0]["reason"] == "namespace-not-eligible", spill
    assert not any(e["event"] in ("driver.applied", "arena.held", "fault.efficacy") for e in spill)
    # (b) a probe that cannot pass: NOT SCORED at its deadline, on the executor's evidence
    cold = by["cold"]
    eff = [e for e in cold if e["event"] == "fault.efficacy"]
    assert eff and not any(e["payload"]["passed"] for e in eff)
    assert eff[-1]["payload"]["probe"] == "the kettle's strength"
    err = next(e for e in cold if e["event"] == "eval.inject_error")
    assert err["reason"] == "efficacy-failed" and "did not pass within the settle deadline" in err["payload"]["why"]
    # (c) no probe at all: no way to say it landed; no efficacy record, not scored
    silent = by["silent"]
    assert [e for e in silent if e["event"] == "fault.efficacy"] == []
    assert "NOT SCORED — no passing efficacy record: fault 0 has no efficacy record" in out
    for sid in ("late-spill", "cold"):
        assert f"{sid} [noop]" in out or sid in out
    run = json.loads(next(runs.glob("*/run.json")).read_text())
    assert run["efficacy"]["manifested"] == 0 and run["efficacy"]["attempts"] == 3
