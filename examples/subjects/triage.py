#!/usr/bin/env python3
"""A small deterministic triage program: the reference subject for pytest-simian.

It reads the task (stdin, $SIMIAN_PROMPT or argv), finds the quoted namespace, looks at that
namespace with kubectl (the one on PATH, using $KUBECONFIG), and prints one HealthReport as the last
JSON object on stdout. It shows an agent builder the whole subject protocol in one file, and run
twice against the same cluster it prints the same report, which checks the harness's determinism.

It is written by the same team that writes the expectations, so it is a determinism check, not a
calibration: that it finds a fault says little about the pack. Standard library only; it imports
nothing from pytest_simian.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import os
import re
import subprocess
import sys
from typing import Any

RESOURCES = "pods,deployments,replicasets,services,endpointslices,jobs,pvc,pdb,events"
CERT_WARN_DAYS = 30
"""A kubernetes.io/tls certificate this close to its notAfter is a finding (lookout's health: 720h)."""
RANK = {"ok": 0, "info": 1, "warning": 2, "critical": 3}
LOG_PATTERNS = ("connection refused", "can't connect", "cannot connect", "could not connect")
MAX_LOG_PODS = 20
KUBECTL_TIMEOUT = 60

ACTIONS = {
    "CrashLoopBackOff": "Read the previous container's logs (kubectl logs --previous) and fix what makes it exit.",
    "OOMKilled": "Raise the container's memory limit or reduce its memory use.",
    "ImagePullBackOff": "Fix the image reference (name, tag, registry credentials).",
    "ErrImagePull": "Fix the image reference (name, tag, registry credentials).",
    "InvalidImageName": "Fix the image reference.",
    "CreateContainerConfigError": "Create the missing ConfigMap or Secret key the container references.",
    "InsufficientCPU": "Lower the CPU request or add node capacity.",
    "InsufficientMemory": "Lower the memory request or add node capacity.",
    "Unschedulable": "Read the scheduler's message and make a node eligible for the pod.",
    "BackoffLimitExceeded": "Read the failed Job pods' logs, fix the cause, and re-run the Job.",
    "NoEndpoints": "Make the Service's selector match ready pods (or fix the pods it selects).",
    "ProvisioningFailed": "Fix the claim's StorageClass or provision a matching PersistentVolume.",
    "Unbound": "Fix the claim's StorageClass or provision a matching PersistentVolume.",
    "DisruptionsBlocked": "Relax the PodDisruptionBudget or add replicas so a disruption is allowed.",
    "ProgressDeadlineExceeded": "Find why the new ReplicaSet's pods do not become ready; roll back if needed.",
    "FailedMount": "Create the missing volume source (ConfigMap, Secret or claim) the pod mounts.",
    "RolloutStalled": "Roll the Deployment back (kubectl rollout undo) and fix the new revision before re-shipping.",
    "CertificateExpiringSoon": "Renew the certificate and update the TLS Secret before it expires.",
    "CertificateExpired": "Renew the certificate and update the TLS Secret now.",
    "DependencyConnectionRefused": "Start or fix the dependency the workload connects to, or its address.",
}


def read_prompt(argv: list[str]) -> str:
    if len(argv) > 1:
        return " ".join(argv[1:])
    if os.environ.get("SIMIAN_PROMPT"):
        return os.environ["SIMIAN_PROMPT"]
    if not sys.stdin.isatty():
        return sys.stdin.read()
    return ""


def find_namespace(prompt: str) -> str | None:
    """The quoted name in the prompt (`"shop" namespace`); the only quoted DNS label otherwise."""
    label = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
    quoted = list(dict.fromkeys(re.findall(r"[\"\u201c\u201d'`](" + label + r")[\"\u201c\u201d'`]", prompt)))
    named = list(dict.fromkeys(re.findall(r"[\"\u201c\u201d'`](" + label + r")[\"\u201c\u201d'`]\s+namespace",
                                          prompt, flags=re.I)))
    if len(named) == 1:
        return named[0]
    if len(quoted) == 1:
        return quoted[0]
    return None


def kubectl(*args: str) -> str:
    proc = subprocess.run(["kubectl", *args], capture_output=True, text=True, timeout=KUBECTL_TIMEOUT)
    if proc.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()[:300]}")
    return proc.stdout


def finding(kind: str, name: str, ns: str, reason: str, severity: str, title: str, detail: str) -> dict[str, str]:
    return {"kind": kind, "resource_name": name, "namespace": ns, "reason": reason, "severity": severity,
            "title": title, "detail": detail}


def cond(obj: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def check_pods(pods: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    for pod in pods:
        name = pod["metadata"]["name"]
        status = pod.get("status") or {}
        statuses = (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or [])
        pod_findings = []
        for cs in statuses:
            c = cs.get("name", "?")
            state = cs.get("state") or {}
            waiting = state.get("waiting") or {}
            term = state.get("terminated") or {}
            last = (cs.get("lastState") or {}).get("terminated") or {}
            wreason = waiting.get("reason", "")
            exit_code = last.get("exitCode", term.get("exitCode", "?"))
            # Between two back-offs a crash-looping container is briefly running or terminated, not
            # waiting: restarts plus a non-zero exit say the same thing, so the report does not flicker.
            looping = wreason == "CrashLoopBackOff" or (
                not wreason and cs.get("restartCount", 0) >= 2 and (last.get("exitCode") or term.get("exitCode")))
            if "OOMKilled" in (last.get("reason"), term.get("reason")):
                pod_findings.append(finding(
                    "Pod", name, ns, "OOMKilled", "critical", f"Pod {name} container {c} was OOMKilled",
                    f"container {c} terminated with reason OOMKilled (exit code {exit_code}); "
                    "it exceeds its memory limit"))
            elif looping:
                pod_findings.append(finding(
                    "Pod", name, ns, "CrashLoopBackOff", "critical", f"Pod {name} container {c} is CrashLoopBackOff",
                    f"container {c} keeps exiting (exit code {exit_code}, reason "
                    f"{last.get('reason') or term.get('reason') or '?'})"))
            elif wreason in ("ImagePullBackOff", "ErrImagePull", "InvalidImageName"):
                # ErrImagePull and ImagePullBackOff alternate while the kubelet retries: one token for both.
                reason = "InvalidImageName" if wreason == "InvalidImageName" else "ImagePullBackOff"
                pod_findings.append(finding(
                    "Pod", name, ns, reason, "critical", f"Pod {name} container {c} cannot pull its image",
                    f"container {c} cannot pull image {cs.get('image') or '?'}"))
            elif wreason in ("CreateContainerConfigError", "CreateContainerError", "RunContainerError"):
                pod_findings.append(finding(
                    "Pod", name, ns, wreason, "critical", f"Pod {name} container {c} cannot start ({wreason})",
                    f"container {c}: {waiting.get('message', wreason)}"))
        if not pod_findings and status.get("phase") == "Pending":
            sched = cond(pod, "PodScheduled")
            if sched and sched.get("status") == "False" and sched.get("reason") == "Unschedulable":
                msg = sched.get("message", "")
                reason = ("InsufficientCPU" if "Insufficient cpu" in msg else
                          "InsufficientMemory" if "Insufficient memory" in msg else "Unschedulable")
                pod_findings.append(finding(
                    "Pod", name, ns, reason, "critical", f"Pod {name} is Pending: the scheduler cannot place it",
                    f"PodScheduled=False Unschedulable (FailedScheduling): {msg}"))
        if not pod_findings and status.get("phase") == "Failed" and status.get("reason") == "Evicted":
            pod_findings.append(finding("Pod", name, ns, "Evicted", "warning", f"Pod {name} was evicted",
                                        status.get("message", "Evicted")))
        out += pod_findings
    return out


def check_deployments(deps: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    for d in deps:
        c = cond(d, "Progressing")
        if c and c.get("status") == "False" and c.get("reason") == "ProgressDeadlineExceeded":
            name = d["metadata"]["name"]
            out.append(finding("Deployment", name, ns, "ProgressDeadlineExceeded", "warning",
                               f"Deployment {name} rollout is stalled", c.get("message", "")))
    return out


def revision(obj: dict[str, Any]) -> int:
    ann = (obj.get("metadata") or {}).get("annotations") or {}
    try:
        return int(ann.get("deployment.kubernetes.io/revision", "0"))
    except ValueError:
        return 0


def owned_by(obj: dict[str, Any], kind: str, name: str) -> bool:
    return any(o.get("kind") == kind and o.get("name") == name
               for o in (obj.get("metadata") or {}).get("ownerReferences") or [])


def failing(pod: dict[str, Any]) -> bool:
    """A pod whose containers keep restarting or cannot start."""
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        waiting = (cs.get("state") or {}).get("waiting") or {}
        if cs.get("restartCount", 0) >= 1 or waiting.get("reason") not in (None, "", "ContainerCreating"):
            return True
    return False


def check_rollouts(deps: list[dict[str, Any]], rss: list[dict[str, Any]], pods: list[dict[str, Any]],
                   ns: str) -> tuple[list[dict[str, str]], set[str]]:
    """A rollout whose new revision's pods fail while the previous revision keeps serving.

    Returns the findings and the names of the new revision's pods when the old revision still serves
    every replica: their failure costs no capacity, so the report grades them warning, not critical.
    """
    out: list[dict[str, str]] = []
    contained: set[str] = set()
    for d in deps:
        name = d["metadata"]["name"]
        owned = [rs for rs in rss if owned_by(rs, "Deployment", name)]
        if len(owned) < 2:
            continue
        newest = max(owned, key=revision)
        want = int((newest.get("spec") or {}).get("replicas") or 0)
        new_avail = int((newest.get("status") or {}).get("availableReplicas") or 0)
        old_avail = sum(int((rs.get("status") or {}).get("availableReplicas") or 0) for rs in owned if rs is not newest)
        if want == 0 or new_avail >= want or old_avail == 0:
            continue
        new_pods = [p for p in pods if owned_by(p, "ReplicaSet", newest["metadata"]["name"])]
        bad = sorted(p["metadata"]["name"] for p in new_pods if failing(p))
        if not bad:
            continue
        desired = int((d.get("spec") or {}).get("replicas") or 0)
        c = cond(d, "Progressing")
        if not (c and c.get("reason") == "ProgressDeadlineExceeded"):
            out.append(finding("Deployment", name, ns, "RolloutStalled", "warning",
                               f"Deployment {name} rollout is stalled on a failing revision",
                               f"new ReplicaSet {newest['metadata']['name']} (revision {revision(newest)}) has "
                               f"{new_avail}/{want} available and its pods are failing; the previous revision "
                               f"still serves {min(old_avail, desired)}/{desired}"))
        if old_avail >= desired:
            contained.update(bad)
    return out, contained


def _tlv(b: bytes, i: int) -> tuple[int, int, int]:
    """One DER element at i: (tag, content start, content end)."""
    tag, length = b[i], b[i + 1]
    i += 2
    if length & 0x80:
        n = length & 0x7F
        length = int.from_bytes(b[i:i + n], "big")
        i += n
    return tag, i, i + length


def not_after(der: bytes) -> dt.datetime:
    """An X.509 certificate's notAfter, read from its DER (tbsCertificate.validity)."""
    _, start, _ = _tlv(der, 0)
    _, i, end = _tlv(der, start)
    fields = []
    while i < end and len(fields) < 5:
        tag, s, e = _tlv(der, i)
        if not (tag == 0xA0 and not fields):  # the optional [0] version
            fields.append((tag, s, e))
        i = e
    _, vs, _ = fields[3]  # serial, signature, issuer, validity
    _, s, e = _tlv(der, _tlv(der, vs)[2])
    text = der[s:e].decode("ascii")
    fmt = "%y%m%d%H%M%SZ" if len(text) == 13 else "%Y%m%d%H%M%SZ"
    return dt.datetime.strptime(text, fmt).replace(tzinfo=dt.UTC)


def check_certificates(tls_secrets: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    now = dt.datetime.now(dt.UTC)
    for sec in tls_secrets:
        if sec.get("type") != "kubernetes.io/tls":
            continue
        name = sec["metadata"]["name"]
        try:
            pem = base64.b64decode((sec.get("data") or {}).get("tls.crt", "")).decode("ascii")
            m = re.search(r"-----BEGIN CERTIFICATE-----(.+?)-----END CERTIFICATE-----", pem, flags=re.S)
            if not m:
                continue
            expiry = not_after(base64.b64decode("".join(m.group(1).split())))
        except (ValueError, IndexError, binascii.Error, UnicodeDecodeError):
            continue
        stamp = expiry.strftime("%Y-%m-%dT%H:%M:%SZ")
        if expiry <= now:
            out.append(finding("Secret", name, ns, "CertificateExpired", "critical",
                               f"Secret {name} holds an expired certificate", f"tls.crt notAfter {stamp}"))
        elif expiry - now <= dt.timedelta(days=CERT_WARN_DAYS):
            out.append(finding("Secret", name, ns, "CertificateExpiringSoon", "warning",
                               f"Secret {name} holds a certificate that expires within {CERT_WARN_DAYS} days",
                               f"tls.crt notAfter {stamp}"))
    return out


def check_jobs(jobs: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    for j in jobs:
        c = cond(j, "Failed")
        if c and c.get("status") == "True":
            name = j["metadata"]["name"]
            reason = c.get("reason") or "JobFailed"
            out.append(finding("Job", name, ns, reason, "warning", f"Job {name} failed ({reason})",
                               c.get("message", "") or f"Failed condition reason {reason}"))
    return out


def check_services(services: list[dict[str, Any]], slices: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    by_service: dict[str, list[dict[str, Any]]] = {}
    for s in slices:
        svc = ((s.get("metadata") or {}).get("labels") or {}).get("kubernetes.io/service-name")
        if svc:
            by_service.setdefault(svc, []).append(s)
    for svc in services:
        spec = svc.get("spec") or {}
        if not spec.get("selector") or spec.get("type") == "ExternalName":
            continue
        name = svc["metadata"]["name"]
        endpoints = [e for s in by_service.get(name, []) for e in s.get("endpoints") or []]
        ready = [e for e in endpoints if (e.get("conditions") or {}).get("ready") is True]
        if not ready:
            sel = ",".join(f"{k}={v}" for k, v in sorted(spec["selector"].items()))
            what = "no endpoints" if not endpoints else f"{len(endpoints)} endpoint(s), none ready"
            out.append(finding("Service", name, ns, "NoEndpoints", "warning",
                               f"Service {name} has no ready endpoints",
                               f"selector {sel}: its EndpointSlices have {what}"))
    return out


def event_object(e: dict[str, Any]) -> dict[str, Any]:
    """core/v1 Events say `involvedObject`; events.k8s.io/v1 says `regarding`."""
    return e.get("involvedObject") or e.get("regarding") or {}


def event_message(e: dict[str, Any]) -> str:
    return str(e.get("message") or e.get("note") or "")


def check_pvcs(pvcs: list[dict[str, Any]], events: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    for p in pvcs:
        if (p.get("status") or {}).get("phase") != "Pending":
            continue
        name = p["metadata"]["name"]
        evs = [e for e in events if event_object(e).get("kind") == "PersistentVolumeClaim"
               and event_object(e).get("name") == name and e.get("reason") == "ProvisioningFailed"]
        if evs:
            msg = sorted(event_message(e) for e in evs)[0]
            out.append(finding("PersistentVolumeClaim", name, ns, "ProvisioningFailed", "critical",
                               f"PersistentVolumeClaim {name} cannot be provisioned", msg))
        else:
            sc = (p.get("spec") or {}).get("storageClassName") or "(default)"
            out.append(finding("PersistentVolumeClaim", name, ns, "Unbound", "critical",
                               f"PersistentVolumeClaim {name} is Pending (unbound)",
                               f"storageClassName {sc}; no PersistentVolume is bound to it"))
    return out


def check_pdbs(pdbs: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    for p in pdbs:
        st = p.get("status") or {}
        if st.get("expectedPods", 0) > 0 and st.get("disruptionsAllowed", 0) == 0 and \
                st.get("currentHealthy", 0) <= st.get("desiredHealthy", 0):
            name = p["metadata"]["name"]
            out.append(finding("PodDisruptionBudget", name, ns, "DisruptionsBlocked", "warning",
                               f"PodDisruptionBudget {name} allows no disruptions",
                               f"disruptionsAllowed 0: currentHealthy {st.get('currentHealthy', 0)}, "
                               f"desiredHealthy {st.get('desiredHealthy', 0)}; a node drain would block"))
    return out


def check_events(events: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    seen = set()
    for e in sorted(events, key=lambda e: (event_object(e).get("name", ""), event_message(e))):
        if e.get("reason") != "FailedMount":
            continue
        obj = event_object(e)
        name = obj.get("name", "")
        if (obj.get("kind"), name) in seen:
            continue
        seen.add((obj.get("kind"), name))
        msg = event_message(e)
        out.append(finding(obj.get("kind") or "Pod", name, ns, "FailedMount", "critical",
                           f"{obj.get('kind') or 'Pod'} {name} cannot mount a volume", msg))
        m = re.search(r'(configmap|secret)s? "([^"]+)" not found', msg, flags=re.I)
        if m:
            kind = "ConfigMap" if m.group(1).lower() == "configmap" else "Secret"
            key = (kind, m.group(2))
            if key not in seen:
                seen.add(key)
                out.append(finding(kind, m.group(2), ns, "FailedMount", "critical",
                                   f"{kind} {m.group(2)} is missing", f"mounted by {name}: {msg}"))
    return out


def check_logs(pods: list[dict[str, Any]], ns: str) -> list[dict[str, str]]:
    out = []
    running = [p for p in pods if (p.get("status") or {}).get("phase") == "Running"]
    for pod in sorted(running, key=lambda p: p["metadata"]["name"])[:MAX_LOG_PODS]:
        name = pod["metadata"]["name"]
        for c in sorted(cs.get("name", "") for cs in (pod.get("status") or {}).get("containerStatuses") or []):
            try:
                text = kubectl("logs", name, "-n", ns, "-c", c, "--tail=200")
            except (RuntimeError, subprocess.TimeoutExpired):
                continue
            lines = [ln for ln in text.splitlines() if any(p in ln.lower() for p in LOG_PATTERNS)]
            if lines:
                out.append(finding("Pod", name, ns, "DependencyConnectionRefused", "critical",
                                   f"Pod {name} container {c} cannot reach a dependency",
                                   f"log: {lines[-1].strip()[:300]}"))
                break
    return out


def secrets(ns: str) -> list[dict[str, Any]]:
    """TLS Secrets, read apart: a subject without read access to Secrets still reports the rest."""
    try:
        doc = json.loads(kubectl("get", "secrets", "-n", ns, "-o", "json"))
    except (RuntimeError, subprocess.TimeoutExpired, ValueError):
        return []
    return sorted(doc.get("items") or [], key=lambda o: (o.get("metadata") or {}).get("name", ""))


def triage(ns: str) -> dict[str, Any]:
    items = json.loads(kubectl("get", RESOURCES, "-n", ns, "-o", "json")).get("items") or []
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for it in items:
        by_kind.setdefault(it.get("kind", ""), []).append(it)
    for objs in by_kind.values():
        objs.sort(key=lambda o: (o.get("metadata") or {}).get("name", ""))
    pods = by_kind.get("Pod", [])
    events = by_kind.get("Event", [])
    rollouts, contained = check_rollouts(by_kind.get("Deployment", []), by_kind.get("ReplicaSet", []), pods, ns)
    pod_findings = [dict(f, severity="warning", detail=f["detail"] + "; the previous revision still serves every "
                         "replica") if f["kind"] == "Pod" and f["resource_name"] in contained else f
                    for f in check_pods(pods, ns)]
    findings = (pod_findings + check_deployments(by_kind.get("Deployment", []), ns) + rollouts
                + check_jobs(by_kind.get("Job", []), ns)
                + check_services(by_kind.get("Service", []), by_kind.get("EndpointSlice", []), ns)
                + check_pvcs(by_kind.get("PersistentVolumeClaim", []), events, ns)
                + check_pdbs(by_kind.get("PodDisruptionBudget", []), ns)
                + check_events(events, ns) + check_certificates(secrets(ns), ns) + check_logs(pods, ns))
    unique = {(f["kind"], f["resource_name"], f["reason"]): f for f in findings}
    findings = sorted(unique.values(), key=lambda f: (-RANK[f["severity"]], f["kind"], f["resource_name"],
                                                       f["reason"]))
    overall = max((f["severity"] for f in findings), key=lambda s: RANK[s], default="ok")
    if findings:
        summary = f"{overall.upper()}: {findings[0]['title']} ({len(findings)} finding(s) in namespace {ns})"
    else:
        summary = f"OK: nothing wrong found in namespace {ns}"
    actions = list(dict.fromkeys(ACTIONS[f["reason"]] for f in findings if f["reason"] in ACTIONS))
    return {"overall_severity": overall, "summary": summary, "findings": findings, "recommended_actions": actions}


def main(argv: list[str]) -> int:
    prompt = read_prompt(argv)
    ns = find_namespace(prompt)
    if ns is None:
        print("triage: the prompt names no namespace (expected a quoted name)", file=sys.stderr)
        return 2
    print(f"triage: inspecting namespace {ns}", file=sys.stderr)
    try:
        report = triage(ns)
    except (RuntimeError, ValueError, subprocess.TimeoutExpired, FileNotFoundError) as exc:
        print(f"triage: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
