"""Backend factory: ``make_backend("sim" | "current", **options)``.

Why: the plugin names a backend by the ``--simian-cluster`` string and must not import each backend itself.
Must not: start anything (``backend.start(run_dir)`` does, when the first scenario needs a cluster).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from .base import ClusterHandle


class ClusterBackend(Protocol):
    name: str

    def start(self, run_dir: Path) -> ClusterHandle: ...


def make_backend(name: str, **options: Any) -> ClusterBackend:
    """``sim`` options: ``keep``, ``worker``, ``nodes``, ``port``, ``controllers``. ``current`` options: ``context``,
    ``kubeconfig_path``."""
    if name == "sim":
        from .sim import SimBackend

        return SimBackend(**options)
    if name == "current":
        from .current import CurrentBackend

        return CurrentBackend(**options)
    raise ValueError(f"unknown cluster backend {name!r} (known: sim, current)")
