"""The objects a fresh cluster has before anyone touches it (what kubeadm and kind v0.32 leave behind).

Why: a subject's first ``kubectl get ns``, ``get nodes -o wide`` or ``get pods -A`` on the embedded cluster must
look like a fresh single-node kind cluster (``kind create cluster``, default name ``kind``, node image
``kindest/node:v1.36.x``): the five namespaces (``local-path-storage`` included), a Ready node named
``kind-control-plane`` with kubeadm's labels and annotations, the ``kubernetes`` and ``kube-dns`` Services, the
default StorageClass ``standard``, and in ``kube-system`` the healthy components kind shows: the four
control-plane static pods (mirror pods owned by the Node), coredns (a Deployment with a ReplicaSet and two
pods), kube-proxy and kindnet (DaemonSets, one pod per node), plus the local-path-provisioner Deployment.
Pods are created bound and with a Running status so a bare API server (``--no-controllers``) shows them the
same way; when the kubelets run they take the pods over (images are preloaded, so nothing is pulled) and the
ReplicaSet/Deployment controllers adopt coredns and local-path-provisioner (same pod-template-hash).
Where the shapes come from: kubeadm 1.36's static pod and addon manifests (cmd/kubeadm/app/phases/
{controlplane,etcd,addons/dns,addons/proxy}), kind's kindnet and local-path manifests
(pkg/build/nodeimage/const_{cni,storage}.go), and the ``kubectl get pods -A -o wide`` / ``get nodes -o wide`` of a
kind v0.32 cluster with ``kindest/node:v1.36.1`` (image tags, IP layout, OS image, containerd version); figures
are documented in docs/embedded-cluster.md.
Must not: create anything that names a fault, a scenario or the simulation (no ``sim`` in any name).
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from .names import CLUSTER_NAME
from .store import Store

#: kind v0.32 with kindest/node:v1.36.1; the control-plane images carry the emulated version (v1.36.0)
COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.14.2"
ETCD_IMAGE = "registry.k8s.io/etcd:3.6.8-0"
KUBE_VERSION = "v1.36.0"
KINDNETD_IMAGE = "docker.io/kindest/kindnetd:v20260528-9350166c"
LOCAL_PATH_IMAGE = "docker.io/kindest/local-path-provisioner:v20260521-9fb22683"
LOCAL_PATH_HELPER_IMAGE = "docker.io/kindest/local-path-helper:v20260521-9fb22683"
OS_IMAGE = "Debian GNU/Linux 13 (trixie)"
CONTAINER_RUNTIME = "containerd://2.3.1"
KERNEL_VERSION = "6.8.0-1030-azure"  # the host's kernel (kind nodes share it); matches the nginx image's notice
NODE_CAPACITY = {"cpu": "8", "ephemeral-storage": "102625208Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                 "memory": "16315584Ki", "pods": "110"}
KUBE_DNS_IP = "10.96.0.10"
_SAFE = "bcdfghjklmnpqrstvwxz2456789"  # rand.SafeEncodeString's alphabet (generated name suffixes)


def node_name(index: int, cluster: str = CLUSTER_NAME) -> str:
    """kind's node container names: ``<cluster>-control-plane``, ``<cluster>-worker``, ``<cluster>-worker2``..."""
    if index == 0:
        return f"{cluster}-control-plane"
    return f"{cluster}-worker{'' if index == 1 else index}"


def node_ip(index: int) -> str:
    """The node's address on kind's docker network (172.18.0.0/16; .1 is the gateway)."""
    return f"172.18.0.{index + 2}"


def _suffix(seed: str, n: int = 5) -> str:
    """A stable generated-name suffix in the API server's alphabet (stable run to run, so goldens hold)."""
    v = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")
    out = []
    for _ in range(n):
        v, r = divmod(v, len(_SAFE))
        out.append(_SAFE[r])
    return "".join(out)


def seed(store: Store, *, nodes: int = 1) -> None:
    for ns in ("default", "kube-node-lease", "kube-public", "kube-system"):
        store.create("namespaces", {"metadata": {"name": ns}}, manager="kube-apiserver")
    store.create("services", {
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"clusterIP": "10.96.0.1", "ports": [{"name": "https", "port": 443, "targetPort": 6443}]},
    }, manager="kube-apiserver")
    _rbac(store)
    for name in ("controller-manager", "etcd-0", "scheduler"):  # deprecated, still served by 1.36
        store.create("componentstatuses", {"metadata": {"name": name}, "conditions": [
            {"type": "Healthy", "status": "True", "message": "ok"}]}, manager="kube-apiserver")
    made: list[dict[str, Any]] = []
    for i in range(nodes):
        name = node_name(i)
        n = store.create("nodes", node(store, name, control_plane=(i == 0), index=i), manager="kubelet")
        made.append(n)
        # the node's heartbeat Lease (`describe node` shows it); renewing it is the kubelet's business
        store.create("leases", {
            "metadata": {"name": name, "namespace": "kube-node-lease",
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name,
                                              "uid": n["metadata"]["uid"]}]},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": store.clock.now_micro()},
        }, manager="kubelet")
    _system(store, made)


def node(store: Store, name: str, *, control_plane: bool, index: int) -> dict:  # type: ignore[type-arg]
    now = store.clock.now_str()
    labels = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    if control_plane:
        labels["node-role.kubernetes.io/control-plane"] = ""
        labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
    ip = node_ip(index)

    def cond(t: str, s: str, reason: str, msg: str) -> dict:  # type: ignore[type-arg]
        return {"type": t, "status": s, "lastHeartbeatTime": now, "lastTransitionTime": now, "reason": reason,
                "message": msg}

    from .images import node_image_list

    return {
        "metadata": {"name": name, "labels": labels,
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                     "kubeadm.alpha.kubernetes.io/cri-socket":
                                         "unix:///run/containerd/containerd.sock",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"podCIDR": f"10.244.{index}.0/24", "podCIDRs": [f"10.244.{index}.0/24"],
                 "providerID": f"kind://docker/{CLUSTER_NAME}/{name}"},
        "status": {
            "capacity": dict(NODE_CAPACITY),
            "allocatable": dict(NODE_CAPACITY),  # kind reserves nothing for system or kube daemons
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                     "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": hashlib.md5(f"machine/{name}".encode()).hexdigest(),  # noqa: S324
                         "systemUUID": _uuidish(f"system/{name}"), "bootID": _uuidish(f"boot/{name}"),
                         "kernelVersion": KERNEL_VERSION, "osImage": OS_IMAGE,
                         "containerRuntimeVersion": CONTAINER_RUNTIME, "kubeletVersion": KUBE_VERSION,
                         "kubeProxyVersion": KUBE_VERSION, "operatingSystem": "linux", "architecture": "amd64"},
            "images": node_image_list(),
        },
    }


def _uuidish(seed: str) -> str:
    h = hashlib.sha256(seed.encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


# ------------------------------------------------------------------------------------------ kube-system
_HOST_TOLERATIONS = [  # what the DaemonSet controller adds to a daemon pod (util.AddOrUpdateDaemonPodTolerations)
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"},
]

_COREFILE = """.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success cluster.local
       disable denial cluster.local
    }
    loop
    reload
    loadbalance
}
"""

_LOCAL_PATH_CONFIG = {
    "config.json": '{\n        "nodePathMap":[\n        {\n'
                   '                "node":"DEFAULT_PATH_FOR_NON_LISTED_NODES",\n'
                   '                "paths":["/var/local-path-provisioner"]\n        }\n        ]\n}',
    "setup": '#!/bin/sh\nset -eu\nmkdir -m 0777 -p "$VOL_DIR"',
    "teardown": '#!/bin/sh\nset -eu\nrm -rf "$VOL_DIR"',
    "helperPod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: helper-pod\nspec:\n  containers:\n"
                      f"  - name: helper-pod\n    image: {LOCAL_PATH_HELPER_IMAGE}\n    imagePullPolicy: IfNotPresent",
}


def _hp(name: str, path: str, type_: str | None = None) -> dict[str, Any]:
    hp: dict[str, Any] = {"path": path}
    if type_:
        hp["type"] = type_
    return {"name": name, "hostPath": hp}


def _probe(path: str, port: int, *, scheme: str = "HTTPS", failure: int = 8, initial: int = 10, period: int = 10,
           timeout: int = 15) -> dict[str, Any]:
    return {"httpGet": {"host": "127.0.0.1", "path": path, "port": port, "scheme": scheme},
            "failureThreshold": failure, "initialDelaySeconds": initial, "periodSeconds": period,
            "successThreshold": 1, "timeoutSeconds": timeout}


def _static_pods(ip: str, name: str) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """kubeadm's four control-plane static pods: (component, container, volumes)."""
    pki = "/etc/kubernetes/pki"
    etcd = {
        "name": "etcd", "image": ETCD_IMAGE, "imagePullPolicy": "IfNotPresent",
        "command": ["etcd", f"--advertise-client-urls=https://{ip}:2379", f"--cert-file={pki}/etcd/server.crt",
                    "--client-cert-auth=true", "--data-dir=/var/lib/etcd",
                    "--feature-gates=InitialCorruptCheck=true", f"--initial-advertise-peer-urls=https://{ip}:2380",
                    f"--initial-cluster={name}=https://{ip}:2380", f"--key-file={pki}/etcd/server.key",
                    f"--listen-client-urls=https://127.0.0.1:2379,https://{ip}:2379",
                    "--listen-metrics-urls=http://127.0.0.1:2381", f"--listen-peer-urls=https://{ip}:2380",
                    f"--name={name}", f"--peer-cert-file={pki}/etcd/peer.crt", "--peer-client-cert-auth=true",
                    f"--peer-key-file={pki}/etcd/peer.key", f"--peer-trusted-ca-file={pki}/etcd/ca.crt",
                    "--snapshot-count=10000", f"--trusted-ca-file={pki}/etcd/ca.crt",
                    "--watch-progress-notify-interval=5s"],
        "livenessProbe": _probe("/livez", 2381, scheme="HTTP"),
        "readinessProbe": _probe("/readyz", 2381, scheme="HTTP", failure=3, initial=0, period=1),
        "startupProbe": _probe("/readyz", 2381, scheme="HTTP", failure=24),
        "resources": {"requests": {"cpu": "100m", "memory": "100Mi"}},
        "volumeMounts": [{"name": "etcd-data", "mountPath": "/var/lib/etcd"},
                         {"name": "etcd-certs", "mountPath": f"{pki}/etcd"}],
    }
    etcd_vols = [_hp("etcd-certs", f"{pki}/etcd", "DirectoryOrCreate"),
                 _hp("etcd-data", "/var/lib/etcd", "DirectoryOrCreate")]
    common_mounts = [{"name": "ca-certs", "mountPath": "/etc/ssl/certs", "readOnly": True},
                     {"name": "etc-ca-certificates", "mountPath": "/etc/ca-certificates", "readOnly": True},
                     {"name": "k8s-certs", "mountPath": pki, "readOnly": True},
                     {"name": "usr-local-share-ca-certificates", "mountPath": "/usr/local/share/ca-certificates",
                      "readOnly": True},
                     {"name": "usr-share-ca-certificates", "mountPath": "/usr/share/ca-certificates",
                      "readOnly": True}]
    common_vols = [_hp("ca-certs", "/etc/ssl/certs", "DirectoryOrCreate"),
                   _hp("etc-ca-certificates", "/etc/ca-certificates", "DirectoryOrCreate"),
                   _hp("k8s-certs", pki, "DirectoryOrCreate"),
                   _hp("usr-local-share-ca-certificates", "/usr/local/share/ca-certificates", "DirectoryOrCreate"),
                   _hp("usr-share-ca-certificates", "/usr/share/ca-certificates", "DirectoryOrCreate")]
    apiserver = {
        "name": "kube-apiserver", "image": f"registry.k8s.io/kube-apiserver:{KUBE_VERSION}",
        "imagePullPolicy": "IfNotPresent",
        "command": ["kube-apiserver", f"--advertise-address={ip}", "--allow-privileged=true",
                    "--authorization-mode=Node,RBAC", f"--client-ca-file={pki}/ca.crt",
                    "--enable-admission-plugins=NodeRestriction", "--enable-bootstrap-token-auth=true",
                    f"--etcd-cafile={pki}/etcd/ca.crt", f"--etcd-certfile={pki}/apiserver-etcd-client.crt",
                    f"--etcd-keyfile={pki}/apiserver-etcd-client.key", "--etcd-servers=https://127.0.0.1:2379",
                    f"--kubelet-client-certificate={pki}/apiserver-kubelet-client.crt",
                    f"--kubelet-client-key={pki}/apiserver-kubelet-client.key",
                    "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
                    "--runtime-config=", "--secure-port=6443",
                    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                    f"--service-account-key-file={pki}/sa.pub",
                    f"--service-account-signing-key-file={pki}/sa.key", "--service-cluster-ip-range=10.96.0.0/16",
                    f"--tls-cert-file={pki}/apiserver.crt", f"--tls-private-key-file={pki}/apiserver.key"],
        "livenessProbe": {**_probe("/livez", 6443), "httpGet": {"host": ip, "path": "/livez", "port": 6443,
                                                                  "scheme": "HTTPS"}},
        "readinessProbe": {**_probe("/readyz", 6443, failure=3, initial=0, period=1),
                           "httpGet": {"host": ip, "path": "/readyz", "port": 6443, "scheme": "HTTPS"}},
        "startupProbe": {**_probe("/livez", 6443, failure=24), "httpGet": {"host": ip, "path": "/livez",
                                                                             "port": 6443, "scheme": "HTTPS"}},
        "resources": {"requests": {"cpu": "250m"}},
        "volumeMounts": common_mounts,
    }
    cm_mounts = [m for m in common_mounts if m["name"] in ("ca-certs", "etc-ca-certificates")] + [
        {"name": "flexvolume-dir", "mountPath": "/usr/libexec/kubernetes/kubelet-plugins/volume/exec"},
        common_mounts[2],
        {"name": "kubeconfig", "mountPath": "/etc/kubernetes/controller-manager.conf", "readOnly": True},
    ] + common_mounts[3:]
    controller_manager = {
        "name": "kube-controller-manager", "image": f"registry.k8s.io/kube-controller-manager:{KUBE_VERSION}",
        "imagePullPolicy": "IfNotPresent",
        "command": ["kube-controller-manager", "--allocate-node-cidrs=true",
                    "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
                    "--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
                    "--bind-address=127.0.0.1", f"--client-ca-file={pki}/ca.crt", "--cluster-cidr=10.244.0.0/16",
                    f"--cluster-name={CLUSTER_NAME}", f"--cluster-signing-cert-file={pki}/ca.crt",
                    f"--cluster-signing-key-file={pki}/ca.key", "--controllers=*,bootstrapsigner,tokencleaner",
                    "--enable-hostpath-provisioner=true", "--kubeconfig=/etc/kubernetes/controller-manager.conf",
                    "--leader-elect=true", f"--requestheader-client-ca-file={pki}/front-proxy-ca.crt",
                    f"--root-ca-file={pki}/ca.crt", f"--service-account-private-key-file={pki}/sa.key",
                    "--service-cluster-ip-range=10.96.0.0/16", "--use-service-account-credentials=true"],
        "livenessProbe": _probe("/healthz", 10257),
        "startupProbe": _probe("/healthz", 10257, failure=24),
        "resources": {"requests": {"cpu": "200m"}},
        "volumeMounts": cm_mounts,
    }
    cm_vols = common_vols[:3] + [
        _hp("flexvolume-dir", "/usr/libexec/kubernetes/kubelet-plugins/volume/exec", "DirectoryOrCreate"),
        _hp("kubeconfig", "/etc/kubernetes/controller-manager.conf", "FileOrCreate")] + common_vols[3:]
    scheduler = {
        "name": "kube-scheduler", "image": f"registry.k8s.io/kube-scheduler:{KUBE_VERSION}",
        "imagePullPolicy": "IfNotPresent",
        "command": ["kube-scheduler", "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
                    "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf", "--bind-address=127.0.0.1",
                    "--kubeconfig=/etc/kubernetes/scheduler.conf", "--leader-elect=true"],
        "livenessProbe": _probe("/livez", 10259),
        "readinessProbe": _probe("/readyz", 10259, failure=3, initial=0, period=1),
        "startupProbe": _probe("/livez", 10259, failure=24),
        "resources": {"requests": {"cpu": "100m"}},
        "volumeMounts": [{"name": "kubeconfig", "mountPath": "/etc/kubernetes/scheduler.conf", "readOnly": True}],
    }
    return [("etcd", etcd, etcd_vols), ("kube-apiserver", apiserver, common_vols),
            ("kube-controller-manager", controller_manager, cm_vols),
            ("kube-scheduler", scheduler, [_hp("kubeconfig", "/etc/kubernetes/scheduler.conf", "FileOrCreate")])]


def _running_status(store: Store, pod: dict[str, Any], host_ip: str, pod_ip: str) -> dict[str, Any]:
    """A just-started, Ready pod's status (what the kubelet will write again when it takes the pod over)."""
    from .images import image_id

    now = store.clock.now_str()
    conds = [{"lastProbeTime": None, "lastTransitionTime": now, "status": "True", "type": t}
             for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")]
    statuses = []
    for c in pod["spec"]["containers"]:
        cid = hashlib.sha256(f"{pod['metadata']['name']}/{c['name']}".encode()).hexdigest()
        st: dict[str, Any] = {"name": c["name"], "containerID": f"containerd://{cid}", "image": c["image"],
                              "imageID": image_id(c["image"]), "lastState": {}, "ready": True, "restartCount": 0,
                              "started": True, "state": {"running": {"startedAt": now}}}
        res = c.get("resources") or {}
        if res.get("requests"):
            st["allocatedResources"] = dict(res["requests"])
        if res.get("requests") or res.get("limits"):
            st["resources"] = {k: dict(v) for k, v in res.items() if k in ("limits", "requests") and v}
        statuses.append(st)
    return {"conditions": conds, "containerStatuses": sorted(statuses, key=lambda d: d["name"]),
            "hostIP": host_ip, "hostIPs": [{"ip": host_ip}], "phase": "Running", "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}], "qosClass": (pod.get("status") or {}).get("qosClass", "BestEffort"),
            "startTime": now}


def _create_pod(store: Store, pod: dict[str, Any], host_ip: str, pod_ip: str) -> dict[str, Any]:
    ns = pod["metadata"]["namespace"]
    made = store.create("pods", pod, namespace=ns, manager="kubelet" if pod["metadata"].get(
        "annotations", {}).get("kubernetes.io/config.mirror") else "kube-controller-manager")
    made["status"] = _running_status(store, made, host_ip, pod_ip)
    return store.update_status("pods", made, namespace=ns, manager="kubelet")


def _daemonset(store: Store, name: str, labels: dict[str, str], selector: dict[str, str],
               pod_spec: dict[str, Any], nodes: list[dict[str, Any]], *,
               max_unavailable: int = 1) -> None:
    ds = store.create("daemonsets", {
        "metadata": {"name": name, "namespace": "kube-system", "labels": labels,
                     "annotations": {"deprecated.daemonset.template.generation": "1"}},
        "spec": {"selector": {"matchLabels": selector}, "revisionHistoryLimit": 10,
                 "updateStrategy": {"type": "RollingUpdate",
                                    "rollingUpdate": {"maxSurge": 0, "maxUnavailable": max_unavailable}},
                 "template": {"metadata": {"labels": dict(selector) | {k: v for k, v in labels.items()
                                                                          if k not in selector}},
                              "spec": pod_spec}},
    }, namespace="kube-system", manager="kubectl-client-side-apply" if name == "kindnet" else "kubeadm")
    tmpl = ds["spec"]["template"]
    revision_hash = _suffix(f"revision/{name}", 10)
    from .controllers.base import controller_ref

    store.create("controllerrevisions", {
        "metadata": {"name": f"{name}-{revision_hash}", "namespace": "kube-system",
                     "labels": dict(selector) | {"controller-revision-hash": revision_hash},
                     "ownerReferences": [controller_ref(ds)]},
        "data": {"spec": {"template": tmpl}}, "revision": 1,
    }, namespace="kube-system", manager="kube-controller-manager")
    for n in nodes:
        nname = n["metadata"]["name"]
        ip = next(a["address"] for a in n["status"]["addresses"] if a["type"] == "InternalIP")
        spec = copy.deepcopy(tmpl["spec"])
        spec["nodeName"] = nname
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [nname]}]}]}}}
        tols = list(spec.get("tolerations") or [])
        spec["tolerations"] = tols + [t for t in _HOST_TOLERATIONS if t not in tols]
        _create_pod(store, {
            "metadata": {"name": f"{name}-{_suffix(f'{name}/{nname}')}", "namespace": "kube-system",
                         "labels": dict(tmpl["metadata"]["labels"]) | {"controller-revision-hash": revision_hash,
                                                                        "pod-template-generation": "1"},
                         "ownerReferences": [controller_ref(ds)]},
            "spec": spec,
        }, ip, ip)
    k = len(nodes)
    ds["status"] = {"currentNumberScheduled": k, "desiredNumberScheduled": k, "numberAvailable": k,
                    "numberMisscheduled": 0, "numberReady": k, "observedGeneration": 1, "updatedNumberScheduled": k}
    store.update_status("daemonsets", ds, namespace="kube-system", manager="kube-controller-manager")


def _deployment(store: Store, namespace: str, name: str, labels: dict[str, str], selector: dict[str, str],
                pod_spec: dict[str, Any], replicas: int, pod_ips: list[str], node: dict[str, Any], *,
                strategy: dict[str, Any] | None = None, manager: str = "kubeadm") -> None:
    from .controllers.base import controller_ref, template_hash

    dep = store.create("deployments", {
        "metadata": {"name": name, "namespace": namespace, "labels": labels,
                     "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": selector},
                 **({"strategy": strategy} if strategy else {}),
                 "template": {"metadata": {"labels": dict(selector)}, "spec": pod_spec}},
    }, namespace=namespace, manager=manager)
    tmpl = copy.deepcopy(dep["spec"]["template"])
    h = template_hash(tmpl)  # what the Deployment controller computes, so it adopts this ReplicaSet
    tmpl["metadata"].setdefault("labels", {})["pod-template-hash"] = h
    surge = dep["spec"].get("strategy", {}).get("rollingUpdate", {}).get("maxSurge", "25%")
    max_surge = surge if isinstance(surge, int) else -(-replicas * int(str(surge).rstrip("%")) // 100)
    rs = store.create("replicasets", {
        "metadata": {"name": f"{name}-{h}", "namespace": namespace, "labels": dict(tmpl["metadata"]["labels"]),
                     "annotations": {"deployment.kubernetes.io/desired-replicas": str(replicas),
                                     "deployment.kubernetes.io/max-replicas": str(replicas + max_surge),
                                     "deployment.kubernetes.io/revision": "1"},
                     "ownerReferences": [controller_ref(dep)]},
        "spec": {"replicas": replicas, "minReadySeconds": 0,
                 "selector": {"matchLabels": dict(selector) | {"pod-template-hash": h}}, "template": tmpl},
    }, namespace=namespace, manager="kube-controller-manager")
    host_ip = next(a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP")
    for i in range(replicas):
        spec = copy.deepcopy(tmpl["spec"])
        spec["nodeName"] = node["metadata"]["name"]
        _create_pod(store, {
            "metadata": {"name": f"{rs['metadata']['name']}-{_suffix(f'{name}/{i}')}", "namespace": namespace,
                         "labels": dict(tmpl["metadata"]["labels"]), "ownerReferences": [controller_ref(rs)]},
            "spec": spec,
        }, host_ip, pod_ips[i])
    rs["status"] = {"replicas": replicas, "fullyLabeledReplicas": replicas, "readyReplicas": replicas,
                    "availableReplicas": replicas, "observedGeneration": 1}
    store.update_status("replicasets", rs, namespace=namespace, manager="kube-controller-manager")
    now = store.clock.now_str()
    dep["status"] = {
        "observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas, "readyReplicas": replicas,
        "availableReplicas": replicas,
        "conditions": [
            {"type": "Available", "status": "True", "lastUpdateTime": now, "lastTransitionTime": now,
             "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability."},
            {"type": "Progressing", "status": "True", "lastUpdateTime": now, "lastTransitionTime": now,
             "reason": "NewReplicaSetAvailable",
             "message": f'ReplicaSet "{rs["metadata"]["name"]}" has successfully progressed.'},
        ]}
    store.update_status("deployments", dep, namespace=namespace, manager="kube-controller-manager")


def _system(store: Store, nodes: list[dict[str, Any]]) -> None:
    """kube-system and local-path-storage as `kind create cluster` leaves them."""
    cp = nodes[0]
    cp_name = cp["metadata"]["name"]
    cp_ip = next(a["address"] for a in cp["status"]["addresses"] if a["type"] == "InternalIP")
    ks = "kube-system"
    for sa in ("coredns", "kube-proxy", "kindnet"):
        store.create("serviceaccounts", {"metadata": {"name": sa, "namespace": ks}}, namespace=ks,
                     manager="kubeadm")
    store.create("configmaps", {"metadata": {"name": "coredns", "namespace": ks}, "data": {"Corefile": _COREFILE}},
                 namespace=ks, manager="kubeadm")
    store.create("configmaps", {"metadata": {"name": "kube-proxy", "namespace": ks, "labels": {"app": "kube-proxy"}},
                                "data": {"config.conf": _kube_proxy_config(), "kubeconfig.conf": _kube_proxy_kubeconfig(
                                    cp_name)}}, namespace=ks, manager="kubeadm")
    store.create("configmaps", {"metadata": {"name": "kubeadm-config", "namespace": ks},
                                "data": {"ClusterConfiguration": _cluster_configuration(cp_name)}},
                 namespace=ks, manager="kubeadm")
    store.create("services", {
        "metadata": {"name": "kube-dns", "namespace": ks,
                     "labels": {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true",
                                "kubernetes.io/name": "CoreDNS"},
                     "annotations": {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}},
        "spec": {"clusterIP": KUBE_DNS_IP, "selector": {"k8s-app": "kube-dns"},
                 "ports": [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                           {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
                           {"name": "metrics", "port": 9153, "protocol": "TCP", "targetPort": 9153}]},
    }, namespace=ks, manager="kubeadm")
    # the control-plane static pods, as mirror pods owned by the Node
    for component, container, volumes in _static_pods(cp_ip, cp_name):
        digest = hashlib.md5(f"{component}/{cp_name}".encode()).hexdigest()  # noqa: S324 - a config hash
        ann = {"kubernetes.io/config.hash": digest, "kubernetes.io/config.mirror": digest,
               "kubernetes.io/config.seen": store.clock.now().strftime("%Y-%m-%dT%H:%M:%S.%f000Z"),
               "kubernetes.io/config.source": "file"}
        if component == "etcd":
            ann["kubeadm.kubernetes.io/etcd.advertise-client-urls"] = f"https://{cp_ip}:2379"
        elif component == "kube-apiserver":
            ann["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"] = f"{cp_ip}:6443"
        _create_pod(store, {
            "metadata": {"name": f"{component}-{cp_name}", "namespace": ks,
                         "labels": {"component": component, "tier": "control-plane"}, "annotations": ann,
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": cp_name,
                                              "uid": cp["metadata"]["uid"], "controller": True}]},
            "spec": {"containers": [container], "hostNetwork": True, "nodeName": cp_name,
                     "priority": 2000001000, "priorityClassName": "system-node-critical",
                     "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
                     "tolerations": [{"operator": "Exists", "effect": "NoExecute"}],
                     "volumes": volumes},
        }, cp_ip, cp_ip)
    # kube-proxy (kubeadm addon) and kindnet (kind's CNI), one pod per node
    _daemonset(store, "kube-proxy", {"k8s-app": "kube-proxy"}, {"k8s-app": "kube-proxy"}, {
        "containers": [{"name": "kube-proxy", "image": f"registry.k8s.io/kube-proxy:{KUBE_VERSION}",
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["/usr/local/bin/kube-proxy", "--config=/var/lib/kube-proxy/config.conf",
                                    "--hostname-override=$(NODE_NAME)"],
                        "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                                 "fieldPath": "spec.nodeName"}}}],
                        "securityContext": {"privileged": True},
                        "volumeMounts": [{"name": "kube-proxy", "mountPath": "/var/lib/kube-proxy"},
                                         {"name": "xtables-lock", "mountPath": "/run/xtables.lock"},
                                         {"name": "lib-modules", "mountPath": "/lib/modules", "readOnly": True}]}],
        "hostNetwork": True, "nodeSelector": {"kubernetes.io/os": "linux"},
        "priorityClassName": "system-node-critical", "serviceAccountName": "kube-proxy",
        "tolerations": [{"operator": "Exists"}],
        "volumes": [{"name": "kube-proxy", "configMap": {"name": "kube-proxy", "defaultMode": 420}},
                    _hp("xtables-lock", "/run/xtables.lock", "FileOrCreate"), _hp("lib-modules", "/lib/modules")],
    }, nodes)
    _daemonset(store, "kindnet", {"app": "kindnet", "k8s-app": "kindnet", "tier": "node"}, {"app": "kindnet"}, {
        "containers": [{"name": "kindnet-cni", "image": KINDNETD_IMAGE, "imagePullPolicy": "IfNotPresent",
                        "env": [{"name": "HOST_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                               "fieldPath": "status.hostIP"}}},
                                {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                              "fieldPath": "status.podIP"}}},
                                {"name": "POD_SUBNET", "value": "10.244.0.0/16"},
                                {"name": "CONTROL_PLANE_ENDPOINT", "value": f"{cp_name}:6443"}],
                        "resources": {"limits": {"cpu": "100m", "memory": "50Mi"},
                                      "requests": {"cpu": "100m", "memory": "50Mi"}},
                        "securityContext": {"capabilities": {"add": ["NET_RAW", "NET_ADMIN"]}, "privileged": False},
                        "volumeMounts": [{"name": "cni-cfg", "mountPath": "/etc/cni/net.d"},
                                         {"name": "xtables-lock", "mountPath": "/run/xtables.lock"},
                                         {"name": "lib-modules", "mountPath": "/lib/modules", "readOnly": True},
                                         {"name": "nri-plugin", "mountPath": "/var/run/nri"}]}],
        "hostNetwork": True, "serviceAccountName": "kindnet", "tolerations": [{"operator": "Exists"}],
        "volumes": [_hp("cni-cfg", "/etc/cni/net.d"), _hp("xtables-lock", "/run/xtables.lock", "FileOrCreate"),
                    _hp("lib-modules", "/lib/modules"), _hp("nri-plugin", "/var/run/nri")],
    }, nodes)
    # coredns (kubeadm addon): two replicas, pod IPs .3 and .4 as kind hands them out
    _deployment(store, ks, "coredns", {"k8s-app": "kube-dns"}, {"k8s-app": "kube-dns"}, {
        "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname", "labelSelector": {
                "matchExpressions": [{"key": "k8s-app", "operator": "In", "values": ["kube-dns"]}]}}}]}},
        "containers": [{"name": "coredns", "image": COREDNS_IMAGE, "imagePullPolicy": "IfNotPresent",
                        "args": ["-conf", "/etc/coredns/Corefile"],
                        "livenessProbe": {"httpGet": {"path": "/health", "port": 8080, "scheme": "HTTP"},
                                          "failureThreshold": 5, "initialDelaySeconds": 60, "periodSeconds": 10,
                                          "successThreshold": 1, "timeoutSeconds": 5},
                        "ports": [{"containerPort": 53, "name": "dns", "protocol": "UDP"},
                                  {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
                                  {"containerPort": 9153, "name": "metrics", "protocol": "TCP"},
                                  {"containerPort": 8080, "name": "liveness-probe", "protocol": "TCP"},
                                  {"containerPort": 8181, "name": "readiness-probe", "protocol": "TCP"}],
                        "readinessProbe": {"httpGet": {"path": "/ready", "port": 8181, "scheme": "HTTP"},
                                           "failureThreshold": 3, "periodSeconds": 10, "successThreshold": 1,
                                           "timeoutSeconds": 1},
                        "resources": {"limits": {"memory": "170Mi"}, "requests": {"cpu": "100m", "memory": "70Mi"}},
                        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {
                            "add": ["NET_BIND_SERVICE"], "drop": ["ALL"]}, "readOnlyRootFilesystem": True},
                        "volumeMounts": [{"name": "config-volume", "mountPath": "/etc/coredns", "readOnly": True}]}],
        "dnsPolicy": "Default", "nodeSelector": {"kubernetes.io/os": "linux"},
        "priorityClassName": "system-cluster-critical", "serviceAccountName": "coredns",
        "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                        {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
        "volumes": [{"name": "config-volume", "configMap": {"name": "coredns", "defaultMode": 420,
                                                            "items": [{"key": "Corefile", "path": "Corefile"}]}}],
    }, 2, ["10.244.0.3", "10.244.0.4"], cp, strategy={"type": "RollingUpdate", "rollingUpdate": {
        "maxSurge": "25%", "maxUnavailable": 1}})
    # local-path-storage (kind's default storage), the first pod IP on the node
    lps = "local-path-storage"
    store.create("namespaces", {"metadata": {"name": lps}}, manager="kubectl-client-side-apply")
    store.create("serviceaccounts", {"metadata": {"name": "local-path-provisioner-service-account",
                                                  "namespace": lps}}, namespace=lps,
                 manager="kubectl-client-side-apply")
    store.create("configmaps", {"metadata": {"name": "local-path-config", "namespace": lps},
                                "data": dict(_LOCAL_PATH_CONFIG)}, namespace=lps, manager="kubectl-client-side-apply")
    _deployment(store, lps, "local-path-provisioner", {}, {"app": "local-path-provisioner"}, {
        "containers": [{"name": "local-path-provisioner", "image": LOCAL_PATH_IMAGE, "imagePullPolicy": "IfNotPresent",
                        "command": ["local-path-provisioner", "--debug", "start", "--helper-image",
                                    LOCAL_PATH_HELPER_IMAGE, "--config", "/etc/config/config.json"],
                        "env": [{"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {
                            "apiVersion": "v1", "fieldPath": "metadata.namespace"}}}],
                        "volumeMounts": [{"name": "config-volume", "mountPath": "/etc/config/"}]}],
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "serviceAccountName": "local-path-provisioner-service-account",
        "tolerations": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Equal", "effect": "NoSchedule"},
                        {"key": "node-role.kubernetes.io/master", "operator": "Equal", "effect": "NoSchedule"}],
        "volumes": [{"name": "config-volume", "configMap": {"name": "local-path-config", "defaultMode": 420}}],
    }, 1, ["10.244.0.2"], cp, manager="kubectl-client-side-apply")
    store.create("storageclasses", {
        "metadata": {"name": "standard",
                     "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }, manager="kubectl-client-side-apply")
    cluster_info = _cluster_info(cp_name, getattr(store, "ca_pem", ""))
    store.create("configmaps", {"metadata": {"name": "cluster-info", "namespace": "kube-public"},
                                "data": {"kubeconfig": cluster_info}}, namespace="kube-public", manager="kubeadm")


def _kube_proxy_config() -> str:
    return ("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nbindAddress: 0.0.0.0\nclientConnection:\n"
            "  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf\nclusterCIDR: 10.244.0.0/16\nconntrack:\n"
            "  maxPerCore: 0\nkind: KubeProxyConfiguration\nmetricsBindAddress: \"\"\nmode: iptables\n")


def _kube_proxy_kubeconfig(cp_name: str) -> str:
    return ("apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n"
            "    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt\n"
            f"    server: https://{cp_name}:6443\n  name: default\ncontexts:\n- context:\n    cluster: default\n"
            "    namespace: default\n    user: default\n  name: default\ncurrent-context: default\nusers:\n"
            "- name: default\n  user:\n    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token\n")


def _cluster_configuration(cp_name: str) -> str:
    return ("apiServer:\n  certSANs:\n  - localhost\n  - 127.0.0.1\n  extraArgs:\n  - name: runtime-config\n"
            "    value: \"\"\napiVersion: kubeadm.k8s.io/v1beta4\ncaCertificateValidityPeriod: 87600h0m0s\n"
            "certificateValidityPeriod: 8760h0m0s\ncertificatesDir: /etc/kubernetes/pki\n"
            f"clusterName: {CLUSTER_NAME}\ncontrolPlaneEndpoint: {cp_name}:6443\ncontrollerManager:\n  extraArgs:\n"
            "  - name: enable-hostpath-provisioner\n    value: \"true\"\ndns: {}\nencryptionAlgorithm: RSA-2048\n"
            "etcd:\n  local:\n    dataDir: /var/lib/etcd\nimageRepository: registry.k8s.io\n"
            "kind: ClusterConfiguration\n"
            f"kubernetesVersion: {KUBE_VERSION}\nnetworking:\n  dnsDomain: cluster.local\n  podSubnet: 10.244.0.0/16\n"
            "  serviceSubnet: 10.96.0.0/16\nproxy: {}\nscheduler: {}\n")


def _cluster_info(cp_name: str, ca_pem: str) -> str:
    import base64

    ca = base64.b64encode(ca_pem.encode()).decode()
    return (f"apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: {ca}\n"
            f"    server: https://{cp_name}:6443\n  name: \"\"\ncontexts: null\ncurrent-context: \"\"\nkind: Config\n"
            "users: null\n")


_READ = ["get", "list", "watch"]
_WRITE = ["create", "delete", "deletecollection", "patch", "update"]
_WORKLOADS = {"": ["pods", "pods/log", "pods/status", "services", "endpoints", "configmaps", "events",
                   "persistentvolumeclaims", "replicationcontrollers", "serviceaccounts", "resourcequotas",
                   "limitranges", "namespaces"],
              "apps": ["deployments", "deployments/scale", "replicasets", "replicasets/scale", "statefulsets",
                       "statefulsets/scale", "daemonsets", "controllerrevisions"],
              "batch": ["jobs", "cronjobs"], "policy": ["poddisruptionbudgets"],
              "discovery.k8s.io": ["endpointslices"], "networking.k8s.io": ["networkpolicies", "ingresses"]}


def _rbac(store: Store) -> None:
    """The default ClusterRoles users bind to (trimmed rule lists) and the admin binding kubeadm makes."""
    boot = {"kubernetes.io/bootstrapping": "rbac-defaults"}
    annotations = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
    view = [{"apiGroups": [g], "resources": rs, "verbs": _READ} for g, rs in _WORKLOADS.items()]
    edit = [{"apiGroups": [g], "resources": rs + (["secrets"] if g == "" else []), "verbs": _READ + _WRITE}
            for g, rs in _WORKLOADS.items()]
    roles = {
        "cluster-admin": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                          {"nonResourceURLs": ["*"], "verbs": ["*"]}],
        "admin": edit + [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"],
                          "verbs": _READ + _WRITE}],
        "edit": edit,
        "view": view,
    }
    for name, rules in roles.items():
        labels = dict(boot)
        if name == "edit":
            labels["rbac.authorization.k8s.io/aggregate-to-admin"] = "true"
        elif name == "view":
            labels["rbac.authorization.k8s.io/aggregate-to-edit"] = "true"
        store.create("clusterroles", {"metadata": {"name": name, "labels": labels, "annotations": annotations},
                                      "rules": rules}, manager="kube-apiserver")
    store.create("clusterrolebindings", {
        "metadata": {"name": "kubeadm:cluster-admins"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "kubeadm:cluster-admins"}],
    }, manager="kubeadm")
