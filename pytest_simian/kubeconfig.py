"""Writing kubeconfig files (harness and per-attempt subject) for a cluster reached by token.

Why: the cluster backends and the standalone embedded cluster (``python -m pytest_simian.sim``) hand out
token kubeconfigs with neutral names
(``cluster``/``default``/``subject``) so a subject learns nothing about the harness from its credentials.
Must not: write into a directory it was not given; copy credentials from another kubeconfig.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import yaml


def render(server: str, token: str, *, ca_pem: bytes | None = None, cluster: str = "cluster",
           context: str = "default", user: str = "subject", namespace: str | None = None,
           insecure: bool = False) -> str:
    c: dict[str, object] = {"server": server}
    if ca_pem:
        c["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    if insecure:
        c["insecure-skip-tls-verify"] = True
    ctx: dict[str, object] = {"cluster": cluster, "user": user}
    if namespace:
        ctx["namespace"] = namespace
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster, "cluster": c}],
        "contexts": [{"name": context, "context": ctx}],
        "current-context": context,
        "users": [{"name": user, "user": {"token": token}}],
        "preferences": {},
    }
    return yaml.safe_dump(doc, sort_keys=False)


def write(path: Path, server: str, token: str, **kw: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(render(server, token, **kw))  # type: ignore[arg-type]
    return path


def subject_env(kubeconfig_path: Path) -> dict[str, str]:
    """Environment for a subject using ``kubeconfig_path``: its own kubectl cache beside the kubeconfig, so no
    discovery or HTTP cache is shared between attempts (kubectl caches per host and port)."""
    cache = kubeconfig_path.parent / ".kube" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    return {"KUBECONFIG": str(kubeconfig_path), "KUBECACHEDIR": str(cache)}
