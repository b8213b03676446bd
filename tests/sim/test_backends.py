"""The plugin-facing backends: ``sim`` as a child process driven over its stdin pipe (clock, tokens,
lifetime), and ``current`` (run here against an embedded cluster standing in for a real one)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from pytest_simian.cluster.current import CurrentClusterError
from pytest_simian.cluster.registry import make_backend
from pytest_simian.cluster.sim import SimHandle

from .conftest import KUBECTL, RunningSim


def _kubectl(kc: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    env.update(KUBECONFIG=str(kc), KUBECACHEDIR=str(cache), HOME=str(cache))
    return subprocess.run([KUBECTL, *args], capture_output=True, text=True, env=env, timeout=30)


def test_sim_backend_child_process(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    handle = make_backend("sim", worker="gw0").start(run_dir)
    assert isinstance(handle, SimHandle)
    try:
        assert handle.identity.backend == "sim"
        assert handle.identity.description == "embedded cluster (Kubernetes v1.36.0)"
        assert handle.harness_kubeconfig == run_dir / "kubeconfig-gw0"
        attempt = tmp_path / "attempt"
        kc = handle.subject_kubeconfig("a1", attempt)
        assert kc.parent == attempt and not str(kc).startswith(str(run_dir))
        doc = yaml.safe_load(kc.read_text())
        assert [c["name"] for c in doc["clusters"]] == ["cluster"]
        assert doc["current-context"] == "default" and [u["name"] for u in doc["users"]] == ["subject"]
        r = _kubectl(kc, attempt / "cache", "create", "namespace", "x")
        assert r.returncode == 1 and "Forbidden" in r.stderr
        r = _kubectl(handle.harness_kubeconfig, tmp_path / "hc", "create", "namespace", "x")
        assert r.returncode == 0
        handle.clock.set_realtime(False)
        before = handle.clock.now()
        handle.clock.advance(600)
        r = _kubectl(handle.harness_kubeconfig, tmp_path / "hc", "get", "ns", "x")
        assert r.stdout.split()[-1] == "10m", "ten virtual minutes show as a 10m age"
        assert handle.clock.now() > before
        log = [json.loads(line) for line in (run_dir / "requests-gw0.jsonl").read_text().splitlines()]
        assert {x["identity"] for x in log} >= {"subject:a1", "harness"}
        pid = handle.identity.extra["pid"]
    finally:
        handle.close()
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_sim_child_exits_when_the_pipe_closes(tmp_path: Path) -> None:
    handle = make_backend("sim").start(tmp_path)
    proc = handle._proc
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0


def test_current_needs_a_named_context(tmp_path: Path) -> None:
    with pytest.raises(CurrentClusterError, match="--simian-context"):
        make_backend("current").start(tmp_path)


def test_current_backend_mints_view_tokens_and_cleans_up(sim: RunningSim, tmp_path: Path) -> None:
    backend = make_backend("current", context="default", kubeconfig_path=str(sim.harness_kubeconfig))
    handle = backend.start(tmp_path / "run")
    try:
        assert handle.identity.context == "default" and handle.identity.kubernetes_version == "v1.36.0"
        sas = [s["metadata"]["name"] for s in sim.call(lambda: sim.store.items("serviceaccounts", "default"))]
        reader = [s for s in sas if s.startswith("reader-")]
        assert len(reader) == 1
        crb = sim.call(lambda: sim.store.get("clusterrolebindings", reader[0]))
        assert crb["roleRef"]["name"] == "view"
        kc = handle.subject_kubeconfig("a1", tmp_path / "attempt")
        r = _kubectl(kc, tmp_path / "cache", "auth", "whoami", "-o", "json")
        assert json.loads(r.stdout)["status"]["userInfo"]["username"] == \
            f"system:serviceaccount:default:{reader[0]}"
        r = _kubectl(kc, tmp_path / "cache", "auth", "can-i", "delete", "pods")
        assert r.stdout.strip() == "no"
    finally:
        handle.close()
    assert sim.call(lambda: sim.store.get_or_none("serviceaccounts", reader[0], "default")) is None
    assert sim.call(lambda: sim.store.get_or_none("clusterrolebindings", reader[0])) is None


def test_keep_leaves_the_cluster_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import signal

    handle = make_backend("sim", keep=True, controllers=False).start(tmp_path)
    pid = handle.identity.extra["pid"]
    try:
        handle.close()
        assert "export KUBECONFIG=" in capsys.readouterr().err
        time.sleep(0.3)
        os.kill(pid, 0)  # still alive after its pipe closed
        r = _kubectl(handle.harness_kubeconfig, tmp_path / "c", "get", "ns", "default", "-o", "name")
        assert r.stdout.strip() == "namespace/default"
    finally:
        os.kill(pid, signal.SIGTERM)


def test_python_m_sim_prints_the_export_line(tmp_path: Path) -> None:
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "pytest_simian.sim", "--state-dir", str(tmp_path),
                             "--no-controllers"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line == f"export KUBECONFIG={tmp_path / 'kubeconfig'}\n"
        r = _kubectl(tmp_path / "kubeconfig", tmp_path / "c", "version", "-o", "json")
        assert json.loads(r.stdout)["serverVersion"]["gitVersion"] == "v1.36.0"
    finally:
        proc.terminate()
        proc.wait(10)


def test_advance_plays_out_a_crash_loop_step_by_step(tmp_path: Path) -> None:
    """Five virtual minutes of a crash loop in one call: the restarts happen at their back-off times, so the
    count is what five real minutes give (with controllers and the kubelet running in the child)."""
    handle = make_backend("sim").start(tmp_path)
    try:
        kc = handle.harness_kubeconfig
        cache = tmp_path / "c"
        handle.clock.set_realtime(False)
        r = _kubectl(kc, cache, "run", "crash", "--image=busybox:1.36", "--", "sh", "-c", "exit 1")
        assert r.returncode == 0, r.stderr
        t0 = time.monotonic()
        handle.clock.advance(300)
        took = time.monotonic() - t0
        out = json.loads(_kubectl(kc, cache, "get", "pod", "crash", "-o", "json").stdout)
        restarts = out["status"]["containerStatuses"][0]["restartCount"]
        # back-off 10s, 20s, 40s, 80s, 160s (+ run time): 5 or 6 restarts in 300s, never 1
        assert 4 <= restarts <= 7, restarts
        assert took < 60
    finally:
        handle.close()
