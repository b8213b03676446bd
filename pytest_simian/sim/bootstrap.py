"""The objects a fresh cluster has before anyone touches it (what kubeadm and kind leave behind).

Why: a subject's first ``kubectl get ns`` or ``get nodes`` on the embedded cluster should look like a fresh kind
cluster: the four system namespaces, a Ready node, the ``kubernetes`` Service, the default StorageClass.
Must not: create anything that names a fault or a scenario.
"""

from __future__ import annotations

from .store import Store

NODE_NAME = "sim-control-plane"


def seed(store: Store, *, nodes: int = 1) -> None:
    for ns in ("default", "kube-node-lease", "kube-public", "kube-system"):
        store.create("namespaces", {"metadata": {"name": ns}}, manager="kube-apiserver")
    store.create("services", {
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"clusterIP": "10.96.0.1", "ports": [{"name": "https", "port": 443, "targetPort": 6443}]},
    }, manager="kube-apiserver")
    store.create("storageclasses", {
        "metadata": {"name": "standard",
                     "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }, manager="kubectl-client-side-apply")
    _rbac(store)
    for name in ("controller-manager", "etcd-0", "scheduler"):  # deprecated, still served by 1.36
        store.create("componentstatuses", {"metadata": {"name": name}, "conditions": [
            {"type": "Healthy", "status": "True", "message": "ok"}]}, manager="kube-apiserver")
    for i in range(nodes):
        name = NODE_NAME if i == 0 else f"sim-worker{'' if i == 1 else i}"
        n = store.create("nodes", node(store, name, control_plane=(i == 0), index=i), manager="kubelet")
        # the node's heartbeat Lease (`describe node` shows it); renewing it is the kubelet's business
        store.create("leases", {
            "metadata": {"name": name, "namespace": "kube-node-lease",
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name,
                                              "uid": n["metadata"]["uid"]}]},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": store.clock.now_micro()},
        }, manager="kubelet")


def node(store: Store, name: str, *, control_plane: bool, index: int) -> dict:  # type: ignore[type-arg]
    now = store.clock.now_str()
    labels = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    if control_plane:
        labels["node-role.kubernetes.io/control-plane"] = ""
    ip = f"172.18.0.{index + 2}"

    def cond(t: str, s: str, reason: str, msg: str) -> dict:  # type: ignore[type-arg]
        return {"type": t, "status": s, "lastHeartbeatTime": now, "lastTransitionTime": now, "reason": reason,
                "message": msg}

    return {
        "metadata": {"name": name, "labels": labels,
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"podCIDR": f"10.244.{index}.0/24", "podCIDRs": [f"10.244.{index}.0/24"],
                 "providerID": f"kind://docker/sim/{name}"},
        "status": {
            "capacity": {"cpu": "8", "ephemeral-storage": "102625208Ki", "hugepages-1Gi": "0",
                         "hugepages-2Mi": "0", "memory": "16315584Ki", "pods": "110"},
            "allocatable": {"cpu": "8", "ephemeral-storage": "102625208Ki", "hugepages-1Gi": "0",
                            "hugepages-2Mi": "0", "memory": "16315584Ki", "pods": "110"},
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                     "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": "0" * 32, "systemUUID": "00000000-0000-0000-0000-00000000000" + str(index),
                         "bootID": "00000000-0000-0000-0000-000000000000", "kernelVersion": "6.8.0",
                         "osImage": "Debian GNU/Linux 12 (bookworm)", "containerRuntimeVersion": "containerd://2.1.1",
                         "kubeletVersion": "v1.36.0", "kubeProxyVersion": "v1.36.0", "operatingSystem": "linux",
                         "architecture": "amd64"},
            "images": [],
        },
    }


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
