"""Both shipped packs, end to end on the embedded cluster: every scenario manifests, with and
without xdist, and the noop subject scores what an empty report must score.

Why: a pack is only worth its numbers if every fault lands (efficacy 1.0) wherever it runs, so
each scenario is proven on the embedded cluster under `-n 2` and without xdist, in one subprocess
run each (both packs, two subjects: noop and the reference triage program), asserted from the
run's own artifacts read back through the offline scorer. noop reports nothing: recall 0 on every
fault scenario (skipped on controls), never a hallucination, and exactly right on a control.

The same runs are held to golden files: the shape of every attempt's audit events and the scorecard
(tests/packs/audit_shape.py says what is normalized away). They were written before the executor became
the only path for faults and must not change unless a change means to change what a run records;
`SIMIAN_REGENERATE_GOLDEN=1` rewrites them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_simian.pack.loader import load_pack
from pytest_simian.record.artifacts import read_run
from pytest_simian.scoring.evaluation import evaluate_artifacts
from pytest_simian.scoring.outcomes import Verdict
from pytest_simian.scoring.scorecard import RunEvaluation
from tests.packs.audit_shape import audit_shape, render_shape, scorecard_shape

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = os.environ.get("SIMIAN_REGENERATE_GOLDEN") == "1"
TRIAGE = ROOT / "examples" / "subjects" / "triage.py"
PACKS = ("parity", "lookout")
SCENARIOS = {p: [sc.id for sc in load_pack(str(ROOT / "packs" / p)).pack.scenarios] for p in PACKS}
CONTROLS = {sc.id for p in PACKS for sc in load_pack(str(ROOT / "packs" / p)).pack.scenarios if sc.is_control}
MODES = {"xdist": ["-n", "2"], "no-xdist": ["-p", "no:xdist"]}
RUN_TIMEOUT = 1200


def run_packs(out: Path, mode: list[str]) -> tuple[subprocess.CompletedProcess[str], Path]:
    cmd = [sys.executable, "-m", "pytest", f"--simian-pack={','.join(PACKS)}", "--simian-subject=noop=noop:",
           f"--simian-subject=reference=exec:{TRIAGE}", "--simian-gate=none", f"--simian-out={out}",
           "-p", "no:cacheprovider", "-q", *mode]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "SIMIAN_"))}
    env.pop("KUBECONFIG", None)
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    runs = sorted(p for p in out.iterdir() if (p / "run.json").is_file())
    assert len(runs) == 1, f"expected one run directory, got {runs}\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return proc, runs[0]


@pytest.fixture(scope="module", params=sorted(MODES))
def run_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp(f"packs-{request.param}")
    proc, run_dir = run_packs(out, MODES[request.param])
    assert proc.returncode == 0, f"{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}"
    return run_dir


@pytest.fixture(scope="module")
def run(run_dir: Path) -> RunEvaluation:
    art = read_run(run_dir)
    evaluation, _ = evaluate_artifacts(art.run, art)
    return evaluation


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if REGENERATE:
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} is missing: run with SIMIAN_REGENERATE_GOLDEN=1 to write it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden file {path}"


def test_every_attempt_records_the_golden_audit_sequence(run_dir: Path) -> None:
    _golden("packs-audit-shape.json", render_shape(audit_shape(read_run(run_dir).events)))


def test_the_scorecard_is_the_golden_one(run_dir: Path) -> None:
    _golden("packs-scorecard.txt", scorecard_shape((run_dir / "scorecard.txt").read_text(encoding="utf-8")))


def verdicts(run: RunEvaluation, subject: str) -> dict[str, Verdict]:
    out = {v.scenario_id: v for v in run.verdicts if v.subject == subject}
    assert len(out) == len([v for v in run.verdicts if v.subject == subject]), "one attempt per scenario"
    return out


def test_every_scenario_of_both_packs_manifests(run: RunEvaluation) -> None:
    expected = {sid for ids in SCENARIOS.values() for sid in ids}
    for subject in ("noop", "reference"):
        got = verdicts(run, subject)
        assert set(got) == expected
        not_manifested = sorted(sid for sid, v in got.items() if not (v.attempted and v.manifested and v.scored))
        assert not_manifested == [], f"{subject}: {[got[s].cell or got[s].message for s in not_manifested]}"
    assert run.attempts == 2 * len(expected) and run.not_valid == 0
    assert run.efficacy_rate == 1.0


def test_noop_scores_what_an_empty_report_must(run: RunEvaluation) -> None:
    for sid, v in verdicts(run, "noop").items():
        s = {name: score.value for name, score in v.scores.items()}
        assert s["hallucinated_fault"] == 1.0, sid
        if sid in CONTROLS:
            assert s["fault_recall"] is None, sid
            assert s["fault_severity"] == 1.0, sid
        else:
            assert s["fault_recall"] == 0.0, sid


def test_the_reference_subject_finds_every_fault(run: RunEvaluation) -> None:
    for sid, v in verdicts(run, "reference").items():
        s = {name: score.value for name, score in v.scores.items()}
        assert s["hallucinated_fault"] == 1.0, (sid, v.scores)
        assert s["fault_recall"] in (None, 1.0), (sid, v.scores)
        assert s["fault_severity"] == 1.0, (sid, v.scores)
