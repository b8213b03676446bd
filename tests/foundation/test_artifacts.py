"""Artifacts read back: offline rescoring, xdist, truncated logs, and the golden scorecard."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import GOOD_REPORT, Rig, scenario

SHORT = "--simian-allow-short-faults"
GOLDEN = Path(__file__).parent / "golden"


def mixed_pack(rig: Rig) -> str:
    return rig.pack([
        scenario("shop", "shop"),
        scenario("quiet", expect=[]),
        scenario("inj", faults=[{"engine": "fake", "kind": "T", "namespace": "inj", "params": {"raise": "inject"}}],
                 settle_timeout="1s"),
        scenario("sessions", "sessions", severity="critical", expect=[
            {"kind": "Pod", "name": "session-store", "reasons": ["CrashLoopBackOff", "CrashLoop"], "root": True},
            {"kind": "Service", "name": "session-store", "reasons": ["NoEndpoints"]}]),
    ])


def test_offline_reproduces_the_live_scorecard_byte_for_byte(rig: Rig) -> None:
    agent = rig.reporting("agent", GOOD_REPORT)
    pack = mixed_pack(rig)
    live = rig.run(f"--simian-pack={pack}", "--simian-subject=noop:", f"--simian-subject=agent=exec:{agent}", SHORT)
    original = rig.runs()[-1]
    before = {p.name: p.read_bytes() for p in original.rglob("*") if p.is_file()}
    offline = rig.run(f"--simian-offline={original}")
    assert offline.ret == live.ret == 1
    (rescored,) = [r for r in rig.runs() if r != original]
    assert rescored.name.endswith("-rescored")
    assert (rescored / "scorecard.txt").read_bytes() == (original / "scorecard.txt").read_bytes()
    def printed(out: str) -> str:
        block = out.split("simian scorecard =")[1].split("\n", 1)[1]
        return block.split("\nreport: ")[0].split("\nartifacts: ")[0]

    assert printed(live.stdout.str()) == printed(offline.stdout.str())
    after = {p.name: p.read_bytes() for p in original.rglob("*") if p.is_file()}
    assert after == before, "offline rescoring must never write to the original run"
    assert json.loads((rescored / "run.json").read_text())["rescored_from"] == str(original)


def test_offline_refuses_a_directory_that_is_not_a_run(rig: Rig) -> None:
    result = rig.run(f"--simian-offline={rig.path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "is not a simian run directory (no run.json)" in result.stdout.str()


def test_golden_scorecard(rig: Rig) -> None:
    agent = rig.reporting("agent", GOOD_REPORT)
    pack = mixed_pack(rig)
    rig.run(f"--simian-pack={pack}", "--simian-subject=noop:", f"--simian-subject=agent=exec:{agent}", SHORT)
    card = (rig.runs()[-1] / "scorecard.txt").read_text()
    # time to report depends on the machine; everything else is fixed by the artifacts
    stable = "\n".join(line for line in card.split("\n") if not line.startswith("  mean") or "s (n=" not in line)
    golden = GOLDEN / "mixed-scorecard.txt"
    if os.environ.get("SIMIAN_REGEN_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(stable)
    assert stable == golden.read_text()


@pytest.mark.parametrize("workers", [["-n", "2"], ["-n", "2", "--dist", "loadscope"], ["-p", "no:xdist"]])
def test_xdist_and_no_xdist_agree(rig: Rig, workers: list[str]) -> None:
    agent = rig.reporting("agent", GOOD_REPORT)
    pack = mixed_pack(rig)
    result = rig.run(f"--simian-pack={pack}", "--simian-subject=noop:", f"--simian-subject=agent=exec:{agent}",
                     SHORT, *workers, subprocess=True)
    result.assert_outcomes(passed=3, failed=3, skipped=2)
    run_dir = rig.runs()[-1]
    audits = sorted(p.name for p in run_dir.glob("audit*.jsonl") if p.stat().st_size)
    if workers[0] == "-n":  # one file per worker that ran something (loadscope sends a whole pack to one)
        assert audits and set(audits) <= {"audit-gw0.jsonl", "audit-gw1.jsonl"}
    else:
        assert audits == ["audit.jsonl"]
    run = json.loads((run_dir / "run.json").read_text())
    assert len(run["attempts"]) == 8
    assert all("nodeid" in a for a in run["attempts"].values())
    card = (run_dir / "scorecard.txt").read_text()
    stable = "\n".join(line for line in card.split("\n") if not line.startswith("  mean") or "s (n=" not in line)
    assert stable == (GOLDEN / "mixed-scorecard.txt").read_text()


def test_truncated_audit_log_gives_per_attempt_harness_failures(rig: Rig) -> None:
    pack = rig.pack([scenario("quiet", expect=[]), scenario("calm", expect=[])])
    rig.run(f"--simian-pack={pack}", SHORT)
    run_dir = rig.runs()[-1]
    audit = run_dir / "audit.jsonl"
    lines = audit.read_text().splitlines(keepends=True)
    # keep the first attempt's start and its efficacy, then cut the next line in half (killed mid-write)
    second_start = next(i for i, line in enumerate(lines) if i > 0 and "eval.scenario_started" in line)
    keep = lines[:2] + lines[second_start:second_start + 1]
    audit.write_text("".join(keep) + lines[second_start + 1][:25])
    result = rig.run(f"--simian-offline={run_dir}")
    out = result.stdout.str()
    assert result.ret == 1
    assert "the audit log ends before" in out
    assert "artifact problem: audit.jsonl:4: unreadable audit line (truncated?)" in out
    assert out.count("[noop]  NOT SCORED — ") + out.count("[noop]  HARNESS ERROR — ") == 2


def test_compare_with_an_earlier_run_in_the_terminal(rig: Rig) -> None:
    agent = rig.reporting("agent", GOOD_REPORT)
    pack = rig.pack([scenario("shop", "shop")])
    rig.run(f"--simian-pack={pack}", f"--simian-subject=s=exec:{agent}", SHORT)
    old = rig.runs()[-1]
    result = rig.run(f"--simian-pack={pack}", "--simian-subject=s=noop:", SHORT, f"--simian-compare={old}")
    out = result.stdout.str()
    assert f"compared with {old.name}:" in out
    assert "  shop [s]  outcome passed → failed" in out
    assert "fault_recall 1.00 → 0.00 (-1.00)" in out
    assert "newly missed Pod/checkout-api" in out
    new = next(r for r in rig.runs() if r != old)
    assert "newly missed Pod/checkout-api" in (new / "compare.txt").read_text()
    bad = rig.run(f"--simian-pack={pack}", SHORT, f"--simian-compare={rig.path}")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
