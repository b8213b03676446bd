"""The sre-agent: adapter against a fake agent that writes the recorded transcript (upstream-scoring.md §11, §9.4)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_simian.errors import HarnessError, PackError, SubjectError
from pytest_simian.subjects.sre_agent import SreAgentSubject, owned_flags_in

from .conftest import MakeCtx, pid_alive, write_script

HEALTH = {
    "overall_severity": "critical",
    "summary": "CRITICAL: api-7d9f8-x9k2l is CrashLoopBackOff (12 restarts)",
    "findings": [{"severity": "critical", "title": "api crash-looping", "detail": "exit 1, 12 restarts",
                  "namespace": "shop", "kind": "Pod", "resource_name": "api-7d9f8-x9k2l",
                  "reason": "CrashLoopBackOff"}],
    "recommended_actions": ["kubectl logs --previous api-7d9f8-x9k2l"],
}

# A fake cmd/sre-agent: Go-style flags, prose on stdout, the transcript (a JSON array) at -out.
FAKE_AGENT = r'''
import json, os, sys, time, subprocess
flags = {}
rest = []
for a in sys.argv[1:]:
    if a.startswith("-") and "=" in a:
        k, v = a.lstrip("-").split("=", 1)
        flags[k] = v
    else:
        rest.append(a)
open(os.environ["FAKE_AGENT_ARGS"], "w").write(json.dumps({"flags": flags, "rest": rest, "cwd": os.getcwd()}))
for req in ("kubeconfig", "context", "namespace"):
    if not flags.get(req):
        print(f"-{req} is required", file=sys.stderr); sys.exit(2)
ns = flags["namespace"]
mode = os.environ.get("FAKE_AGENT_MODE", "ok")
prompt = f'Assess the health of the "{ns}" namespace and report what you find.'
health = json.loads(os.environ["FAKE_AGENT_HEALTH"])
run = {"Response": "I looked.", "Trajectory": ["k8s_cluster_health", "k8s_triage_delta", "k8s_list_resources"],
       "Calls": [{"tool": "k8s_cluster_health", "args": {"namespace": ns}}], "Delegations": ["pod-specialist"],
       "DelegationErrors": [], "Stalls": [], "Protests": [],
       "usage": {"spans": [{"agent": "sre-orchestrator", "model": "claude-sonnet-5", "input": 1000, "cached": 10,
                            "output": 200, "thoughts": 0, "requests": 3},
                           {"agent": "pod-specialist", "model": "claude-haiku", "input": 500, "cached": 0,
                            "output": 100, "thoughts": 0, "requests": 2}]},
       "Report": {"overall_severity": health["overall_severity"], "summary": health["summary"]},
       "Health": health}
entry = {"namespace": ns, "attempt": 1, "prompt": prompt, "run": run, "elapsed": "41.2s"}
out = flags.get("out")
print("Assessing namespace", ns, "...")
print("[critical] Pod/api reason=CrashLoopBackOff — api crash-looping")
if mode == "bigout":
    line = ("the agent is thinking out loud " * 4 + "\n").encode()
    chunk = line * 10000
    n = 0
    while n < 50 * 1024 * 1024:
        sys.stdout.buffer.write(chunk); n += len(chunk)
if mode == "no_health":
    del run["Health"]; entry["error"] = "budget exhausted: max-turns 10"
if mode == "grandchild":
    child = subprocess.Popen(["sleep", "300"])
    open(os.environ["FAKE_PIDFILE"], "w").write(str(child.pid))
    open(out, "w").write(json.dumps([{"namespace": ns, "attempt": 1, "prompt": prompt,
                                     "run": {"Trajectory": ["k8s_cluster_health"]}}]))
    time.sleep(300)
if mode == "no_out":
    sys.exit(0)
body = json.dumps([entry] * (2 if mode == "two" else 1), indent=2)
if mode == "garbage":
    body = "this is not json"
if mode == "partial":
    body = body[: len(body) // 2]
open(out, "w").write(body)
if mode == "crash":
    print("panic: nil map", file=sys.stderr); sys.exit(3)
sys.exit(0)
'''


@pytest.fixture
def agent(tmp_path: Path, fakebin: Path, make_ctx: MakeCtx):  # type: ignore[no-untyped-def]
    binary = write_script(fakebin / "sre-agent", FAKE_AGENT)
    args_file = tmp_path / "args.json"

    class Rig:
        transcripts = tmp_path / "run" / "transcripts"

        def subject(self, extra: str = "") -> SreAgentSubject:
            rest = f"{binary} {extra}".strip()
            return SreAgentSubject("agent", f"sre-agent:{rest}", rest)

        def run(self, mode: str = "ok", *, extra: str = "", timeout: float = 30.0,
                health: dict[str, Any] | None = None, **kw: Any):  # type: ignore[no-untyped-def]
            ctx = make_ctx(env={"FAKE_AGENT_MODE": mode, "FAKE_AGENT_ARGS": str(args_file),
                                "FAKE_AGENT_HEALTH": json.dumps(health or HEALTH),
                                "FAKE_PIDFILE": str(tmp_path / "pid")},
                           timeout=timeout, transcript_dir=self.transcripts, **kw)
            self.ctx = ctx
            return self.subject(extra).investigate(ctx)

        def args(self) -> dict[str, Any]:
            return json.loads(args_file.read_text())

        @property
        def pidfile(self) -> Path:
            return tmp_path / "pid"

    return Rig()


def test_health_report_is_read_back_field_for_field(agent) -> None:  # type: ignore[no-untyped-def]
    result = agent.run()
    assert result.report == HEALTH
    flags = agent.args()["flags"]
    assert flags["namespace"] == "shop"
    assert flags["context"] == "default"
    assert flags["kubeconfig"] == agent.ctx.env["KUBECONFIG"]
    assert Path(flags["out"]).parent == agent.ctx.workdir
    assert flags["timeout"] == "27s"  # inside our 30 s, so the agent can still write its transcript
    assert agent.args()["cwd"] == str(agent.ctx.workdir)
    assert "Assessing namespace shop" in result.stdout_tail


def test_transcript_is_kept_by_attempt(agent) -> None:  # type: ignore[no-untyped-def]
    result = agent.run()
    kept = agent.transcripts / f"{agent.ctx.attempt_id}.json"
    doc = json.loads(kept.read_text())
    assert doc[0]["run"]["Trajectory"] == ["k8s_cluster_health", "k8s_triage_delta", "k8s_list_resources"]
    assert result.extra["transcript_file"] == f"transcripts/{agent.ctx.attempt_id}.json"
    assert result.extra["tool_calls"] == 3
    assert result.extra["delegations"] == ["pod-specialist"]
    assert result.extra["usage"] == {"input": 1500, "cached": 10, "output": 300, "thoughts": 0, "requests": 5}
    assert kept.stat().st_mode & 0o777 == 0o600


def test_user_args_follow_ours(agent) -> None:  # type: ignore[no-untyped-def]
    agent.run(extra="-max-turns=40 -timeout=100s")
    a = agent.args()
    assert a["flags"]["max-turns"] == "40" and a["flags"]["timeout"] == "100s"


@pytest.mark.parametrize("extra,flag", [
    ("-namespace=shop", "-namespace"), ("--out=/tmp/x.json", "-out"), ("-repeat 3", "-repeat"),
    ("-kubeconfig=/root/.kube/config", "-kubeconfig"), ("--context=prod", "-context"),
])
def test_spec_that_breaks_the_measurement_is_refused(agent, extra: str, flag: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PackError, match=f"sets {flag}"):
        agent.subject(extra)


def test_owned_flags_stop_at_double_dash() -> None:
    assert owned_flags_in(["-v", "--", "-out=x"]) == []
    assert owned_flags_in(["-outdir=x", "-output"]) == []


def test_agent_that_submits_no_report(agent) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SubjectError, match="no HealthReport.*budget exhausted"):
        agent.run("no_health")
    assert (agent.transcripts / f"{agent.ctx.attempt_id}.json").is_file()  # the evidence is kept anyway


def test_crash_keeps_the_partial_transcript(agent) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SubjectError, match="exited 3: panic: nil map"):
        agent.run("crash")
    assert (agent.transcripts / f"{agent.ctx.attempt_id}.json").is_file()


@pytest.mark.parametrize("mode,why", [
    ("garbage", "not JSON"), ("partial", "not JSON"), ("two", "2 assessments"), ("no_out", "wrote no transcript"),
])
def test_garbage_partial_and_missing_transcripts(agent, mode: str, why: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SubjectError, match=why):
        agent.run(mode)


def test_timeout_kills_grandchildren_and_keeps_what_was_written(agent) -> None:  # type: ignore[no-untyped-def]
    start = time.monotonic()
    with pytest.raises(SubjectError, match="timed out after 2s.*partial transcript kept"):
        agent.run("grandchild", timeout=2.0)
    assert time.monotonic() - start < 15
    pid = int(agent.pidfile.read_text())
    deadline = time.monotonic() + 5
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(pid)


def test_fifty_megabytes_of_prose_is_ignored(agent) -> None:  # type: ignore[no-untyped-def]
    start = time.monotonic()
    result = agent.run("bigout", timeout=60)
    assert time.monotonic() - start < 45
    assert result.report == HEALTH
    assert result.stdout_bytes > 50 * 1024 * 1024 and len(result.stdout_tail) <= 4096


def test_prompt_without_namespace_cannot_be_asked(agent) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(HarnessError, match="names no namespace"):
        agent.run(prompt="Assess the health of this Kubernetes cluster.")
