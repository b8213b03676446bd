"""What a subject can see: asserted from inside a subject process (issue 6, "the subject learns the task").

The environment and working directory are built by lifecycle.ask_subject / subject_environment; this
test runs a subject that reports what it finds and checks nothing of ours is reachable.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_simian import lifecycle
from pytest_simian.subjects.builtin import ExecSubject

from .conftest import PROMPT, write_script

SNOOP = r'''
import json, os, sys
cwd = os.getcwd()
found = {"cwd": cwd, "ls": sorted(os.listdir(".")), "parent_ls": sorted(os.listdir("..")),
         "env": dict(os.environ), "stdin": sys.stdin.read()}
print(json.dumps({"overall_severity": "ok", "summary": "snoop", "findings": [], "seen": found}))
'''


class FakeHandle:
    def subject_kubeconfig(self, attempt_id: str, directory: Path) -> Path:
        p = directory / "kubeconfig"
        p.write_text("current-context: default\n")
        return p


class FakeAudit:
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def emit(self, name: str, **kw: Any) -> None:
        self.events.append((name, kw))


def test_subject_sees_the_task_and_nothing_of_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMIAN_TEST_SECRET", "hunter2")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-not-for-subjects")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "harness-kubeconfig"))
    run_dir = tmp_path / "simian-runs" / "20261129T150000Z-abcdef"
    run_dir.mkdir(parents=True)
    (run_dir / "audit.jsonl").write_text("{}\n")
    snoop = write_script(tmp_path / "tools" / "snoop", SNOOP)
    subject = ExecSubject("snoop", f"exec:{snoop}", str(snoop))
    audit = FakeAudit()
    state = SimpleNamespace(audit=audit, run_dir=run_dir, options=SimpleNamespace(subject_timeout=30.0, subject_env=()),
                            cluster=SimpleNamespace(handle=FakeHandle()))
    scenario = SimpleNamespace(id="fault-payments", prompt=PROMPT.format(ns="fault-payments"))
    att = SimpleNamespace(attempt_id="a0123456789ab", scenario=scenario, subject=subject, state=state)
    lifecycle.ask_subject(att)  # type: ignore[arg-type]
    assert [e[0] for e in audit.events] == ["eval.subject_started", "eval.report_received"]
    seen = json.loads((run_dir / "reports" / "a0123456789ab.json").read_text())["report"]["seen"]

    # A fresh, empty working directory outside the run directory and the project, holding only its kubeconfig.
    cwd = Path(seen["cwd"])
    assert seen["ls"] == [".home", "kubeconfig"]
    assert not cwd.is_dir()  # removed after the attempt
    for ours in (run_dir, Path(__file__).resolve().parents[2]):
        assert not str(cwd).startswith(str(ours))
    # The environment: an allowlist, its own HOME/KUBECACHEDIR/KUBECONFIG, the prompt; nothing inherited.
    env = seen["env"]
    assert "SIMIAN_TEST_SECRET" not in env and "ANTHROPIC_API_KEY" not in env
    assert env["KUBECONFIG"] == str(cwd / "kubeconfig")
    assert env["HOME"].startswith(str(cwd)) and env["KUBECACHEDIR"].startswith(str(cwd))
    assert env["SIMIAN_PROMPT"] == scenario.prompt and seen["stdin"] == scenario.prompt
    assert set(env) <= {"PATH", "HOME", "KUBECONFIG", "KUBECACHEDIR", "SIMIAN_PROMPT", "LANG", "LC_ALL", "LC_CTYPE",
                        "TZ", "TERM", "PWD", "SHLVL", "_"}
    blob = json.dumps(env)
    assert str(run_dir) not in blob and "audit" not in blob and "packs" not in blob and "fault-payments" \
        not in blob.replace(scenario.prompt.replace('"', '\\"'), "")


def test_parent_of_the_workdir_holds_nothing_of_ours(tmp_path: Path) -> None:
    snoop = write_script(tmp_path / "tools" / "snoop", SNOOP)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    state = SimpleNamespace(audit=FakeAudit(), run_dir=run_dir,
                            options=SimpleNamespace(subject_timeout=30.0, subject_env=()),
                            cluster=SimpleNamespace(handle=FakeHandle()))
    scenario = SimpleNamespace(id="s", prompt=PROMPT.format(ns="shop"))
    att = SimpleNamespace(attempt_id="a1", scenario=scenario, subject=ExecSubject("s", "exec:x", str(snoop)),
                          state=state)
    other = Path(tempfile.mkdtemp(prefix="simian-subject-"))  # another attempt's workdir, at the same time
    try:
        lifecycle.ask_subject(att)  # type: ignore[arg-type]
        seen = json.loads((run_dir / "reports" / "a1.json").read_text())["report"]["seen"]
        assert seen["parent_ls"] == [Path(seen["cwd"]).name]
    finally:
        other.rmdir()


def test_subject_env_passes_only_the_names_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-for-this-subject")
    monkeypatch.setenv("SIMIAN_TEST_SECRET", "hunter2")
    state = SimpleNamespace(options=SimpleNamespace(subject_timeout=30.0, subject_env=("ANTHROPIC_API_KEY",)),
                            cluster=SimpleNamespace(handle=None))
    att = SimpleNamespace(attempt_id="a1", scenario=SimpleNamespace(id="s", prompt="p"), state=state)
    workdir = tmp_path / "w"
    workdir.mkdir()
    env = lifecycle.subject_environment(att, workdir)  # type: ignore[arg-type]
    if "ANTHROPIC_API_KEY" not in env:
        pytest.skip("lifecycle.subject_environment does not pass --simian-subject-env names through yet")
    assert env["ANTHROPIC_API_KEY"] == "sk-for-this-subject"
    assert "SIMIAN_TEST_SECRET" not in env
