"""The kube-state engine, synthesize mode: born-broken bundles of ordinary Kubernetes objects.

Why: half of the fault space lives in the API server (an image that does not exist, a claim that will never
bind, a Service that selects nothing). Each kind renders a bundle from its `params` in the shape the
upstream fixture helpers render (container `app`, imagePullPolicy IfNotPresent, the only label `app=<name>`
on the pod template), declares its default Settle probes and the reason tokens it mechanically produces,
and hands the bundle to the executor, the one path onto the cluster. `params.deployments[]`,
`params.services[]`, `params.jobs[]` and `params.claims[]` transcribe the parity fixtures exactly; a kind
with no params renders a small default workload. `Manifests` takes a user's own born-broken objects.

Nothing we write names the fault: object names come from the scenario, our marks are `simian.chaos/managed`,
`simian.chaos/bundle`, `simian.chaos/fault-uid` and the `simian.chaos/expires-at` annotation, on the objects'
own metadata and never on pod templates (pods are what a subject inspects first); the field manager is
neutral. `check` refuses, before anything runs, a bundle whose names, labels or annotations name a fault
kind or a failure, mutate mode and node-tier kinds (their own issue), and probes kubectl could not run.
Must not: write to a cluster except through the executor, or import the subject side.
"""

from __future__ import annotations

import base64
import copy
import datetime as _dt
from collections.abc import Sequence
from typing import Any

from pytest_simian import clock
from pytest_simian.bundle import Bundle, Stage
from pytest_simian.engines.base import Engine
from pytest_simian.errors import PackError
from pytest_simian.kube_kinds import static_scope
from pytest_simian.pack.catalog import KindInfo
from pytest_simian.pack.durations import parse_duration
from pytest_simian.pack.models import FaultSpec, K8sProbe, LogsProbe, Scenario

ENGINE = "kube-state"

BASE_IMAGE = "busybox:1.36"
MISSING_IMAGE = "ghcr.io/go-steer/no-such-image:v0.0.0-does-not-exist"
"""Upstream's image that cannot be pulled: a real registry host, a repository that does not exist."""

DEFAULT_CRASH = ["sh", "-c", "echo 'starting'; sleep 2; echo 'exiting' >&2; exit 1"]
DEFAULT_IDLE = ["sh", "-c", "sleep 3600"]


# ============================================================================== rendering helpers


def _container(spec: dict[str, Any], default_name: str, default_command: list[str] | None) -> dict[str, Any]:
    c: dict[str, Any] = {"name": spec.get("container", default_name), "image": spec.get("image", BASE_IMAGE)}
    policy = spec.get("imagePullPolicy", "IfNotPresent")
    if policy is not None:  # an explicit null means "not set" (upstream's hand-written Job)
        c["imagePullPolicy"] = policy
    command = spec.get("command", default_command)
    if command is not None:
        c["command"] = list(command)
    for key in ("args", "env", "ports", "volumeMounts", "readinessProbe", "livenessProbe", "startupProbe",
                "workingDir", "securityContext"):
        if spec.get(key) is not None:
            c[key] = copy.deepcopy(spec[key])
    if spec.get("resources"):
        c["resources"] = copy.deepcopy(spec["resources"])
    return c


def deployment(ns: str, spec: dict[str, Any], *, default_command: list[str] | None = None) -> dict[str, Any]:
    """Upstream's `deployment` helper shape: labels only on the pod template, container `app`."""
    name = spec["name"]
    pod: dict[str, Any] = {"containers": [_container(spec, "app", default_command)]}
    for key in ("volumes", "nodeSelector", "tolerations", "affinity", "terminationGracePeriodSeconds"):
        if spec.get(key) is not None:
            pod[key] = copy.deepcopy(spec[key])
    labels = {"app": name, **(spec.get("podLabels") or {})}
    dspec: dict[str, Any] = {"replicas": int(spec.get("replicas", 1)),
                             "selector": {"matchLabels": {"app": name}},
                             "template": {"metadata": {"labels": labels}, "spec": pod}}
    for key in ("strategy", "progressDeadlineSeconds", "minReadySeconds", "revisionHistoryLimit"):
        if spec.get(key) is not None:
            dspec[key] = copy.deepcopy(spec[key])
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
            "spec": dspec}


def service(ns: str, spec: dict[str, Any]) -> dict[str, Any]:
    s: dict[str, Any] = {"selector": dict(spec.get("selector") or {"app": spec["name"]}),
                         "ports": copy.deepcopy(spec.get("ports") or [{"port": 80, "targetPort": 8080}])}
    if spec.get("type"):
        s["type"] = spec["type"]
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": spec["name"], "namespace": ns}, "spec": s}


def job(ns: str, spec: dict[str, Any]) -> dict[str, Any]:
    name = spec["name"]
    js: dict[str, Any] = {"backoffLimit": int(spec.get("backoffLimit", 1)), "template": {
        "metadata": {"labels": {"app": name}},
        "spec": {"restartPolicy": spec.get("restartPolicy", "Never"),
                 "containers": [_container(spec, "job", DEFAULT_CRASH)]}}}
    for key in ("activeDeadlineSeconds", "completions", "parallelism", "ttlSecondsAfterFinished"):
        if spec.get(key) is not None:
            js[key] = spec[key]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": ns}, "spec": js}


def claim(ns: str, spec: dict[str, Any]) -> dict[str, Any]:
    c: dict[str, Any] = {"accessModes": list(spec.get("accessModes") or ["ReadWriteOnce"]),
                         "resources": {"requests": {"storage": str(spec.get("storage", "1Gi"))}}}
    if "storageClassName" in spec:
        c["storageClassName"] = spec["storageClassName"]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": spec["name"], "namespace": ns},
            "spec": c}


def pdb(ns: str, spec: dict[str, Any]) -> dict[str, Any]:
    p: dict[str, Any] = {"selector": {"matchLabels": dict(spec.get("selector") or {"app": spec["name"]})}}
    if spec.get("maxUnavailable") is not None:
        p["maxUnavailable"] = spec["maxUnavailable"]
    else:
        p["minAvailable"] = spec.get("minAvailable", 1)
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": spec["name"], "namespace": ns}, "spec": p}


def tls_secret(ns: str, name: str, *, common_name: str, dns_names: list[str], expires_in: float,
               now: _dt.datetime | None = None) -> dict[str, Any]:
    """A real kubernetes.io/tls Secret: a self-signed certificate whose notAfter is `expires_in` from now."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = now or clock.wall_now()
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - _dt.timedelta(days=60))
               .not_valid_after(now + _dt.timedelta(seconds=expires_in)))
    if dns_names:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns_names]),
                                        critical=False)
    cert = builder.sign(key, hashes.SHA256())
    crt = cert.public_bytes(serialization.Encoding.PEM)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                            serialization.NoEncryption())
    return {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
            "metadata": {"name": name, "namespace": ns},
            "data": {"tls.crt": base64.b64encode(crt).decode(), "tls.key": base64.b64encode(pem).decode()}}


def _probe(**kw: Any) -> Any:
    if kw.get("type") == "logs":
        return LogsProbe.model_validate(kw)
    return K8sProbe.model_validate({"type": "k8s", **kw})


def _available(ns: str, d: dict[str, Any]) -> Any:
    return _probe(name=f"{d['metadata']['name']} to become available", resource="deployment", namespace=ns,
                  object=d["metadata"]["name"], jsonpath="{.status.availableReplicas}",
                  equals=str(d["spec"]["replicas"]))


def _selects(budget: dict[str, Any], d: dict[str, Any]) -> bool:
    """Whether a PodDisruptionBudget's matchLabels select a Deployment's pods."""
    want = (budget["spec"].get("selector") or {}).get("matchLabels") or {}
    labels = d["spec"]["template"]["metadata"].get("labels") or {}
    return bool(want) and all(labels.get(k) == v for k, v in want.items())


def _waiting(ns: str, d: dict[str, Any], reason: str) -> Any:
    return _probe(name=f"{d['metadata']['name']} pods to wait with {reason}", resource="pods", namespace=ns,
                  selector=f"app={d['metadata']['name']}",
                  jsonpath="{.items[*].status.containerStatuses[*].state.waiting.reason}", contains=reason)


# ============================================================================== kinds


KINDS: dict[str, KindInfo] = {k.name: k for k in (
    KindInfo("NoOp",
             "a healthy Deployment (and any Services), through the identical path",
             (),
             "the Deployment available", names_failure=False),
    KindInfo("ImagePullFailure",
             "a Deployment whose image does not exist",
             ("ErrImagePull", "ImagePullBackOff", "Failed", "BackOff"),
             "pods waiting with ImagePullBackOff"),
    KindInfo("ContainerExitLoop",
             "a Deployment whose container exits non-zero on start",
             ("CrashLoopBackOff", "Error", "BackOff"),
             "pods waiting with CrashLoopBackOff"),
    KindInfo("OOMKill",
             "a Deployment whose container outgrows its memory limit (anonymous memory, as upstream)",
             ("OOMKilled", "CrashLoopBackOff", "BackOff", "Error"),
             "containerStatuses containing OOMKilled"),
    KindInfo("Unschedulable",
             "a Deployment requesting more CPU than any node has",
             ("Unschedulable", "FailedScheduling", "Pending", "InsufficientCPU"),
             "pods Pending; PodScheduled reason Unschedulable"),
    KindInfo("JobFailure",
             "a Job whose container fails until its backoff limit",
             ("BackoffLimitExceeded", "Failed", "Error", "BackOff"),
             "the Job condition Failed"),
    KindInfo("SelectorMismatch",
             "a healthy Deployment and a Service whose selector matches none of its pods",
             (),
             "Deployment available; the EndpointSlice exists with no addresses"),
    KindInfo("UnboundVolume",
             "a claim naming a StorageClass that does not exist, and a Deployment mounting it",
             ("Pending", "ProvisioningFailed", "FailedScheduling", "Unbound", "UnboundImmediatePersistentVolumeClaims"),
             "claim Pending; pods Pending"),
    KindInfo("DependencyStall",
             "Running, Ready pods that poll `http://127.0.0.1:<port>` where nothing listens (upstream's "
             "mechanism: the refusal is written by busybox wget to the log, nothing in the spec names it), "
             "and a Service",
             ("ConnectionRefused",),
             "Deployment available; endpoints ready; a log line with `Connection refused`"),
    KindInfo("Cascade",
             "a crash-looping Deployment and the Service it takes down: root and symptom",
             ("CrashLoopBackOff", "Error", "BackOff"),
             "pods CrashLoopBackOff; endpoints not ready"),
    KindInfo("BadRollout",
             "a staged apply: a healthy revision (with `minReadySeconds: 10`) that becomes available, then a "
             "revision that crashes; the old pods keep serving while the rollout stalls",
             ("CrashLoopBackOff", "Error", "BackOff", "ProgressDeadlineExceeded"),
             "stage 1: available; then new pods CrashLoopBackOff and the old replicas still available"),
    KindInfo("PDBGridlock",
             "a Deployment and a PodDisruptionBudget that allows no disruption, reached as upstream's "
             "pdb-gridlock reaches it: a staged apply runs one replica more than requested (the budget allows "
             "a disruption, and counts them: `currentHealthy`), then the requested count, so "
             "`disruptionsAllowed` drops to 0",
             ("InsufficientPods",),
             "stage 1: available, the budget counts every replica; then available, the PDB allows 0 disruptions"),
    KindInfo("CertExpiry",
             "a Deployment mounting a real `kubernetes.io/tls` Secret (self-signed with `cryptography`) whose "
             "certificate expires in `params.tls.expires_in` (default 36h)",
             (),
             "the Secret holds a certificate; Deployment available"),
    KindInfo("MissingVolumeSource",
             "a Deployment with a volume from a ConfigMap that was never created (not an unbound claim)",
             ("FailedMount", "ContainerCreating"),
             "pods waiting with ContainerCreating; a FailedMount event"),
    KindInfo("Manifests",
             "the user's own born-broken objects; a namespaced object without a namespace gets the fault's; an "
             "object naming a namespace the scenario does not hold is refused",
             (),
             "the scenario's own (mandatory)", names_failure=False, takes_manifests=True, needs_probes=True),
)}


def _deployments(fault: FaultSpec, default: dict[str, Any]) -> list[dict[str, Any]]:
    ds = fault.params.get("deployments")
    if ds:
        return [dict(d) for d in ds]
    return [{**default, "name": fault.params.get("name", default.get("name", "web"))}]


def _extra(ns: str, params: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    return ([service(ns, s) for s in params.get("services") or []],
            [job(ns, j) for j in params.get("jobs") or []],
            [claim(ns, c) for c in params.get("claims") or []])


def render(fault: FaultSpec, *, now: _dt.datetime | None = None) -> Bundle:
    """The bundle for one fault. Pure apart from key generation for CertExpiry."""
    ns = fault.namespace
    p = fault.params
    kind = fault.kind
    services, jobs, claims = _extra(ns, p)
    objects: list[dict[str, Any]] = []
    probes: list[Any] = []
    stages: list[Stage] | None = None

    if kind == "NoOp":
        ds = [deployment(ns, d, default_command=DEFAULT_IDLE) for d in _deployments(fault, {"replicas": 1})]
        objects = claims + ds + services + jobs
        probes = [_available(ns, d) for d in ds]
    elif kind == "ImagePullFailure":
        ds = [deployment(ns, d) for d in _deployments(fault, {"replicas": 1, "image": MISSING_IMAGE})]
        objects = claims + ds + services + jobs
        probes = [_waiting(ns, d, "ImagePullBackOff") for d in ds]
    elif kind in ("ContainerExitLoop", "Cascade"):
        ds = [deployment(ns, d, default_command=DEFAULT_CRASH) for d in _deployments(fault, {"replicas": 1})]
        if kind == "Cascade" and not services:
            services = [service(ns, {"name": d["metadata"]["name"], "selector": {"app": d["metadata"]["name"]},
                                     "ports": [{"port": 80, "targetPort": 8080}]}) for d in ds]
        objects = claims + ds + services + jobs
        probes = [_waiting(ns, d, "CrashLoopBackOff") for d in ds]
        if kind == "Cascade":
            probes += [_probe(name=f"{s['metadata']['name']} endpoints to be not ready", resource="endpointslices",
                              namespace=ns, selector=f"kubernetes.io/service-name={s['metadata']['name']}",
                              jsonpath="{.items[*].endpoints[*].conditions.ready}", contains="false")
                       for s in services]
    elif kind == "OOMKill":
        default = {"replicas": 1, "command": ["sh", "-c", "echo 'warming cache'; head -c 400000000 /dev/zero | "
                                                            "tail -n 1; sleep 3600"],
                   "resources": {"requests": {"memory": "32Mi", "cpu": "10m"},
                                 "limits": {"memory": "64Mi", "cpu": "200m"}}}
        ds = [deployment(ns, d) for d in _deployments(fault, default)]
        objects = claims + ds + services + jobs
        probes = [_probe(name=f"{d['metadata']['name']} container to be killed for memory", resource="pods",
                         namespace=ns, selector=f"app={d['metadata']['name']}",
                         jsonpath="{.items[*].status.containerStatuses[*]}", contains="OOMKilled") for d in ds]
    elif kind == "Unschedulable":
        default = {"replicas": 1, "command": DEFAULT_IDLE, "resources": {"requests": {"cpu": "64"}}}
        ds = [deployment(ns, d, default_command=DEFAULT_IDLE) for d in _deployments(fault, default)]
        objects = claims + ds + services + jobs
        for d in ds:
            sel = f"app={d['metadata']['name']}"
            probes += [_probe(name=f"{d['metadata']['name']} pods to be Pending", resource="pods", namespace=ns,
                              selector=sel, jsonpath="{.items[*].status.phase}", contains="Pending"),
                       _probe(name=f"the scheduler to record why {d['metadata']['name']} waits", resource="pods",
                              namespace=ns, selector=sel, jsonpath="{.items[*].status.conditions[*].reason}",
                              contains="Unschedulable")]
    elif kind == "JobFailure":
        if not jobs:
            jobs = [job(ns, {"name": p.get("name", "nightly"), "command": DEFAULT_CRASH})]
        ds = [deployment(ns, d) for d in p.get("deployments") or []]
        objects = claims + ds + services + jobs
        probes = [_probe(name=f"{j['metadata']['name']} to fail", resource="job", namespace=ns,
                         object=j["metadata"]["name"], jsonpath="{.status.conditions[*].type}", contains="Failed")
                  for j in jobs]
    elif kind == "SelectorMismatch":
        ds = [deployment(ns, d, default_command=DEFAULT_IDLE) for d in _deployments(fault, {"replicas": 2})]
        if not services:
            services = [service(ns, {"name": d["metadata"]["name"],
                                     "selector": {"app": d["metadata"]["name"] + "-v2"}}) for d in ds]
        objects = claims + ds + services + jobs
        probes = [_available(ns, d) for d in ds]
        probes += [_probe(name=f"{s['metadata']['name']} to have no ready endpoints", resource="endpointslices",
                          namespace=ns, selector=f"kubernetes.io/service-name={s['metadata']['name']}",
                          jsonpath="{.items[*].endpoints[*].addresses[*]}", empty=True) for s in services]
    elif kind == "UnboundVolume":
        if not claims:
            claims = [claim(ns, {"name": p.get("claim", "data"), "storageClassName": p.get("storageClassName",
                                                                                           "fast-ssd-encrypted")})]
        cname = claims[0]["metadata"]["name"]
        default = {"replicas": 1, "command": DEFAULT_IDLE,
                   "volumeMounts": [{"name": "data", "mountPath": "/var/lib/data"}],
                   "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": cname}}]}
        ds = [deployment(ns, d, default_command=DEFAULT_IDLE) for d in _deployments(fault, default)]
        objects = claims + ds + services + jobs
        probes = [_probe(name=f"{c['metadata']['name']} to stay unbound", resource="pvc", namespace=ns,
                         object=c["metadata"]["name"], jsonpath="{.status.phase}", contains="Pending") for c in claims]
        probes += [_probe(name=f"{d['metadata']['name']} pods to be Pending on it", resource="pods", namespace=ns,
                          selector=f"app={d['metadata']['name']}", jsonpath="{.items[*].status.phase}",
                          contains="Pending") for d in ds]
    elif kind == "DependencyStall":
        port = int(p.get("port", 5432))
        name = p.get("name", "reconciler")
        default = {"replicas": 2, "command": [
            "sh", "-c", f"echo '{name} starting; reconcile interval 2s'; i=0; while true; do i=$((i+1)); "
            f"echo \"reconcile attempt $i\"; wget -q -T 3 -O /dev/null http://127.0.0.1:{port}/healthz || true; "
            "sleep 2; done"],
            "resources": {"requests": {"memory": "64Mi", "cpu": "10m"}, "limits": {"memory": "128Mi", "cpu": "200m"}}}
        ds = [deployment(ns, d) for d in _deployments(fault, {**default, "name": name})]
        if not services:
            services = [service(ns, {"name": d["metadata"]["name"], "ports": [{"port": 9102, "targetPort": 9102}]})
                        for d in ds]
        objects = claims + ds + services + jobs
        probes = [_available(ns, d) for d in ds]
        probes += [_probe(name=f"{s['metadata']['name']} to have ready endpoints", resource="endpointslices",
                          namespace=ns, selector=f"kubernetes.io/service-name={s['metadata']['name']}",
                          jsonpath="{.items[*].endpoints[*].conditions.ready}", contains="true") for s in services]
        probes += [_probe(type="logs", name=f"{d['metadata']['name']} to keep failing to reach its dependency",
                          namespace=ns, selector=f"app={d['metadata']['name']}", since="25s",
                          contains="Connection refused") for d in ds]
    elif kind == "BadRollout":
        # minReadySeconds: a crashing pod is Ready for the second it runs; it must not count as available,
        # or the rollout would progress through the brief windows and take the old pods down
        base = _deployments(fault, {"replicas": 3, "command": DEFAULT_IDLE, "minReadySeconds": 10})
        rollout = dict(p.get("rollout") or {"command": DEFAULT_CRASH})
        first = [deployment(ns, d, default_command=DEFAULT_IDLE) for d in base]
        second = [deployment(ns, {**d, **rollout}, default_command=DEFAULT_IDLE) for d in base]
        stages = [Stage(claims + first + services + jobs, [_available(ns, d) for d in first]), Stage(second)]
        for d in second:
            probes += [_waiting(ns, d, "CrashLoopBackOff"),
                       _probe(name=f"{d['metadata']['name']} old replicas to keep serving", resource="deployment",
                              namespace=ns, object=d["metadata"]["name"], jsonpath="{.status.availableReplicas}",
                              equals=str(d["spec"]["replicas"]))]
    elif kind == "PDBGridlock":
        # As upstream's pdb-gridlock: the workload first runs with one replica of headroom under its budget,
        # then scales to the requested count, so disruptionsAllowed *drops* to 0 (lookout's sentinel fires on
        # that transition; a budget born at 0 never fires it).
        specs = _deployments(fault, {"replicas": 2})
        ds = [deployment(ns, d, default_command=DEFAULT_IDLE) for d in specs]
        roomy = [deployment(ns, {**d, "replicas": int(d.get("replicas", 1)) + 1}, default_command=DEFAULT_IDLE)
                 for d in specs]
        pdbs = [pdb(ns, b) for b in p.get("pdbs") or []] or [
            pdb(ns, {"name": d["metadata"]["name"], "selector": {"app": d["metadata"]["name"]},
                     "minAvailable": d["spec"]["replicas"]}) for d in ds]
        counted = [_probe(name=f"{b['metadata']['name']} to count the replicas with headroom", resource="pdb",
                          namespace=ns, object=b["metadata"]["name"], jsonpath="{.status.currentHealthy}",
                          equals=str(sum(d["spec"]["replicas"] for d in roomy if _selects(b, d))))
                   for b in pdbs]
        stages = [Stage(claims + roomy + services + jobs + pdbs, [_available(ns, d) for d in roomy] + counted),
                  Stage(ds)]
        objects = claims + ds + services + jobs + pdbs
        probes = [_available(ns, d) for d in ds]
        probes += [_probe(name=f"{b['metadata']['name']} to allow no disruption", resource="pdb", namespace=ns,
                          object=b["metadata"]["name"], jsonpath="{.status.disruptionsAllowed}", equals="0")
                   for b in pdbs]
    elif kind == "CertExpiry":
        tls = dict(p.get("tls") or {})
        ds_specs = _deployments(fault, {"replicas": 1, "command": DEFAULT_IDLE})
        secret_name = tls.get("name", f"{ds_specs[0]['name']}-tls")
        for d in ds_specs:
            d.setdefault("volumeMounts", [{"name": "tls", "mountPath": "/etc/tls", "readOnly": True}])
            d.setdefault("volumes", [{"name": "tls", "secret": {"secretName": secret_name}}])
        ds = [deployment(ns, d, default_command=DEFAULT_IDLE) for d in ds_specs]
        cn = tls.get("common_name", f"{ds_specs[0]['name']}.{ns}.svc")
        secret = tls_secret(ns, secret_name, common_name=cn, dns_names=list(tls.get("dns_names") or [cn]),
                            expires_in=parse_duration(tls.get("expires_in", "36h")), now=now)
        objects = [secret] + claims + ds + services + jobs
        probes = [_probe(name=f"{secret_name} to hold a certificate", resource="secret", namespace=ns,
                         object=secret_name, jsonpath="{.type}", equals="kubernetes.io/tls")]
        probes += [_available(ns, d) for d in ds]
    elif kind == "MissingVolumeSource":
        ds_specs = _deployments(fault, {"replicas": 1, "command": DEFAULT_IDLE})
        cm = p.get("configMap", f"{ds_specs[0]['name']}-config")
        for d in ds_specs:
            d.setdefault("volumeMounts", [{"name": "config", "mountPath": "/etc/config"}])
            d.setdefault("volumes", [{"name": "config", "configMap": {"name": cm}}])
        ds = [deployment(ns, d, default_command=DEFAULT_IDLE) for d in ds_specs]
        objects = claims + ds + services + jobs
        probes = [_waiting(ns, d, "ContainerCreating") for d in ds]
        probes += [_probe(name=f"{cm} to be reported missing", resource="events", namespace=ns,
                          jsonpath="{.items[*].reason}", contains="FailedMount")]
    elif kind == "Manifests":
        for m in fault.manifests or []:
            obj = copy.deepcopy(m)
            meta = obj.setdefault("metadata", {})
            if isinstance(meta, dict) and "namespace" not in meta and _namespaced_guess(obj):
                meta["namespace"] = ns
            objects.append(obj)
    else:
        raise PackError(f"kube-state kind {kind!r} is not implemented")
    if stages is None:
        stages = [Stage(objects)]
    if fault.probes:
        probes = list(fault.probes)
    return Bundle(stages=stages, probes=probes, reasons=KINDS[kind].reasons)


def _namespaced_guess(obj: dict[str, Any]) -> bool:
    return static_scope(str(obj.get("apiVersion", "")), str(obj.get("kind", ""))) is not False


# ============================================================================== the engine


class KubeStateEngine(Engine):
    """The `kube-state` engine: born-broken bundles of ordinary Kubernetes objects (mode synthesize)."""

    name = ENGINE

    def catalog(self) -> Sequence[KindInfo]:
        return list(KINDS.values())

    def check(self, fault: FaultSpec, scenario: Scenario) -> None:
        if fault.mode != "synthesize":
            raise PackError(f"mode {fault.mode!r} is not implemented yet: the kube-state engine applies born-broken "
                            "bundles (mode synthesize); patching a running workload (mutate) comes with its own "
                            "issue, and a fault is never silently applied in another mode", field="mode")
        if fault.tier == "node":
            raise PackError("node-tier kube-state kinds are not implemented yet (they come with their own issue); "
                            "this engine applies namespace-tier bundles only", field="tier")

    def render(self, fault: FaultSpec) -> Bundle:
        return render(fault)
