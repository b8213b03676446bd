"""The ``current`` backend: a real cluster from the user's kubeconfig, only when its context is named.

Why: touching a real cluster must be an explicit choice (``--simian-context``), printed at the start. The
subject gets its own short-lived token (TokenRequest) for a ServiceAccount bound to the built-in ``view``
ClusterRole; the run creates that account and binding with neutral names and deletes them at the end.
Must not: use the kubeconfig's current context implicitly; copy the user's credentials into the run
directory (the harness kubeconfig lives in a private temporary directory removed on close).
"""

from __future__ import annotations

import base64
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from pytest_simian import kubeconfig
from pytest_simian.bundle import Bundle
from pytest_simian.errors import PackError
from pytest_simian.pack.models import Scenario

from .base import BackendSettings, ClusterBackend, ClusterHandle, ClusterIdentity
from .kube import KubeError

SUBJECT_NAMESPACE = "default"


class CurrentClusterError(RuntimeError):
    """The named context is missing or the cluster refused the set-up."""


def _kubectl() -> str:
    here = Path(sys.executable).parent / "kubectl"
    return str(here) if here.exists() else (shutil.which("kubectl") or "kubectl")


class CurrentHandle(ClusterHandle):
    def __init__(self, *, context: str, server: str, ca_pem: bytes | None, insecure: bool, private_dir: Path,
                 harness_kubeconfig: Path, api: Any, sa_name: str, version: str) -> None:
        self._ca_pem = ca_pem
        self._insecure = insecure
        self._private = private_dir
        self._api = api
        self._sa = sa_name
        self.server = server
        self.harness_kubeconfig = harness_kubeconfig
        self.identity = ClusterIdentity(backend="current", description=f"context {context} ({server})",
                                        server=server, context=context, kubernetes_version=version)

    def subject_kubeconfig(self, attempt_id: str, directory: Path) -> Path:
        from kubernetes import client

        core = client.CoreV1Api(self._api)
        tr = core.create_namespaced_service_account_token(
            self._sa, SUBJECT_NAMESPACE,
            client.AuthenticationV1TokenRequest(spec=client.V1TokenRequestSpec(audiences=[],
                                                                               expiration_seconds=3600)))
        return kubeconfig.write(directory / "kubeconfig", self.server, tr.status.token, ca_pem=self._ca_pem,
                                insecure=self._insecure)

    def close(self) -> None:
        from kubernetes import client
        from kubernetes.client.exceptions import ApiException

        for fn in (lambda: client.RbacAuthorizationV1Api(self._api).delete_cluster_role_binding(self._sa),
                   lambda: client.CoreV1Api(self._api).delete_namespaced_service_account(self._sa,
                                                                                          SUBJECT_NAMESPACE)):
            try:
                fn()
            except ApiException as e:
                if e.status != 404:
                    raise
        shutil.rmtree(self._private, ignore_errors=True)


class CurrentBackend(ClusterBackend):
    name = "current"
    summary = "a real cluster from your kubeconfig; needs --simian-context NAME (never the current context)"

    def __init__(self, *, context: str | None = None, kubeconfig_path: str | None = None) -> None:
        self.context = context
        self.kubeconfig_path = kubeconfig_path
        self._handle: CurrentHandle | None = None
        self._served: dict[tuple[str, str], bool] = {}
        self._client: Any = None

    @classmethod
    def check_settings(cls, settings: BackendSettings) -> None:
        if not settings.context:
            raise PackError("--simian-cluster=current needs --simian-context NAME (safe by default: name the "
                            "cluster you mean to break)")

    @classmethod
    def from_settings(cls, settings: BackendSettings) -> CurrentBackend:
        return cls(context=settings.context)

    @classmethod
    def target(cls, settings: BackendSettings) -> str:
        return f"REAL CLUSTER: kubeconfig context {settings.context!r}"

    def not_valid(self, bundle: Bundle, scenario: Scenario) -> str | None:
        """Kinds the cluster does not serve (a CRD that is not installed), from its discovery."""
        handle = self._handle
        if handle is None:
            return None
        if self._client is None:
            self._client = handle.harness_client()
        for obj in bundle.objects:
            key = (str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
            if key not in self._served:
                try:
                    self._client.for_kind(*key)
                    self._served[key] = True
                except KubeError as exc:
                    if not exc.not_found:
                        return None  # unknown: the executor's admission asks again and says why
                    self._served[key] = False
            if not self._served[key]:
                return (f"the cluster serves no {key[1]} in {key[0]} (is its CustomResourceDefinition or "
                        "controller installed?)")
        return None

    def start(self, run_dir: Path) -> CurrentHandle:
        if not self.context:
            raise CurrentClusterError("--simian-cluster=current needs --simian-context=<context>: the current "
                                      "context is never used implicitly")
        private = Path(tempfile.mkdtemp(prefix="simian-current-"))
        os.chmod(private, 0o700)
        cmd = [_kubectl(), "config", "view", "--minify", "--flatten", "--raw", "--context", self.context]
        env = dict(os.environ)
        if self.kubeconfig_path:
            env["KUBECONFIG"] = self.kubeconfig_path
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if out.returncode != 0:
            shutil.rmtree(private, ignore_errors=True)
            raise CurrentClusterError(f"context {self.context!r}: {out.stderr.strip()}")
        harness = private / "kubeconfig"
        fd = os.open(harness, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(out.stdout)
        doc = yaml.safe_load(out.stdout)
        cluster = doc["clusters"][0]["cluster"]
        server = cluster["server"]
        ca = base64.b64decode(cluster["certificate-authority-data"]) if cluster.get(
            "certificate-authority-data") else None
        print(f"simian: using context {self.context} at {server}", file=sys.stderr)

        from kubernetes import client, config

        api = config.new_client_from_config(config_file=str(harness))
        version = client.VersionApi(api).get_code().git_version
        sa = "reader-" + secrets.token_hex(3)
        client.CoreV1Api(api).create_namespaced_service_account(
            SUBJECT_NAMESPACE, {"metadata": {"name": sa}})
        client.RbacAuthorizationV1Api(api).create_cluster_role_binding({
            "metadata": {"name": sa},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": SUBJECT_NAMESPACE}],
        })
        self._handle = CurrentHandle(context=self.context, server=server, ca_pem=ca,
                                     insecure=bool(cluster.get("insecure-skip-tls-verify")), private_dir=private,
                                     harness_kubeconfig=harness, api=api, sa_name=sa, version=version)
        return self._handle
