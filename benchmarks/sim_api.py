"""Throughput and footprint of the embedded API server.

Prints requests/s for GET one pod and LIST pods (100 and 1,000 pods in the namespace, JSON and Table), the
wall time of ``kubectl get pods`` (warm discovery cache), and the server's resident memory with 10,000 pods.
The server runs as the plugin runs it (a child process over HTTPS); the client is aiohttp in this process
with a few keep-alive connections.

    .venv/bin/python benchmarks/sim_api.py
"""

from __future__ import annotations

import asyncio
import os
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from pytest_simian.cluster.registry import make_backend
from pytest_simian.cluster.sim import SimHandle

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
CONCURRENCY = 4


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pod(name: str) -> dict:  # type: ignore[type-arg]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "bench", "pod-template-hash": "5f7c9d"}},
            "spec": {"nodeName": "kind-control-plane",
                     "containers": [{"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}],
                                     "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}


async def fill(session: aiohttp.ClientSession, base: str, ns: str, start: int, stop: int) -> None:
    sem = asyncio.Semaphore(8)

    async def one(i: int) -> None:
        async with sem, session.post(f"{base}/api/v1/namespaces/{ns}/pods", json=pod(f"p-{i:05d}")) as r:
            assert r.status == 201, await r.text()

    await asyncio.gather(*(one(i) for i in range(start, stop)))


async def rate(session: aiohttp.ClientSession, url: str, seconds: float, headers: dict[str, str] | None = None
               ) -> float:
    count = 0
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal count
        while time.perf_counter() < deadline:
            async with session.get(url, headers=headers) as r:
                await r.read()
                assert r.status == 200
            count += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    return count / (time.perf_counter() - t0)


def kubectl_wall(handle: SimHandle, ns: str, cache: Path, runs: int = 5) -> float:
    kubectl = str(Path(sys.executable).parent / "kubectl")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    env.update(KUBECONFIG=str(handle.harness_kubeconfig), KUBECACHEDIR=str(cache), HOME=str(cache))
    subprocess.run([kubectl, "get", "pods", "-n", ns], env=env, capture_output=True, check=True)  # warm cache
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([kubectl, "get", "pods", "-n", ns], env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


async def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="simian-bench-"))
    handle = make_backend("sim", controllers=False).start(tmp)  # the API server alone
    assert isinstance(handle, SimHandle)
    pid = int(handle.identity.extra["pid"])
    import yaml

    kc = yaml.safe_load(handle.harness_kubeconfig.read_text())
    token = kc["users"][0]["user"]["token"]
    ctx = ssl.create_default_context(cafile=str(tmp / "sim" / "main" / "pki" / "ca.crt"))
    base = handle.server
    conn = aiohttp.TCPConnector(ssl=ctx, limit=CONCURRENCY * 2)
    results: list[tuple[str, str]] = []
    async with aiohttp.ClientSession(connector=conn, headers={"Authorization": f"Bearer {token}"}) as s:
        rss0 = rss_mib(pid)
        for ns, n in (("b100", 100), ("b1000", 1000)):
            async with s.post(f"{base}/api/v1/namespaces", json={"metadata": {"name": ns}}) as r:
                assert r.status == 201
            await fill(s, base, ns, 0, n)
            get = await rate(s, f"{base}/api/v1/namespaces/{ns}/pods/p-00000", 3)
            lst = await rate(s, f"{base}/api/v1/namespaces/{ns}/pods", 3)
            tbl = await rate(s, f"{base}/api/v1/namespaces/{ns}/pods", 3, {"Accept": TABLE})
            results += [(f"GET one pod ({n} pods in namespace)", f"{get:,.0f} req/s"),
                        (f"LIST pods, JSON ({n} pods)", f"{lst:,.1f} req/s"),
                        (f"LIST pods, Table ({n} pods)", f"{tbl:,.1f} req/s")]
            wall = kubectl_wall(handle, ns, tmp / f"cache-{ns}")
            results.append((f"kubectl get pods wall time ({n} pods, warm cache, median of 5)", f"{wall * 1000:.0f} ms"))
        async with s.post(f"{base}/api/v1/namespaces", json={"metadata": {"name": "b10k"}}) as r:
            assert r.status == 201
        t0 = time.perf_counter()
        await fill(s, base, "b10k", 0, 8900)  # 100 + 1,000 + 8,900 = 10,000 pods
        fill_rate = 8900 / (time.perf_counter() - t0)
        rss1 = rss_mib(pid)
        results.append(("POST pod (create) throughput", f"{fill_rate:,.0f} req/s"))
        results.append(("server RSS: empty cluster", f"{rss0:.0f} MiB"))
        results.append(("server RSS: 10,000 pods", f"{rss1:.0f} MiB ({(rss1 - rss0) * 1024 / 10000:.1f} KiB/pod)"))
    handle.close()
    width = max(len(a) for a, _ in results)
    print(f"embedded API server benchmark ({os.cpu_count()} CPUs, {CONCURRENCY} client connections, HTTPS)")
    for a, b in results:
        print(f"  {a:<{width}}  {b}")


if __name__ == "__main__":
    asyncio.run(main())
