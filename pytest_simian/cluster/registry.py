"""The built-in backends, and ``make_backend(name, **options)`` for code that names one directly.

Why: the plugin reaches every backend, built-in or not, through the `pytest_simian_cluster_backends` hook;
benchmarks and tests that start a cluster without pytest name one here.
Must not: start anything (``backend.start(run_dir)`` does, when the first scenario needs a cluster).
"""

from __future__ import annotations

from typing import Any

from .base import ClusterBackend
from .current import CurrentBackend
from .sim import SimBackend

BUILTIN_BACKENDS: tuple[type[ClusterBackend], ...] = (SimBackend, CurrentBackend)


def make_backend(name: str, **options: Any) -> ClusterBackend:
    """``sim`` options: ``keep``, ``worker``, ``nodes``, ``port``, ``controllers``. ``current`` options: ``context``,
    ``kubeconfig_path``."""
    for cls in BUILTIN_BACKENDS:
        if cls.name == name:
            return cls(**options)
    raise ValueError(f"unknown cluster backend {name!r} (known: {', '.join(c.name for c in BUILTIN_BACKENDS)})")
