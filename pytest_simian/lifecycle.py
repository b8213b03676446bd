"""One attempt's lifecycle: started event, inject and gate on efficacy, ask the subject, record, clear.

Why: every attempt runs the same sequence through the same chokepoint, and writes what happened as it
happens, so the verdict can be reconstructed from the artifacts alone. Each pytest item is one
attempt (one scenario × one subject) with its own injection, efficacy gate and cleanup.
Must not: score (it asks scoring/ for the verdict on what it wrote) or talk to a cluster directly.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_simian import clock
from pytest_simian.errors import ClearError, HarnessError, InjectError, NotValidOnCluster, SubjectError
from pytest_simian.executor import AttemptRef
from pytest_simian.kubectl import pinned_kubectl_dir
from pytest_simian.pack.models import Scenario
from pytest_simian.record import events as E
from pytest_simian.record import join
from pytest_simian.record.artifacts import REPORTS_DIR, report_path
from pytest_simian.record.audit import cap
from pytest_simian.runstate import RunState
from pytest_simian.scoring.outcomes import Verdict
from pytest_simian.scoring.scorecard import evaluate_run
from pytest_simian.subjects.base import Subject, SubjectContext

ENV_ALLOWLIST = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
"""Host variables a subject inherits. Everything else must be passed by name."""


def new_attempt_id() -> str:
    return "a" + secrets.token_hex(6)


@dataclass
class Attempt:
    """The state of one running attempt."""

    attempt_id: str
    scenario: Scenario
    subject: Subject
    nodeid: str
    state: RunState
    injected: list[int] = field(default_factory=list)
    asked: bool = False
    """The subject was started (so its requests, if any, are in the request log)."""
    verdict: Verdict | None = None
    progress_lines: list[str] = field(default_factory=list)
    on_progress: Callable[[str], None] | None = None
    _ref: AttemptRef | None = None

    def progress(self, line: str) -> None:
        self.progress_lines.append(line)
        if self.on_progress is not None:
            self.on_progress(line)

    @property
    def audit(self):  # type: ignore[no-untyped-def]
        return self.state.audit

    @property
    def ref(self) -> AttemptRef:
        """What the executor is told about this attempt; the settle deadline starts when it is first asked."""
        if self._ref is None:
            settle = self.state.options.settle_timeout or self.scenario.settle_seconds
            self._ref = AttemptRef(attempt_id=self.attempt_id, scenario=self.scenario,
                                   settle_deadline=clock.monotonic() + settle, progress=self.progress)
        return self._ref


def run_until_verdict(att: Attempt) -> Verdict:
    """Everything up to the verdict. Raises nothing for the outcomes the table covers; the verdict
    says what happened. Faults injected are left for :func:`clear` (called in teardown)."""
    audit = att.state.audit
    sc = att.scenario
    audit.emit(E.SCENARIO_STARTED, payload={"subject": att.subject.name, "nodeid": att.nodeid,
                                               "worker": att.state.worker})
    executor = att.state.executor
    try:
        why = executor.not_valid(att.ref)  # the backend's answer, before anything is applied
        if why:
            audit.emit(E.NOT_VALID, payload={"cluster": att.state.options.cluster, "why": why})
            return finish(att)
        for i in range(len(sc.faults)):
            att.injected.append(i)
            executor.inject(att.ref, i)
    except NotValidOnCluster as exc:
        audit.emit(E.NOT_VALID, payload={"cluster": exc.cluster, "why": exc.why})
        return finish(att)
    except InjectError as exc:
        audit.emit(E.INJECT_ERROR, reason=exc.reason or None,
                   payload={"why": exc.why, "stage": exc.stage})
        return finish(att)
    except KeyboardInterrupt as exc:
        audit.emit(E.HARNESS_ERROR, payload={"stage": "inject", "why": f"interrupted ({exc or 'Ctrl-C'}) "
                                                "before every fault had a passing efficacy record"})
        raise
    except Exception as exc:  # noqa: BLE001 - any other failure here is the harness's
        audit.emit(E.HARNESS_ERROR, payload={"stage": "inject", "why": _why(exc)})
        return finish(att)
    ask_subject(att)
    return finish(att)


def ask_subject(att: Attempt) -> None:
    audit = att.state.audit
    # A private parent, so `ls ..` from the working directory shows nothing but the working directory.
    parent = Path(tempfile.mkdtemp(prefix="simian-subject-"))
    workdir = parent / "work"
    workdir.mkdir()
    try:
        env = subject_environment(att, workdir)
        att.asked = True
        sctx = SubjectContext(prompt=att.scenario.prompt, workdir=workdir, env=env,
                              timeout=att.state.options.subject_timeout, attempt_id=att.attempt_id,
                              transcript_dir=att.state.run_dir / "transcripts", scenario_id=att.scenario.id)
        audit.emit(E.SUBJECT_STARTED)
        try:
            result = att.subject.investigate(sctx)
        except SubjectError as exc:
            audit.emit(E.SUBJECT_ERROR, payload={"why": exc.why, "exit_code": exc.exit_code})
            return
        except KeyboardInterrupt as exc:
            audit.emit(E.HARNESS_ERROR, payload={"stage": "subject", "why": f"interrupted ({exc or 'Ctrl-C'}) "
                                                    "while the subject investigated"})
            raise
        except Exception as exc:  # noqa: BLE001 - our side of the adapter failed
            audit.emit(E.HARNESS_ERROR, payload={"stage": "subject", "why": _why(exc)})
            return
        try:
            rel = write_report(att, result.report, {
                "exit_code": result.exit_code, "stdout_bytes": result.stdout_bytes,
                "stdout_tail": cap(result.stdout_tail, 4096), "stderr_tail": cap(result.stderr_tail, 4096),
                "duration": round(result.duration, 3), **({"extra": result.extra} if result.extra else {}),
            })
        except OSError as exc:
            audit.emit(E.HARNESS_ERROR, payload={"stage": "artifacts", "why": f"cannot write the report: {exc}"})
            return
        audit.emit(E.REPORT_RECEIVED, payload={"report_file": rel})
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def subject_environment(att: Attempt, workdir: Path) -> dict[str, str]:
    """The reduced environment: an allowlist, the pinned kubectl first on PATH, the subject's own
    HOME and KUBECONFIG (when a cluster is up), and the prompt."""
    env = {k: os.environ[k] for k in ENV_ALLOWLIST if k in os.environ}
    env.update({k: os.environ[k] for k in att.state.options.subject_env if k in os.environ})
    path = os.environ.get("PATH", "/usr/bin:/bin")
    kdir = pinned_kubectl_dir()
    if kdir is not None:
        path = f"{kdir}{os.pathsep}{path}"
    home = workdir / ".home"
    home.mkdir()
    env.update({"PATH": path, "HOME": str(home), "SIMIAN_PROMPT": att.scenario.prompt,
                "KUBECACHEDIR": str(home / ".kube" / "cache")})
    handle = att.state.cluster.handle
    if handle is not None:
        env["KUBECONFIG"] = str(handle.subject_kubeconfig(att.attempt_id, workdir))
    return env


def write_report(att: Attempt, report: Any, meta: dict[str, Any]) -> str:
    path = report_path(att.state.run_dir, att.attempt_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"attempt_id": att.attempt_id, "scenario_id": att.scenario.id, "subject": att.subject.name,
           "report": report, **meta}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return f"{REPORTS_DIR}/{path.name}"


def finish(att: Attempt) -> Verdict:
    """The verdict, computed from what this attempt wrote, read back (report file from disk)."""
    events = att.state.audit.events_for(att.attempt_id)
    reports: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for ev in events:
        if ev.get("event") == E.REPORT_RECEIVED:
            rel = (ev.get("payload") or {}).get("report_file", "")
            try:
                reports[rel] = json.loads((att.state.run_dir / rel).read_text(encoding="utf-8")).get("report")
            except (OSError, ValueError) as exc:
                problems[rel] = f"report file {rel} cannot be read back: {exc}"
    records = join.join(events, reports, problems)
    for rec in records.values():
        rec.ended = True  # the attempt is over as far as its verdict goes; only clearing remains
    evaluation = evaluate_run(att.state.run_doc, records)
    att.verdict = evaluation.verdicts[0]
    return att.verdict


def clear(att: Attempt) -> None:
    """Clear every fault this attempt touched, last first; record the result; end the attempt."""
    audit = att.state.audit
    executor = att.state.executor
    errors: list[str] = []
    for i in reversed(att.injected):
        try:
            executor.clear(att.ref, i)
        except Exception as exc:  # noqa: BLE001 - every clear failure is recorded and reraised
            errors.append(f"fault {i}: {_why(exc)}")
    if att.injected:
        try:
            errors += executor.release(att.ref)
        except Exception as exc:  # noqa: BLE001 - recorded and reraised like a clear failure
            errors.append(f"arena: {_why(exc)}")
    if errors:
        audit.emit(E.CLEAR_FAILED, payload={"why": "; ".join(errors)})
    elif att.injected:
        audit.emit(E.CLEARED)
    writes = record_trajectory(att) if att.asked else 0
    audit.emit(E.SCENARIO_ENDED, payload={"writes_attempted": writes})
    if errors:
        raise ClearError("; ".join(errors))


def record_trajectory(att: Attempt) -> int:
    """The subject's requests from the embedded cluster's request log: `trajectories/<attempt>.jsonl` and an
    `eval.trajectory` event with the counts. Called at the end of the attempt (after clearing), so requests
    still in flight when the subject was killed have been logged. Returns the attempted writes."""
    from pytest_simian.subjects.trajectory import read_trajectory

    handle = att.state.cluster.handle
    log = handle.request_log() if handle is not None else None
    if log is None:
        return 0
    try:
        traj = read_trajectory([log], att.attempt_id)
        rel = f"trajectories/{att.attempt_id}.jsonl"
        path = att.state.run_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(traj.to_jsonl(), encoding="utf-8")
    except OSError as exc:  # unmeasured, not a harness error: the verdict does not depend on it
        att.state.audit.emit(E.TRAJECTORY, payload={"unmeasured": f"request log: {exc}"})
        return 0
    att.state.audit.emit(E.TRAJECTORY, payload={**traj.summary(), "file": rel})
    return traj.writes_attempted


def _why(exc: BaseException) -> str:
    if isinstance(exc, HarnessError):
        return exc.why
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, InjectError) else text
