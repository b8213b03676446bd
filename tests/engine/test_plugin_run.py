"""The whole plugin with the kube-state engine registered: a pack runs on the embedded cluster and every
attempt manifests (efficacy first in the scorecard)."""

from __future__ import annotations

import json

import pytest

from pytest_simian.engines.kube_state import KubeStateEngine


def test_parity_scenarios_manifest_through_the_plugin(pytester: pytest.Pytester) -> None:
    out = pytester.path / "runs"
    result = pytester.runpytest_inprocess(
        "--simian-pack=parity", "--simian-only=fault-none,fault-sessions,fault-invoicing",
        f"--simian-out={out}", "-p", "no:cacheprovider", "-v", plugins=[KubeStateEngine()])
    text = result.stdout.str()
    assert "efficacy: 3/3 attempts manifested = 1.00" in text, text[-3000:]
    assert "waiting for:" in text  # -v names the pending probe
    run = next(out.iterdir())
    evs = [json.loads(line) for f in run.glob("audit*.jsonl") for line in f.read_text().splitlines()]
    eff = [e for e in evs if e["event"] == "fault.efficacy"]
    assert len(eff) == 1 + 2 + 3 and all(e["payload"]["passed"] for e in eff)
    assert sum(e["event"] == "lease.cleared" for e in evs) == 3
    assert sum(e["event"] == "arena.released" for e in evs) == 3
