"""The reference subject's parity scorecard, committed as a golden file, reproduced offline.

Why: `--simian-offline` must print the scorecard a live run printed from that run's artifacts alone,
with no cluster, from any checkout. examples/runs/parity-reference/ is a real run of the README's main
command (stripped of what rescoring does not read); rescoring it must reproduce its scorecard.txt
byte for byte, both in the new run directory and on the terminal.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "examples" / "runs" / "parity-reference"
BANNER = "=" * 30 + " simian scorecard " + "=" * 30 + "\n"


def test_the_committed_run_is_small_and_complete() -> None:
    names = sorted(p.name for p in RUN.iterdir())
    assert names == ["audit.jsonl", "reports", "run.json", "scorecard.txt"]
    run = json.loads((RUN / "run.json").read_text(encoding="utf-8"))
    assert run["subjects"] == [{"name": "reference", "spec": "exec:examples/subjects/triage.py", "scheme": "exec"}]
    assert [p["name"] for p in run["packs"]] == ["parity"]
    assert sorted({a["scenario_id"] for a in run["attempts"].values()}) == sorted(run["scenarios"])
    assert len(list((RUN / "reports").glob("*.json"))) == len(run["attempts"]) == 11
    assert sum(p.stat().st_size for p in RUN.rglob("*") if p.is_file()) < 200_000


def test_offline_rescoring_reproduces_the_golden_scorecard(tmp_path: Path) -> None:
    # a copy elsewhere, rescored from another directory: nothing may depend on where the run was made
    src = tmp_path / "copy" / "parity-reference"
    shutil.copytree(RUN, src)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "pytest", "--simian-offline", str(src), f"--simian-out={out}",
                           "-p", "no:cacheprovider"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    golden = (RUN / "scorecard.txt").read_text(encoding="utf-8")
    (new,) = [p for p in out.iterdir() if p.is_dir()]
    assert (new / "scorecard.txt").read_bytes() == (RUN / "scorecard.txt").read_bytes()
    assert BANNER + golden in proc.stdout
    assert sorted(p.name for p in src.iterdir()) == sorted(p.name for p in RUN.iterdir()), "source left untouched"


def test_the_golden_scorecard_scores_the_reference_subject_perfectly() -> None:
    text = (RUN / "scorecard.txt").read_text(encoding="utf-8")
    assert "efficacy: 11/11 attempts manifested = 1.00" in text
    for measure in ("fault_recall", "hallucinated_fault", "fault_severity"):
        block = text[text.index(measure):]
        mean = next(ln for ln in block.splitlines() if ln.strip().startswith("mean"))
        assert mean.split()[1] == "1.00", (measure, mean)
