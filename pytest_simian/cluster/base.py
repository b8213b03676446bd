"""The contract every cluster backend fulfils: a :class:`ClusterBackend` starts a :class:`ClusterHandle`.

Why: the plugin, the executor and the subject runner must not care which cluster they are on. A backend is
named by `--simian-cluster`, registered through the `pytest_simian_cluster_backends` hook (the built-in
ones, `sim` and `current`, too), checked at configure time, started when the first attempt needs it, and
asked before any write whether a rendered fault can be represented on its cluster (`not_valid`: the one
NOT VALID path). Everyone else gets the handle and asks it for kubeconfigs, identity and (on `sim`) the
clock.
Must not: score, or know what a fault kind means (a bundle is plain objects; `not_valid` reads them).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pytest_simian.bundle import Bundle
from pytest_simian.pack.models import Scenario


@dataclass(frozen=True)
class ClusterIdentity:
    """What run.json and the scorecard say about the cluster a run used."""

    backend: str
    """The backend's name (`sim`, `current`, ...)."""
    description: str
    """Human words for the scorecard, e.g. ``embedded cluster (Kubernetes v1.36.0)``."""
    server: str = ""
    """API server URL."""
    context: str = ""
    """kubeconfig context name (real clusters)."""
    kubernetes_version: str = ""
    """`gitVersion` the server reports on /version."""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "description": self.description,
            "server": self.server,
            "context": self.context,
            "kubernetes_version": self.kubernetes_version,
            **({"extra": self.extra} if self.extra else {}),
        }


class ClusterClock(abc.ABC):
    """Harness-only handle on a cluster's clock. Only the embedded cluster has a virtual one."""

    @abc.abstractmethod
    def advance(self, seconds: float) -> None:
        """Move cluster time forward by `seconds` (the settle loop calls this between polls)."""

    @abc.abstractmethod
    def set_realtime(self, realtime: bool) -> None:
        """Let cluster time follow the host clock (True, while a subject investigates) or only move
        when advanced (False, while a fault settles)."""


class ClusterHandle(abc.ABC):
    """A running cluster the harness may use. Obtained from a backend; closed at session end."""

    identity: ClusterIdentity
    harness_kubeconfig: Path
    """A kubeconfig with the harness's own (all-powerful) credentials."""

    @property
    def clock(self) -> ClusterClock | None:
        """The virtual clock, or None where time is real (every real cluster)."""
        return None

    @abc.abstractmethod
    def subject_kubeconfig(self, attempt_id: str, directory: Path) -> Path:
        """Write a kubeconfig for one subject attempt into `directory` and return its path.

        The credentials are the attempt's own, read-only by default; cluster, context and user are
        named neutrally (`cluster`, `default`, `subject`).
        """

    def harness_client(self) -> Any:
        """The harness's raw-JSON client (:class:`pytest_simian.cluster.kube.Kube`) on this cluster. Only the
        executor uses it; it carries the harness's credentials and is never handed to a subject."""
        from pytest_simian.cluster.kube import Kube

        return Kube(self.harness_kubeconfig)

    def request_log(self) -> Path | None:
        """Path of the API request log (embedded cluster only)."""
        return None

    @abc.abstractmethod
    def close(self) -> None:
        """Release the cluster (stop the embedded one unless kept)."""


@dataclass(frozen=True)
class BackendSettings:
    """What the user said about the cluster (`--simian-context`, `--simian-keep`) and which worker asks."""

    context: str | None = None
    keep: bool = False
    worker: str = "main"


class ClusterBackend(abc.ABC):
    """A way to reach a cluster, named by `--simian-cluster`. Provide one through the
    `pytest_simian_cluster_backends` hook; the built-in ones are `sim` and `current`."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    """One line for `--help`: what the backend is and what it needs."""

    @classmethod
    def check_settings(cls, settings: BackendSettings) -> None:  # noqa: B027 - optional hook
        """Refuse settings this backend cannot use, at configure time (raise PackError)."""
        return None

    @classmethod
    @abc.abstractmethod
    def from_settings(cls, settings: BackendSettings) -> ClusterBackend:
        """The backend for one process (one pytest worker)."""

    @classmethod
    def target(cls, settings: BackendSettings) -> str:
        """What the run header says it will break (a real cluster must say so loudly)."""
        return f"the {cls.name} cluster"

    @abc.abstractmethod
    def start(self, run_dir: Path) -> ClusterHandle:
        """Start (or reach) the cluster; called once, when the first attempt needs it."""

    def not_valid(self, bundle: Bundle, scenario: Scenario) -> str | None:
        """Why this fault's bundle cannot be represented faithfully on this cluster, or None. Asked by the
        executor before anything of the scenario is written; the answer is recorded as `eval.not_valid`
        and the attempt is NOT VALID, not scored. The embedded cluster answers from its model; a real
        cluster from discovery."""
        return None
