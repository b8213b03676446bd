"""The contract every cluster backend (`sim`, `current`, `kind`) fulfils.

Why: the plugin, the executor and the subject runner must not care which cluster they are on.
They get a :class:`ClusterHandle` and ask it for kubeconfigs, identity and (on `sim`) the clock.
Must not: know about packs, scenarios or scoring.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ClusterIdentity:
    """What run.json and the scorecard say about the cluster a run used."""

    backend: str
    """`sim`, `current` or `kind`."""
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
        """The virtual clock, or None where time is real (current, kind)."""
        return None

    @abc.abstractmethod
    def subject_kubeconfig(self, attempt_id: str, directory: Path) -> Path:
        """Write a kubeconfig for one subject attempt into `directory` and return its path.

        The credentials are the attempt's own, read-only by default; cluster, context and user are
        named neutrally (`cluster`, `default`, `subject`).
        """

    def request_log(self) -> Path | None:
        """Path of the API request log (embedded cluster only)."""
        return None

    @abc.abstractmethod
    def close(self) -> None:
        """Release the cluster (stop the embedded one unless kept)."""
