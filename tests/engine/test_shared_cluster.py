"""Against one separately started embedded cluster used as `--simian-cluster=current` (it outlives each run
and xdist workers share it): interrupts clear everything, a killed runner's faults are reaped by the next
run under the old attempt id, a pre-existing namespace survives, and a control never runs beside a fault."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_simian.cluster.kube import Kube
from pytest_simian.leases import MANAGED, managed_resources

PROMPT = 'Assess the health of the "{ns}" namespace in this Kubernetes cluster and report what you find.'


def _scenario(sid: str, ns: str, fault: dict[str, Any], *, control: bool = False) -> dict[str, Any]:
    return {"id": sid, "prompt": PROMPT.format(ns=ns), "severity": "ok" if control else "critical",
            "settle_timeout": "2m", "faults": [{"namespace": ns, **fault}],
            "expect": [] if control else [{"kind": "Pod", "name": "web", "reasons": ["CrashLoopBackOff"]}]}


NEVER = {"name": "a phase that never comes", "type": "k8s", "resource": "pods",
         "jsonpath": "{.items[*].status.phase}", "contains": "Succeeded"}
SCENARIOS = [
    _scenario("stuck", "stuck", {"kind": "NoOp", "duration": "30m", "probes": [NEVER]}),
    _scenario("brief", "brief", {"kind": "NoOp", "duration": "4s", "probes": [NEVER]}),
    # the cluster runs in real time here (`current`), so the faults are ones that settle in seconds: a crash
    # loop shows CrashLoopBackOff only at the 1m20s back-off step (~3 minutes), as on kind
    _scenario("orders", "orders", {"kind": "Unschedulable", "duration": "30m"}),
    _scenario("billing", "billing", {"kind": "ImagePullFailure", "duration": "30m"}),
    _scenario("quiet", "quiet", {"kind": "NoOp", "duration": "30m"}, control=True),
    _scenario("kept", "kept", {"kind": "NoOp", "duration": "30m"}),
]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("shared")
    state = root / "state"
    proc = subprocess.Popen([sys.executable, "-m", "pytest_simian.sim", "--state-dir", str(state)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("export KUBECONFIG="), line
        kubeconfig = Path(line.strip().split("=", 1)[1])
        pack = root / "pack"
        pack.mkdir()
        (pack / "pack.yaml").write_text("name: shared\nvocabulary: upstream\n")
        for sc in SCENARIOS:
            (pack / f"{sc['id']}.yaml").write_text(yaml.safe_dump(sc, sort_keys=False))
        kube = Kube(kubeconfig)
        yield {"root": root, "kubeconfig": kubeconfig, "pack": pack, "kube": kube}
        kube.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _run(shared: dict[str, Any], out: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "KUBECONFIG": str(shared["kubeconfig"]),
           "PYTHONPATH": os.pathsep.join([str(shared["root"]), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "pytest", f"--simian-pack={shared['pack']}",
           "--simian-cluster=current", "--simian-context=default", "--simian-allow-short-faults",
           f"--simian-out={out}", "-p", "no:cacheprovider", "-q", *args]
    return subprocess.Popen(cmd, cwd=shared["root"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def _events(out: Path) -> list[dict[str, Any]]:
    evs = []
    for f in out.glob("*/audit*.jsonl"):
        for line in f.read_text().splitlines():
            try:
                evs.append(json.loads(line))
            except ValueError:
                pass
    return sorted(evs, key=lambda e: e["ts"])


def _wait_for(out: Path, event: str, timeout: float = 90.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(e["event"] == event for e in _events(out)):
            return
        time.sleep(0.2)
    pytest.fail(f"{event} never appeared")


def _leftovers(kube: Any) -> list[str]:
    out = [f"{o['kind']}/{o['metadata']['name']}" for r in managed_resources(kube)
           for o in kube.list(r, None, selector=f"{MANAGED}=true")]
    return out + [h["metadata"]["name"] for h in kube.list(kube.resolve("leases"), "kube-system")
                  if h["metadata"]["name"].startswith(("arena-", "slot-"))]


@pytest.mark.parametrize(("sig", "during"), [(signal.SIGINT, "settle"), (signal.SIGTERM, "settle"),
                                             (signal.SIGTERM, "subject")])
def test_an_interrupt_leaves_no_managed_object_and_no_hold(shared: dict[str, Any], tmp_path: Path, sig: int,
                                                            during: str) -> None:
    if during == "settle":
        proc = _run(shared, tmp_path, "--simian-only=stuck")
        _wait_for(tmp_path, "lease.registered")
    else:
        proc = _run(shared, tmp_path, "--simian-only=orders", "--simian-subject=exec:sh -c 'sleep 60; echo {}'")
        _wait_for(tmp_path, "eval.subject_started")
    assert _leftovers(shared["kube"]) != []
    proc.send_signal(sig)
    proc.communicate(timeout=180)
    assert _leftovers(shared["kube"]) == []


def test_a_killed_runner_leaves_faults_the_next_runs_reaper_removes(shared: dict[str, Any], tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    proc = _run(shared, first, "--simian-only=brief")
    _wait_for(first, "lease.registered")
    proc.kill()
    proc.communicate(timeout=30)
    dead = next(e["attempt_id"] for e in _events(first) if e["event"] == "lease.registered")
    assert any(x.startswith("Deployment/") for x in _leftovers(shared["kube"]))
    time.sleep(5)  # past the 4s lease
    _run(shared, second, "--simian-only=billing").communicate(timeout=180)
    expired = [e for e in _events(second) if e["event"] == "lease.expired"]
    assert expired and {e["attempt_id"] for e in expired} == {dead}
    assert all("scenario_id" not in e for e in expired)
    kube = shared["kube"]
    end = time.monotonic() + 60  # the reaped namespace finalizes in the cluster's own time
    while [x for x in _leftovers(kube) if not x.startswith("arena-")] and time.monotonic() < end:
        time.sleep(0.5)
    # the dead runner's hold goes stale by itself (a later run's sweep removes it); nothing else is left
    assert [x for x in _leftovers(kube) if not x.startswith("arena-")] == []


def test_a_pre_existing_namespace_survives(shared: dict[str, Any], tmp_path: Path) -> None:
    kube = shared["kube"]
    ns = kube.for_kind("v1", "Namespace")
    kube.create(ns, None, {"metadata": {"name": "kept"}})
    _run(shared, tmp_path, "--simian-only=kept").communicate(timeout=180)
    still = kube.get_or_none(ns, None, "kept")
    assert still is not None and still["metadata"]["annotations"]["simian.chaos/eligible"] == "true"
    assert any(e["event"] == "arena.namespace_adopted" for e in _events(tmp_path))
    assert kube.list(kube.for_kind("apps/v1", "Deployment"), "kept") == []
    kube.delete(ns, None, "kept")


def test_under_xdist_a_control_never_runs_beside_a_fault(shared: dict[str, Any], tmp_path: Path) -> None:
    proc = _run(shared, tmp_path, "-n", "2", "--simian-only=quiet,orders,billing",
                "--simian-subject=exec:sh -c 'sleep 2; echo {}'")
    proc.communicate(timeout=300)
    evs = _events(tmp_path)
    assert sum(e["event"] == "fault.efficacy" and e["payload"]["passed"] for e in evs) >= 3
    by: dict[str, list[dict[str, Any]]] = {}
    for e in evs:
        if e.get("attempt_id"):
            by.setdefault(e["attempt_id"], []).append(e)
    control = next(a for a, es in by.items() if any(e.get("scenario_id") == "quiet" for e in es))
    start = max(e["ts"] for e in by[control] if e["event"] == "fault.efficacy")
    end = min(e["ts"] for e in by[control] if e["event"] in ("eval.report_received", "eval.subject_error"))
    for attempt, es in by.items():
        if attempt == control:
            continue
        held = [e["ts"] for e in es if e["event"] == "arena.held"]
        released = [e["ts"] for e in es if e["event"] == "arena.released"]
        assert held and released
        assert released[-1] < start or held[0] > end, (es[0].get("scenario_id"), held, released, start, end)
    # The same, from the API server's own record: no object the other scenarios manage exists in any
    # namespace between the control's efficacy pass and its report.
    windows = _lifetimes(shared["root"] / "state" / "requests.jsonl", {"orders", "billing"})
    assert windows, "the request log shows no fault object being created"
    t0, t1 = _when(start), _when(end)
    for key, (born, gone) in windows.items():
        assert gone is not None and (gone <= t0 or born >= t1), (key, born, gone, t0, t1)
    # (a SIGKILLed runner's hold, if a test left one, is not this run's: it goes stale on its own)
    assert [x for x in _leftovers(shared["kube"]) if x != "arena-ns-brief"] == []


def _when(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _lifetimes(log: Path, namespaces: set[str]) -> dict[tuple[str, str, str], tuple[datetime, datetime | None]]:
    """Per object in `namespaces`: when the first successful write made it exist and when a successful delete
    (of the object or of its namespace) ended it, read from the request log (sorted by time)."""
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    rows.sort(key=lambda r: r["time"])
    alive: dict[tuple[str, str, str], tuple[datetime, datetime | None]] = {}
    for r in rows:
        if not 200 <= int(r.get("status", 0)) < 300:
            continue
        when = _when(r["time"])
        ns, res, name, verb = r.get("namespace", ""), r.get("resource", ""), r.get("name", ""), r.get("verb", "")
        if res == "namespaces" and verb == "delete" and name in namespaces:
            for key, (born, gone) in alive.items():
                if key[0] == name and gone is None:
                    alive[key] = (born, when)
            continue
        if ns not in namespaces or not name or r.get("subresource"):
            continue
        key = (ns, res, name)
        if verb in ("create", "patch", "update", "apply"):
            if key not in alive or alive[key][1] is not None:
                alive[key] = (when, None)
        elif verb == "delete" and key in alive and alive[key][1] is None:
            alive[key] = (alive[key][0], when)
    return alive
