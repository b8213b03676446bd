"""One process's cluster: the configured backend, started on first need, closed at the end.

Why: a worker that never reaches an attempt must not start a cluster, and one that does must start
exactly one and say so in the audit log (`cluster.started`, the identity run.json and the scorecard show).
Must not: know about scenarios or faults.
"""

from __future__ import annotations

import threading
from pathlib import Path

from pytest_simian.record.audit import AuditLog
from pytest_simian.record.events import CLUSTER_STARTED

from .base import ClusterBackend, ClusterHandle


class ClusterManager:
    """Starts the cluster on first need (once per process) and closes it at the end."""

    def __init__(self, backend: ClusterBackend, run_dir: Path, audit: AuditLog) -> None:
        self.backend = backend
        self.run_dir = run_dir
        self.audit = audit
        self.handle: ClusterHandle | None = None
        self._lock = threading.Lock()

    def get(self) -> ClusterHandle:
        with self._lock:
            if self.handle is None:
                self.handle = self.backend.start(self.run_dir)
                self.audit.emit(CLUSTER_STARTED, payload=self.handle.identity.to_json())
            return self.handle

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None
