"""Ctrl-C and SIGTERM while a subject runs: the faults are cleared, the attempt ends in the audit log,
and the subject's process group does not outlive the harness."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import Rig, scenario


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers; read its state
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupt_during_the_subject_clears_the_faults_and_kills_the_subject(rig: Rig, sig: int) -> None:
    marker = rig.path / "subject.pid"
    subject = rig.subject("slow", f"echo $$ > {marker}\nsleep 60\n")
    pack = rig.pack([scenario("quiet", expect=[])])
    proc = subprocess.Popen([sys.executable, "-m", "pytest", f"--simian-pack={pack}", "--simian-allow-short-faults",
                             f"--simian-subject=exec:{subject}", "-p", "no:cacheprovider",
                             "--simian-cluster=memory"],
                            cwd=rig.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the subject never started"
    time.sleep(0.2)
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out.decode()
    (run_dir,) = rig.runs()
    events = [json.loads(line)["event"] for line in (run_dir / "audit.jsonl").read_text().splitlines()]
    assert events[-4:] == ["lease.cleared", "arena.released", "eval.cleared", "eval.scenario_ended"]
    assert not _alive(int(marker.read_text())), "the subject outlived the harness"
    card = (run_dir / "scorecard.txt").read_text()
    assert "quiet [slow]  HARNESS ERROR — interrupted (" in card and "while the subject investigated" in card
