"""End to end: the real kubectl 1.36 against the embedded API server, for server-side apply, strategic merge
patches and selectors (the pure modules' behaviour as a user sees it)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from .conftest import RunningSim

NS = "mechanics"

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: mechanics
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: main
        image: busybox:1.36
"""


def k(sim: RunningSim, *args: str) -> subprocess.CompletedProcess[str]:
    return sim.kubectl(*args, check=False)


def _ns(sim: RunningSim) -> None:
    k(sim, "create", "namespace", NS)


def _get(sim: RunningSim, name: str) -> dict[str, Any]:
    return json.loads(k(sim, "get", "deploy", name, "-n", NS, "-o", "json", "--show-managed-fields").stdout)


def test_server_side_apply_conflict_and_force(sim: RunningSim, tmp_path: Path) -> None:
    _ns(sim)
    m = tmp_path / "d.yaml"
    m.write_text(DEPLOY.format(name="ssa-conflict", replicas=1))
    assert k(sim, "create", "-f", str(m)).returncode == 0
    m.write_text(DEPLOY.format(name="ssa-conflict", replicas=3))
    r = k(sim, "apply", "--server-side", "-f", str(m))
    assert r.returncode != 0
    assert 'Apply failed with 1 conflict: conflict with "kubectl-create" using apps/v1: .spec.replicas' in r.stderr
    r = k(sim, "apply", "--server-side", "--force-conflicts", "-f", str(m))
    assert r.returncode == 0, r.stderr
    dep = _get(sim, "ssa-conflict")
    assert dep["spec"]["replicas"] == 3
    by = {e["manager"]: e for e in dep["metadata"]["managedFields"]}
    assert "f:replicas" in by["kubectl"]["fieldsV1"]["f:spec"]
    assert "f:replicas" not in by["kubectl-create"]["fieldsV1"]["f:spec"]


def test_server_side_apply_removes_what_it_stopped_applying(sim: RunningSim, tmp_path: Path) -> None:
    _ns(sim)
    m = tmp_path / "d.yaml"
    text = DEPLOY.format(name="ssa-prune", replicas=1)
    with_label = text.replace("  namespace: mechanics\n", "  namespace: mechanics\n  labels: {team: a}\n", 1)
    m.write_text(with_label)
    assert k(sim, "apply", "--server-side", "-f", str(m)).returncode == 0
    assert _get(sim, "ssa-prune")["metadata"]["labels"] == {"team": "a"}
    m.write_text(text)
    assert k(sim, "apply", "--server-side", "-f", str(m)).returncode == 0
    assert "labels" not in _get(sim, "ssa-prune")["metadata"]


def test_kubectl_set_image_and_label_through_strategic_merge(sim: RunningSim, tmp_path: Path) -> None:
    _ns(sim)
    m = tmp_path / "d.yaml"
    m.write_text(DEPLOY.format(name="smp", replicas=1))
    assert k(sim, "create", "-f", str(m)).returncode == 0
    assert k(sim, "set", "image", "deploy/smp", "main=busybox:1.37", "-n", NS).returncode == 0
    assert k(sim, "label", "deploy/smp", "tier=back", "-n", NS).returncode == 0
    assert k(sim, "label", "deploy/smp", "tier-", "-n", NS).returncode == 0
    dep = _get(sim, "smp")
    assert dep["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.37"
    assert "tier" not in (dep["metadata"].get("labels") or {})


def test_selector_errors_are_the_api_servers(sim: RunningSim) -> None:
    r = k(sim, "get", "pods", "-A", "-l", "app in web")
    assert r.returncode != 0
    assert "unable to parse requirement: found 'web' expected: '('" in r.stderr
    r = k(sim, "get", "pods", "-A", "--field-selector", "spec.image=busybox")
    assert r.returncode != 0
    assert "field label not supported: spec.image" in r.stderr
