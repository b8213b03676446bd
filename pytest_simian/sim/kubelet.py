"""The simulated kubelet: runs the pods bound to one node of the embedded cluster, on virtual time.

Why it exists: it is the wiring between the store and the pure pod model of :mod:`containers`: it keeps a
:class:`~pytest_simian.sim.containers.PodRuntime` per pod bound to its node, steps them as the virtual clock
moves, writes ``pod.status`` and the kubelet's events back to the store, serves ``pods/log`` (through
``store.log_provider``), finishes graceful deletions (``store.graceful_delete_hook``), and answers the
network questions of the busybox model (Service DNS names, ClusterIPs, ready endpoints, pod IPs) from the
store, so ``wget http://svc`` inside a pod behaves as through kube-proxy on a kind node.

What it must not do: run a container's command on the host (the busybox model interprets it), read the host
clock (it uses ``store.clock``), or write anything but pod status, events and pod deletion.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import math
from datetime import UTC, datetime
from typing import Any

from pytest_simian.sim import busybox, images
from pytest_simian.sim.clock import format_time
from pytest_simian.sim.containers import PodRuntime, render_logs
from pytest_simian.sim.eventrecorder import EventRecorder
from pytest_simian.sim.store import json_copy

__all__ = ["Kubelet", "StoreEnvironment", "service_env_vars"]

CLUSTER_DOMAIN = "cluster.local"


def _decode(data: dict[str, str] | None) -> dict[str, str]:
    out = {}
    for k, v in (data or {}).items():
        try:
            out[k] = base64.b64decode(v).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001 - invalid base64 never reaches the store; be lenient anyway
            out[k] = v
    return out


def service_env_vars(services: list[dict[str, Any]]) -> dict[str, str]:
    """Docker-link style variables (pkg/kubelet/envvars/envvars.go FromServices)."""
    env: dict[str, str] = {}
    for svc in services:
        spec = svc.get("spec") or {}
        ip = spec.get("clusterIP")
        if not ip or ip == "None":
            continue
        name = svc["metadata"]["name"].upper().replace("-", "_")
        ports = spec.get("ports") or []
        if not ports:
            continue
        env[f"{name}_SERVICE_HOST"] = ip
        env[f"{name}_SERVICE_PORT"] = str(ports[0].get("port"))
        for p in ports:
            if p.get("name"):
                env[f"{name}_SERVICE_PORT_{p['name'].upper().replace('-', '_')}"] = str(p.get("port"))
        first = ports[0]
        proto = str(first.get("protocol", "TCP")).lower()
        env[f"{name}_PORT"] = f"{proto}://{ip}:{first.get('port')}"
        for p in ports:
            pr = str(p.get("protocol", "TCP"))
            prefix = f"{name}_PORT_{p.get('port')}_{pr.upper()}"
            env[prefix] = f"{pr.lower()}://{ip}:{p.get('port')}"
            env[f"{prefix}_PROTO"] = pr.lower()
            env[f"{prefix}_PORT"] = str(p.get("port"))
            env[f"{prefix}_ADDR"] = ip
    return env


def _selector_matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def _pod_ready(pod: dict[str, Any]) -> bool:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


class StoreEnvironment:
    """containers.Environment answered from the store and the kubelets' running pods."""

    def __init__(self, store: Any, kubelets: list[Kubelet]) -> None:
        self.store = store
        self.kubelets = kubelets

    def configmap(self, namespace: str, name: str) -> dict[str, str] | None:
        cm = self.store.get_or_none("configmaps", name, namespace)
        if cm is None:
            return None
        out = dict(cm.get("data") or {})
        out.update(_decode(cm.get("binaryData")))
        return out

    def secret(self, namespace: str, name: str) -> dict[str, str] | None:
        s = self.store.get_or_none("secrets", name, namespace)
        return None if s is None else _decode(s.get("data"))

    def service_env(self, namespace: str) -> dict[str, str]:
        svcs = self.store.view("services", namespace)
        master = self.store.get_or_none("services", "kubernetes", "default")
        env = service_env_vars(svcs)
        if master is not None:
            env.update({k: v for k, v in service_env_vars([master]).items() if k.startswith("KUBERNETES_")})
        return env

    # -- network
    def _runtime_for_ip(self, ip: str) -> tuple[PodRuntime | None, dict[str, Any] | None]:
        for k in self.kubelets:
            for rt in k.runtimes.values():
                if rt.pod_ip == ip and rt.sandbox_ready:
                    return rt, rt.pod
        return None, None

    def _resolve(self, namespace: str, host: str) -> tuple[str, dict[str, Any] | None] | None:
        """(address, service or None) for a host name or IP as cluster DNS answers it."""
        try:
            ipaddress.ip_address(host)
            for svc in self.store.view("services"):
                if (svc.get("spec") or {}).get("clusterIP") == host:
                    return host, svc
            return host, None
        except ValueError:
            pass
        h = host.rstrip(".")
        suffixes = [f".svc.{CLUSTER_DOMAIN}", ".svc", ""]
        candidates: list[tuple[str, str]] = []
        parts = h.split(".")
        for suf in suffixes:
            if suf and not h.endswith(suf):
                continue
            base = h[: len(h) - len(suf)] if suf else h
            bp = base.split(".")
            if len(bp) == 1:
                candidates.append((bp[0], namespace))
            elif len(bp) == 2:
                candidates.append((bp[0], bp[1]))
        del parts
        for name, ns in candidates:
            svc = self.store.get_or_none("services", name, ns)
            if svc is not None:
                ip = (svc.get("spec") or {}).get("clusterIP")
                if ip and ip != "None":
                    return ip, svc
                eps = self._ready_endpoints(svc)
                if eps:
                    return eps[0][0], svc
                return None
        return None

    def _ready_endpoints(self, svc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        sel = (svc.get("spec") or {}).get("selector") or {}
        ns = svc["metadata"]["namespace"]
        out = []
        for pod in self.store.view("pods", ns):
            if _selector_matches(sel, (pod.get("metadata") or {}).get("labels") or {}) and _pod_ready(pod):
                ip = (pod.get("status") or {}).get("podIP")
                if ip:
                    out.append((ip, pod))
        return out

    def connect(self, namespace: str, action: busybox.Connect) -> busybox.ConnectResult:
        resolved = self._resolve(namespace, action.host)
        if resolved is None:
            return busybox.ConnectResult("bad_address")
        addr, svc = resolved
        if svc is not None and (svc.get("spec") or {}).get("clusterIP") == addr:
            ports = (svc.get("spec") or {}).get("ports") or []
            sp = next((p for p in ports if int(p.get("port", 0)) == action.port), None)
            if sp is None:
                return busybox.ConnectResult("timeout", addr)  # no kube-proxy rule: packets are dropped
            eps = self._ready_endpoints(svc)
            if not eps:
                return busybox.ConnectResult("refused", addr)  # kube-proxy REJECTs a Service with no endpoints
            ip, pod = eps[0]
            target = sp.get("targetPort", sp.get("port"))
            port = self._target_port(pod, target)
            return self._to_pod(ip, port, action, shown=addr)
        return self._to_pod(addr, action.port, action, shown=addr)

    def _target_port(self, pod: dict[str, Any], target: Any) -> int:
        if isinstance(target, int) or (isinstance(target, str) and target.isdigit()):
            return int(target)
        for c in (pod.get("spec") or {}).get("containers") or []:
            for p in c.get("ports") or []:
                if p.get("name") == target:
                    return int(p.get("containerPort", 0))
        return 0

    def _to_pod(self, ip: str, port: int, action: busybox.Connect, shown: str) -> busybox.ConnectResult:
        rt, _ = self._runtime_for_ip(ip)
        if rt is None:
            return busybox.ConnectResult("timeout", shown)
        proto = rt.listening(port)
        if proto is None:
            return busybox.ConnectResult("refused", shown)
        if action.kind == "nc":
            return busybox.ConnectResult("ok", shown)
        owner = next((c for c in rt.all() if c.state == "running" and port in c.listeners), None)
        repo = owner.info.repository if owner is not None and owner.info is not None else ""
        ans = images.http_answer(repo, proto, action.path)
        if not ans.answered:
            return busybox.ConnectResult("timeout", shown)
        return busybox.ConnectResult("ok", shown, ans.status, ans.reason, ans.body)


class Kubelet:
    """One node's kubelet. ``await kubelet.run()`` as a store controller; ``sync_once()`` steps it by hand."""

    def __init__(self, store: Any, node_name: str, *, env: StoreEnvironment | None = None) -> None:
        self.store = store
        self.node_name = node_name
        self.runtimes: dict[str, PodRuntime] = {}
        self.env = env or StoreEnvironment(store, [self])
        if self not in self.env.kubelets:
            self.env.kubelets.append(self)
        node = store.get_or_none("nodes", node_name) or {}
        addrs = (node.get("status") or {}).get("addresses") or []
        self.host_ip = next((a["address"] for a in addrs if a.get("type") == "InternalIP"), "172.18.0.2")
        cidr = ((node.get("spec") or {}).get("podCIDR") or "10.244.0.0/24")
        self._net = ipaddress.ip_network(cidr, strict=False)
        self._next_ip = 5
        self.cpus = int(float(((node.get("status") or {}).get("capacity") or {}).get("cpu", "8")))
        self.node_images = images.NodeImages()
        self.recorder = EventRecorder(store, "kubelet", node_name)
        self._kick = asyncio.Event()
        self._installed = False
        self._seen_rv: dict[str, str | None] = {}  # pod uid -> resourceVersion this kubelet last saw/wrote
        self._env_version: tuple[int, ...] = ()
        self._writing = False

    # -- store hooks
    def install(self) -> None:
        if self._installed:
            return
        self._installed = True
        prev_logs = self.store.log_provider
        prev_delete = self.store.graceful_delete_hook

        def logs(namespace: str, pod: dict[str, Any], container: str, **kw: Any) -> str:
            rt = self.runtimes.get(pod["metadata"].get("uid", ""))
            if rt is None:
                return prev_logs(namespace, pod, container, **kw) if prev_logs else ""
            return self.logs(rt, container, **kw)

        def graceful(rt_type: Any, obj: dict[str, Any]) -> bool:
            if (obj.get("spec") or {}).get("nodeName") != self.node_name:
                return prev_delete(rt_type, obj) if prev_delete else False
            self._kick.set()
            return True

        self.store.log_provider = logs
        self.store.graceful_delete_hook = graceful

    def logs(self, rt: PodRuntime, container: str, *, previous: bool = False, tail_lines: int | None = None,
             timestamps: bool = False, since_seconds: float | None = None, since_time: str | None = None,
             **_: Any) -> str:
        clock = self.store.clock
        shift = clock.shift()
        since = None
        if since_seconds is not None:
            since = clock.timestamp() - float(since_seconds)
        elif since_time:
            since = datetime.strptime(since_time[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC).timestamp() - shift
        lines = rt.logs(container, previous=previous)
        if timestamps and shift:
            from pytest_simian.sim.containers import LogLine

            lines = [LogLine(ln.time + shift, ln.stream, ln.text) for ln in lines]
            since = None if since is None else since + shift
        return render_logs(lines, timestamps=timestamps, since=since, tail=tail_lines)

    def unmodelled(self) -> dict[str, list[str]]:
        """Pods whose commands the busybox model could not follow ("ns/name" -> reasons), for the harness to
        mark a scenario that depends on one NOT VALID on the embedded cluster. Never written to the store,
        so a subject cannot see it."""
        return {f"{rt.namespace}/{rt.name}": list(rt.unmodelled) for rt in self.runtimes.values() if rt.unmodelled}

    def _pod_ip(self, pod: dict[str, Any]) -> str:
        """hostNetwork pods share the node's address; a pod that already has an address on this node (one the
        node's bootstrap started, see ``bootstrap.py``) keeps it, as its sandbox survives a kubelet restart;
        everything else gets the next address of the node's pod CIDR."""
        if (pod.get("spec") or {}).get("hostNetwork"):
            return self.host_ip
        st = pod.get("status") or {}
        ip = st.get("podIP")
        if ip and st.get("hostIP") == self.host_ip:
            try:
                if ipaddress.ip_address(ip) in self._net:
                    return str(ip)
            except ValueError:
                pass
        return self._alloc_ip()

    def _alloc_ip(self) -> str:
        ip = str(self._net.network_address + self._next_ip)
        self._next_ip += 1
        return ip

    # -- the loop
    def sync_once(self) -> float | None:
        """Step the pods bound to this node that need it; returns the earliest virtual time one wants again.

        A pod is stepped when it is new to this kubelet, when its object changed since this kubelet last
        saw it (a deletion, a spec change, a write by someone else), when its own wake-up time has come, or
        when a ConfigMap, Secret or Service changed (a container waiting on a missing key may now start).
        Every other pod is left alone, so a sync costs what changed, not the node's pod count.
        """
        store = self.store
        now = store.clock.timestamp()
        env_version = (store.version_of("configmaps"), store.version_of("secrets"), store.version_of("services"))
        everything = env_version != self._env_version
        self._env_version = env_version
        seen: set[str] = set()
        wake: list[float] = []
        for stored in store.pods_on_node(self.node_name):
            md = stored["metadata"]
            uid = md.get("uid", "")
            seen.add(uid)
            rt = self.runtimes.get(uid)
            due = rt.next_wakeup() if rt is not None else None
            if (rt is not None and not everything and self._seen_rv.get(uid) == md.get("resourceVersion")
                    and (due is None or due > now)):
                if due is not None:
                    wake.append(due)
                continue
            pod = json_copy(stored)
            md = pod["metadata"]
            if rt is None:
                if md.get("deletionTimestamp"):
                    store.delete("pods", md["name"], md.get("namespace"), grace_period_seconds=0)
                    continue
                rt = PodRuntime(pod, env=self.env, now=now, node_name=self.node_name, host_ip=self.host_ip,
                                pod_ip=self._pod_ip(pod), node_images=self.node_images, cpus=self.cpus,
                                fmt_time=lambda t: format_time(datetime.fromtimestamp(t, UTC)))
                self.runtimes[uid] = rt
            rt.pod = pod
            if md.get("deletionTimestamp") and not rt.deleting:
                events = rt.terminate(now, grace=md.get("deletionGracePeriodSeconds"))
            else:
                events = rt.step(now)
            for ev in events:
                self.recorder.record(pod, ev.type, ev.reason, ev.message, field_path=ev.field_path, at=ev.time)
            if rt.deleting and rt.finished:
                store.delete("pods", md["name"], md.get("namespace"), grace_period_seconds=0)
                self._forget(uid)
                continue
            self._seen_rv[uid] = self._write_status(pod, rt, now)
            nxt = rt.next_wakeup()
            if nxt is not None:
                wake.append(nxt)
        for uid in list(self.runtimes):
            if uid not in seen:
                self._forget(uid)
        return min(wake) if wake else None

    def _forget(self, uid: str) -> None:
        self.runtimes.pop(uid, None)
        self._seen_rv.pop(uid, None)

    def _write_status(self, pod: dict[str, Any], rt: PodRuntime, now: float) -> str | None:
        """Write the pod's status if it changed; the pod's resourceVersion afterwards (None: write failed,
        so the next sync looks at the pod again)."""
        old = pod.get("status") or {}
        scheduled = next((c for c in old.get("conditions") or [] if c.get("type") == "PodScheduled"), None)
        new = rt.status(now, scheduled=scheduled)
        keep = {k: v for k, v in old.items() if k in ("nominatedNodeName",)}
        new.update(keep)
        if new == old:
            return pod["metadata"].get("resourceVersion")  # type: ignore[no-any-return]
        obj = dict(pod)
        obj["status"] = new
        self._writing = True
        try:
            written = self.store.update_status("pods", obj, namespace=pod["metadata"].get("namespace"),
                                               manager="kubelet")
            return written["metadata"].get("resourceVersion")  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - a concurrent write (conflict/deleted): the next sync retries
            self._kick.set()
            return None
        finally:
            self._writing = False

    async def run(self) -> None:
        self.install()

        def on_change(ev: Any) -> None:
            obj = ev.object or {}
            kind = obj.get("kind")
            if kind == "Pod":
                spec = obj.get("spec") or {}
                md = obj.get("metadata") or {}
                if spec.get("nodeName") == self.node_name and not self._writing and (
                        ev.type != "MODIFIED" or self._seen_rv.get(md.get("uid", "")) != md.get("resourceVersion")):
                    self._kick.set()
            elif kind in ("ConfigMap", "Secret", "Service"):
                self._kick.set()

        unsubscribe = self.store.subscribe(on_change)
        try:
            while True:
                self._kick.clear()
                nxt = self.sync_once()
                clock = self.store.clock
                delay = math.inf if nxt is None else max(0.0, nxt - clock.timestamp())
                kick = asyncio.ensure_future(self._kick.wait())
                tasks = {kick}
                if not math.isinf(delay):
                    tasks.add(asyncio.ensure_future(clock.sleep(delay + 1e-6)))
                try:
                    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for t in tasks:
                        t.cancel()
        finally:
            unsubscribe()
