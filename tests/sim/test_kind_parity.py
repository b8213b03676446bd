"""What a subject sees on the embedded cluster, through the real kubectl, compared with a kind cluster.

One embedded cluster with its controllers and kubelet runs on a frozen virtual clock that the test moves
deterministically (``RunningSim.advance``); the timeline is scripted once (module fixture) and the tests read
what it recorded:

- a fresh cluster, one minute after start: ``kubectl get pods -A``, ``get nodes -o wide``, ``get ns`` against
  goldens shaped like a fresh single-node kind v0.32 cluster (``tests/sim/golden/kind_*.txt``);
- the parity fixtures' crash-looping, OOM-killed, image-pull-failing and unschedulable busybox workloads
  (``/work/shared/reference/upstream-parity-record.yaml``) five virtual minutes after they were applied:
  ``kubectl describe pod`` against goldens (``describe_pod_*.txt``) whose every reason and event message is
  also checked against the oracle table in ``pytest_simian/sim/messages.py``;
- issue 4's clock rendering rule: a pod crash-looping for five virtual minutes shows a creationTimestamp five
  minutes before the host's now, ``RESTARTS`` as ``N (Xs ago)`` and the kubelet's ``back-off`` delay.

Ages kubectl computes itself (describe's event ages) use the host clock against rendered timestamps, so before
every kubectl call the test waits until the host clock's fraction of a second lines up with the virtual clock
(:func:`_aligned`); ages are then exact and need no normalization.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_simian.sim import messages as M

from .conftest import RunningSim, golden

_SAFE_SUFFIX = r"[bcdfghjklmnpqrstvwxz2456789]{5}"
_CONTAINER_ID = re.compile(r"containerd://[0-9a-f]{64}")


def _deployment(ns: str, name: str, command: list[str] | None, *, image: str = "busybox:1.36",
                resources: dict[str, Any] | None = None, replicas: int = 1) -> list[dict[str, Any]]:
    """The parity record's ``deployment`` helper: one container named ``app``, label ``app=<name>`` only."""
    c: dict[str, Any] = {"name": "app", "image": image, "imagePullPolicy": "IfNotPresent"}
    if command:
        c["command"] = command
    if resources:
        c["resources"] = resources
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
             "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                      "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [c]}}}}]


FIXTURES: dict[str, tuple[str, str, list[dict[str, Any]]]] = {
    # golden suffix: (namespace, deployment, objects) as upstream-parity-record.yaml records them
    "crashloop": ("fault-crashloop", "payments-worker", _deployment(
        "fault-crashloop", "payments-worker",
        ["sh", "-c", "echo 'connecting to payments db'; sleep 2; echo 'FATAL: connection refused' >&2; exit 1"])),
    "oomkilled": ("fault-oomkill", "cache-warmer", _deployment(
        "fault-oomkill", "cache-warmer",
        ["sh", "-c", "echo 'warming cache'; head -c 400000000 /dev/zero | tail -n 1; sleep 3600"],
        resources={"requests": {"memory": "32Mi", "cpu": "10m"}, "limits": {"memory": "64Mi", "cpu": "200m"}})),
    "imagepull": ("fault-imagepull", "checkout-api", _deployment(
        "fault-imagepull", "checkout-api", None, image="ghcr.io/go-steer/no-such-image:v0.0.0-does-not-exist")),
    "unschedulable": ("fault-unschedulable", "analytics-etl", _deployment(
        "fault-unschedulable", "analytics-etl", ["sh", "-c", "sleep 3600"], resources={"requests": {"cpu": "64"}})),
}
# a container that fails at once: the plainest crash loop, for the clock rendering rule
CLOCK_NS = "clock-check"
CLOCK_OBJECTS = _deployment(CLOCK_NS, "exits", ["sh", "-c", "exit 1"])


def _aligned(sim: RunningSim) -> None:
    """Wait (host time; the virtual clock is frozen) until host-now minus virtual-now is just past a whole
    second, so kubectl's client-side ages (host now minus a rendered timestamp, truncated) equal the virtual
    intervals for the next ~0.9 s."""
    v = sim.store.clock.timestamp()
    for _ in range(100):
        f = (time.time() - v) % 1.0
        if 0.02 <= f < 0.12:
            return
        time.sleep((1.03 - f) % 1.0)


def _k(sim: RunningSim, *args: str) -> str:
    _aligned(sim)
    return sim.kubectl(*args).stdout


def _apply(sim: RunningSim, tmp: Path, objects: list[dict[str, Any]]) -> None:
    tmp.mkdir(parents=True, exist_ok=True)
    for i, o in enumerate(objects):
        (tmp / f"{i:02d}-{o['kind'].lower()}.json").write_text(json.dumps(o))
    sim.kubectl("apply", "-f", str(tmp))


@pytest.fixture(scope="module")
def timeline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("kindparity")
    sim = RunningSim(tmp, controllers=True)
    rec: dict[str, Any] = {}
    try:
        v0 = sim.store.clock.timestamp()
        sim.advance(math.ceil(v0) - v0 + 60)  # whole virtual seconds from here on; the cluster is a minute old
        rec["get_pods_A"] = _k(sim, "get", "pods", "-A", "-o", "wide")
        rec["get_nodes_wide"] = _k(sim, "get", "nodes", "-o", "wide")
        rec["get_ns"] = _k(sim, "get", "ns")
        rec["get_all_kube_system"] = _k(sim, "get", "deploy,ds,svc", "-n", "kube-system")
        rec["kube_system_logs"] = {p: sim.kubectl("logs", "-n", "kube-system", p).stdout for p in (
            sim.call(lambda: [x["metadata"]["name"] for x in sim.store.items("pods", "kube-system")]))}
        rec["unmodelled"] = sim.call(lambda: {k: v.unmodelled() for k, v in sim.server.installed.items()
                                              if k.startswith("kubelet/")})
        objects = [o for _, _, objs in FIXTURES.values() for o in objs] + CLOCK_OBJECTS
        _apply(sim, tmp / "manifests", objects)
        sim.advance(195)
        rec["clock_195"] = _clock_snapshot(sim)
        sim.advance(105)
        rec["clock_300"] = _clock_snapshot(sim)
        for key, (ns, _name, _objs) in FIXTURES.items():
            rec[f"describe_{key}"] = _k(sim, "describe", "pod", "-n", ns)
        rec["kube_system_after"] = sim.call(lambda: [
            (p["metadata"]["name"], [(c["restartCount"], c["ready"]) for c in p["status"]["containerStatuses"]])
            for p in sim.store.items("pods", "kube-system") + sim.store.items("pods", "local-path-storage")])
        yield rec
    finally:
        sim.close()


def _clock_snapshot(sim: RunningSim) -> dict[str, Any]:
    _aligned(sim)
    host_now = time.time()
    pod = json.loads(sim.kubectl("get", "pods", "-n", CLOCK_NS, "-o", "json").stdout)["items"][0]
    table = _k(sim, "get", "pods", "-n", CLOCK_NS)
    return {"host_now": host_now, "pod": pod, "table": table}


# ------------------------------------------------------------------------------------------- fresh cluster
def test_fresh_cluster_get_pods_all_namespaces_like_kind(timeline: dict[str, Any]) -> None:
    golden("kind_get_pods_A_wide.txt", timeline["get_pods_A"])


def test_fresh_cluster_get_nodes_wide_like_kind(timeline: dict[str, Any]) -> None:
    golden("kind_get_nodes_wide.txt", timeline["get_nodes_wide"])


def test_fresh_cluster_get_ns_like_kind(timeline: dict[str, Any]) -> None:
    golden("kind_get_ns.txt", timeline["get_ns"])


def test_fresh_cluster_kube_system_workloads(timeline: dict[str, Any]) -> None:
    golden("kind_get_kube_system_workloads.txt", timeline["get_all_kube_system"])


def test_system_pods_stay_healthy_quiet_and_modelled(timeline: dict[str, Any]) -> None:
    # five virtual minutes later nothing in kube-system or local-path-storage restarted or went unready
    assert timeline["kube_system_after"], "no system pods"
    for name, containers in timeline["kube_system_after"]:
        assert containers and all(rc == 0 and ready for rc, ready in containers), (name, containers)
    # they log nothing alarming (the images' default behaviour serves quietly)
    for pod, text in timeline["kube_system_logs"].items():
        assert not re.search(r"(?i)error|fatal|panic|fail", text), (pod, text)
    # and nothing in them is outside the model (the harness would mark scenarios NOT SCORED)
    for kubelet, unmodelled in timeline["unmodelled"].items():
        assert unmodelled == {}, (kubelet, unmodelled)


# ------------------------------------------------------------------------------------------- describe goldens
def _normalize_pod(text: str, deployment: str) -> str:
    """The pod name's random suffix (the ReplicaSet's pod-template-hash is stable) and the container ID
    (derived from the random pod uid) vary run to run; the uid itself and dates are normalized by golden()."""
    text = re.sub(rf"({re.escape(deployment)}-[a-z0-9]{{10}})-{_SAFE_SUFFIX}(?![a-z0-9])", r"\1-<pod>", text)
    return _CONTAINER_ID.sub("containerd://<container-id>", text)


@pytest.mark.parametrize("key", sorted(FIXTURES))
def test_describe_pod_golden(timeline: dict[str, Any], key: str) -> None:
    _ns, deployment, _objs = FIXTURES[key]
    golden(f"describe_pod_{key}.txt", _normalize_pod(timeline[f"describe_{key}"], deployment))


# ------------------------------------------------------------------------------------------- the oracle check
def _template_regex(text: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", text)
    rx = ""
    for i, p in enumerate(parts):
        rx += re.escape(p) if i % 2 == 0 else f"(?P<{p}_{i}>.+?)"
    return re.compile(f"^{rx}$", re.S)


_TEMPLATES = [(m, _template_regex(m.text)) for m in M.TABLE if "{" in m.text or m.kind in ("event", "status")]
_REASONS = {m.text for m in M.TABLE if m.kind in ("reason", "status") and "{" not in m.text and " " not in m.text}


def explained(text: str, depth: int = 0) -> bool:
    """True when ``text`` is an instance of a table template whose placeholders are plain values (one token:
    a name, image, duration, URL, number) or themselves explained (a nested error, a scheduler reason list
    ``N <reason>, N <reason>``)."""
    if depth > 4:
        return False
    if text in _REASONS:
        return True
    for _m, rx in _TEMPLATES:
        mt = rx.match(text)
        if mt is None:
            continue
        if all(_value_ok(v, depth) for v in mt.groupdict().values()):
            return True
    return False


def _value_ok(v: str, depth: int) -> bool:
    if re.fullmatch(r"\S+", v):
        return True
    if explained(v, depth + 1):
        return True
    items = [re.sub(r"^\d+ ", "", x) for x in v.split(", ")]
    return all(explained(x, depth + 1) or explained(x.rstrip("."), depth + 1) for x in items)


_EVENT = re.compile(r"^  (Normal|Warning)\s+(\S+)\s+\S+(?: \(x\d+ over \S+\))?\s+(\S+)\s+(.*)$")
_STATE_REASON = re.compile(r"^\s+Reason:\s+(\S+)$")


@pytest.mark.parametrize("key", sorted(FIXTURES))
def test_describe_pod_lines_are_in_the_oracle_table(timeline: dict[str, Any], key: str) -> None:
    text = timeline[f"describe_{key}"]
    events = [m for m in (_EVENT.match(line) for line in text.splitlines()) if m]
    assert events, text
    for m in events:
        _type, reason, source, message = m.groups()
        message = re.sub(r"^spec\.containers\{[^}]+\}: ", "", message)  # kubectl describe's fieldPath prefix
        assert reason in _REASONS, f"event reason {reason!r} is not in messages.py"
        assert source in ("kubelet", "default-scheduler"), source
        assert explained(message), f"event message not in messages.py: {message!r}"
    for line in text.splitlines():
        sm = _STATE_REASON.match(line)
        if sm:
            assert sm.group(1) in _REASONS, f"state reason {sm.group(1)!r} is not in messages.py"


def test_oracle_check_rejects_text_not_in_the_table() -> None:
    assert explained('Pulling image "busybox:1.36"')
    assert explained("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
                     "1 No preemption victims found for incoming pod..")
    assert not explained('Pulling the image "busybox:1.36"')
    assert not explained("Container image busybox was pulled")


# ------------------------------------------------------------------------------------------- clock rendering
def _ts(s: str) -> float:
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()


@pytest.mark.parametrize(("snap", "elapsed", "status", "restarts", "age", "ago"), [
    # `exit 1` at once: restarts at ~1s, 14s, 38s, 88s, 169s; CrashLoopBackOff shows only from the 2m40s
    # back-off's second requeue on (the 1m20s one shows it 164-169s); in between the exit shows as Error
    # (RESTARTS' "ago" is the *previous* termination's finishedAt, as printers.go reads lastState)
    ("clock_195", 195, "Error", "5 (107s ago)", "3m15s", 26),
    ("clock_300", 300, "CrashLoopBackOff", "5 (2m11s ago)", "5m", 131),
])
def test_virtual_time_renders_as_host_time(timeline: dict[str, Any], snap: str, elapsed: int, status: str,
                                           restarts: str, age: str, ago: int) -> None:
    s = timeline[snap]
    pod = s["pod"]
    # the creationTimestamp reads `elapsed` seconds before the host's now (whole seconds, never in the future)
    created = _ts(pod["metadata"]["creationTimestamp"])
    assert elapsed <= s["host_now"] - created < elapsed + 1.2
    # the server-side table: RESTARTS as `N (Xs ago)` and AGE, on nominal intervals
    row = s["table"].splitlines()[1].split(None, 3)
    assert row[2] == status
    assert row[3].rsplit(None, 1) == [restarts, age]
    cs = pod["status"]["containerStatuses"][0]
    md = pod["metadata"]
    if status == "CrashLoopBackOff":
        # the kubelet's back-off (10s doubling: 10, 20, 40, 80, 160) in the waiting message, real format
        waiting = cs["state"]["waiting"]
        assert waiting["reason"] == M.REASON_CRASH_LOOP
        assert waiting["message"] == M.MSG_CRASHLOOP_STATUS.format(
            delay="2m40s", name="app",
            pod=M.MSG_POD_FORMAT.format(name=md["name"], namespace=md["namespace"], uid=md["uid"]))
        last = cs["lastState"]["terminated"]
    else:
        last = cs["state"]["terminated"]
        assert last["reason"] == "Error" and last["exitCode"] == 1
    # the last termination's times are rendered on the same host-relative scale
    assert ago <= s["host_now"] - _ts(last["startedAt"]) < ago + 1.2
