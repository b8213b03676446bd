"""Acceptance: the reference subject scores identically in three consecutive runs on the embedded cluster.

Nothing in examples/subjects/triage.py varies, so a difference between runs is the harness's. Skipped
until the embedded cluster can apply the parity pack's faults (the kube-state driver).
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRIAGE = ROOT / "examples" / "subjects" / "triage.py"


def _measures(card: str) -> str:
    """The scorecard up to the wall-time section (time to report is a wall time, so it varies)."""
    return card.split("\ntime to report")[0]


def test_reference_subject_scores_identically_three_times(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    cards: list[tuple[str, str]] = []
    for _ in range(3):
        result = pytester.runpytest_subprocess("--simian-pack=parity", f"--simian-subject=triage=exec:{TRIAGE}",
                                               "--simian-gate=none", "-p", "no:cacheprovider", timeout=1800)
        err = result.stderr.str() + result.stdout.str()
        if "no driver is installed for engine" in err:
            pytest.skip("the embedded cluster cannot apply the parity pack's faults yet (no kube-state driver)")
        runs = sorted((pytester.path / "simian-runs").iterdir())
        new = [r for r in runs if r.name not in {c[0] for c in cards}]
        assert len(new) == 1, err[-2000:]
        cards.append((new[0].name, _measures((new[0] / "scorecard.txt").read_text())))
    assert cards[0][1] == cards[1][1] == cards[2][1]
