"""How fast the embedded cluster plays out a fault's lifecycle, and how fast it schedules at scale.

Run on demand (not a test); prints figures:

- wall seconds, from ``kubectl apply`` of the parity fixture until its settle condition is observable, for
  CrashLoopBackOff, OOMKilled and ImagePullBackOff (upstream-parity-record.yaml fixtures), with the virtual
  clock frozen and fast-forwarded the way the harness does it (``clock.advance`` in 2-second steps, the
  settle loop's poll interval, polling the same field the parity record's settle condition reads after each
  step), and the virtual seconds that took (CrashLoopBackOff shows at the 1m20s back-off step, ~175 s, as
  upstream measured on kind);
- the time to schedule 1,000 pods on 100 nodes (``nodes=100``): bound by the scheduler (every pod has
  ``spec.nodeName``), then Running on the simulated kubelets;
- the in-process scheduler alone on the same workload (no HTTP, no kubelets), for comparison.

Run the parts separately with ``faults``, ``scale``, ``scheduler``.

The cluster runs as the plugin runs it: a child process over HTTPS (``make_backend("sim")``).

    .venv/bin/python benchmarks/sim_lifecycle.py [faults] [scale] [scheduler]
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from pytest_simian.cluster.registry import make_backend
from pytest_simian.cluster.sim import SimHandle

KUBECTL = str(Path(sys.executable).parent / "kubectl")
STEP = 2.0  # virtual seconds per fast-forward step (probes.POLL_SECONDS)


def deployment(ns: str, name: str, command: list[str] | None, *, image: str = "busybox:1.36",
               resources: dict[str, Any] | None = None, replicas: int = 1) -> list[dict[str, Any]]:
    c: dict[str, Any] = {"name": "app", "image": image, "imagePullPolicy": "IfNotPresent"}
    if command:
        c["command"] = command
    if resources:
        c["resources"] = resources
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
             "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                      "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [c]}}}}]


# (label, objects, namespace, what the settle condition looks for in containerStatuses)
FAULTS: list[tuple[str, list[dict[str, Any]], str, str]] = [
    ("CrashLoopBackOff", deployment("fault-crashloop", "payments-worker", [
        "sh", "-c", "echo 'connecting to payments db'; sleep 2; echo 'FATAL: connection refused' >&2; exit 1"]),
     "fault-crashloop", "CrashLoopBackOff"),
    ("OOMKilled", deployment("fault-oomkill", "cache-warmer", [
        "sh", "-c", "echo 'warming cache'; head -c 400000000 /dev/zero | tail -n 1; sleep 3600"],
        resources={"requests": {"memory": "32Mi", "cpu": "10m"}, "limits": {"memory": "64Mi", "cpu": "200m"}}),
     "fault-oomkill", "OOMKilled"),
    ("ImagePullBackOff", deployment("fault-imagepull", "checkout-api", None,
                                    image="ghcr.io/go-steer/no-such-image:v0.0.0-does-not-exist", replicas=2),
     "fault-imagepull", "ImagePullBackOff"),
]


class Api:
    """Just enough of an HTTPS client for polling (the harness token, the cluster's CA)."""

    def __init__(self, handle: SimHandle) -> None:
        kc = yaml.safe_load(handle.harness_kubeconfig.read_text())
        self.token = kc["users"][0]["user"]["token"]
        ca = kc["clusters"][0]["cluster"]["certificate-authority-data"]
        import base64

        self.ctx = ssl.create_default_context(cadata=base64.b64decode(ca).decode())
        self.base = handle.server

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=self.ctx, timeout=60) as r:
            return json.loads(r.read())


def kubectl(handle: SimHandle, cache: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    env.update(KUBECONFIG=str(handle.harness_kubeconfig), KUBECACHEDIR=str(cache), HOME=str(cache))
    return subprocess.run([KUBECTL, *args], env=env, capture_output=True, text=True, check=True).stdout


def fault_lifecycle(tmp: Path) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    handle = make_backend("sim").start(tmp / "faults")
    assert isinstance(handle, SimHandle)
    try:
        api = Api(handle)
        handle.clock.set_realtime(False)
        handle.clock.settle()
        for label, objects, ns, token in FAULTS:
            d = tmp / f"m-{ns}"
            d.mkdir()
            for i, o in enumerate(objects):
                (d / f"{i}.json").write_text(json.dumps(o))
            t0 = time.perf_counter()
            kubectl(handle, tmp / "cache", "apply", "-f", str(d))
            virtual = 0.0
            while True:
                pods = api.request("GET", f"/api/v1/namespaces/{ns}/pods")["items"]
                blob = json.dumps([p.get("status", {}).get("containerStatuses", []) for p in pods])
                if token in blob:
                    break
                handle.clock.advance(STEP)
                virtual += STEP
                if virtual > 1800:
                    raise RuntimeError(f"{label} not observable after 30 virtual minutes")
            wall = time.perf_counter() - t0
            out.append((f"{label} observable (parity fixture {ns})",
                        f"{wall:.2f} s wall  ({virtual:.0f} s virtual, {STEP:.0f} s steps)"))
    finally:
        handle.close()
    return out


def schedule_at_scale(tmp: Path, pods: int = 1000, nodes: int = 100) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    handle = make_backend("sim", nodes=nodes).start(tmp / "scale")
    assert isinstance(handle, SimHandle)
    try:
        api = Api(handle)
        handle.clock.set_realtime(False)
        handle.clock.settle()
        api.request("POST", "/api/v1/namespaces", {"metadata": {"name": "scale"}})
        spec = {"containers": [{"name": "app", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 3600"],
                                "resources": {"requests": {"cpu": "50m", "memory": "32Mi"}}}]}
        t0 = time.perf_counter()
        with ThreadPoolExecutor(8) as ex:
            list(ex.map(lambda i: api.request("POST", "/api/v1/namespaces/scale/pods", {
                "metadata": {"name": f"p-{i:04d}", "labels": {"app": "scale"}}, "spec": spec}), range(pods)))
        created = time.perf_counter() - t0
        while True:
            items = api.request("GET", "/api/v1/namespaces/scale/pods")["items"]
            bound = sum(1 for p in items if p["spec"].get("nodeName"))
            if bound == pods:
                break
            time.sleep(0.05)
        scheduled = time.perf_counter() - t0
        spread = len({p["spec"]["nodeName"] for p in items})
        t1 = time.perf_counter()
        handle.clock.advance(5)
        items = api.request("GET", "/api/v1/namespaces/scale/pods")["items"]
        running = sum(1 for p in items if p.get("status", {}).get("phase") == "Running")
        run_wall = time.perf_counter() - t1
        out.append((f"create {pods} pods over HTTPS (8 client threads)", f"{created:.2f} s"))
        out.append((f"{pods} pods bound on {nodes} nodes (from first create)",
                    f"{scheduled:.2f} s wall  (spread over {spread} nodes)"))
        out.append((f"then Running on {nodes} simulated kubelets (advance 5 virtual s)",
                    f"{run_wall:.2f} s wall  ({running}/{pods} Running)"))
    finally:
        handle.close()
    return out


def scheduler_in_process(pods: int = 1000, nodes: int = 100) -> list[tuple[str, str]]:
    from pytest_simian.sim.bootstrap import seed
    from pytest_simian.sim.clock import VirtualClock
    from pytest_simian.sim.controllers.scheduler import Scheduler
    from pytest_simian.sim.store import Store

    store = Store(clock=VirtualClock(realtime=False))
    seed(store, nodes=nodes)
    store.create("namespaces", {"metadata": {"name": "scale"}})
    spec = {"containers": [{"name": "app", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 3600"],
                            "resources": {"requests": {"cpu": "50m", "memory": "32Mi"}}}]}
    for i in range(pods):
        store.create("pods", {"metadata": {"name": f"p-{i:04d}", "namespace": "scale"}, "spec": spec})
    sched = Scheduler(store)
    t0 = time.perf_counter()
    for _ in range(100):
        sched.reconcile()
        if all(p["spec"].get("nodeName") for p in store.items("pods", "scale")):
            break
    took = time.perf_counter() - t0
    return [(f"scheduler alone, in process: {pods} pods on {nodes} nodes", f"{took:.2f} s")]


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="simian-lifecycle-"))
    parts = sys.argv[1:] or ["faults", "scale", "scheduler"]
    print(f"embedded cluster lifecycle benchmark ({os.cpu_count()} CPUs)", flush=True)
    for part in parts:
        rows = {"faults": fault_lifecycle, "scale": schedule_at_scale,
                "scheduler": lambda _tmp: scheduler_in_process()}[part](tmp)
        for a, b in rows:
            print(f"  {a:<62}  {b}", flush=True)


if __name__ == "__main__":
    main()
