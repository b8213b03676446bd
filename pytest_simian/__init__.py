"""pytest-simian: fault scenarios as pytest items.

The public API is what an extender imports from here: the base classes of the three things a plugin can
add (a subject scheme, a fault engine, a cluster backend), the models they are handed (scenario, fault,
probe, bundle, kind), and the error tree. Everything under a submodule is private by convention and may
change between releases; tests/foundation/test_public_api.py pins these names. Names resolve lazily, so
`import pytest_simian` costs nothing until one is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # subjects
    "Subject": "pytest_simian.subjects.base",
    "SubjectContext": "pytest_simian.subjects.base",
    "SubjectResult": "pytest_simian.subjects.base",
    # engines and what they render
    "Engine": "pytest_simian.engines.base",
    "KindInfo": "pytest_simian.pack.catalog",
    "Bundle": "pytest_simian.bundle",
    "Stage": "pytest_simian.bundle",
    # cluster backends
    "ClusterBackend": "pytest_simian.cluster.base",
    "BackendSettings": "pytest_simian.cluster.base",
    "ClusterHandle": "pytest_simian.cluster.base",
    "ClusterIdentity": "pytest_simian.cluster.base",
    "ClusterClock": "pytest_simian.cluster.base",
    # the pack models an extender is handed
    "Scenario": "pytest_simian.pack.models",
    "FaultSpec": "pytest_simian.pack.models",
    "ExpectedFinding": "pytest_simian.pack.models",
    "K8sProbe": "pytest_simian.pack.models",
    "LogsProbe": "pytest_simian.pack.models",
    "HttpProbe": "pytest_simian.pack.models",
    # errors
    "SimianError": "pytest_simian.errors",
    "PackError": "pytest_simian.errors",
    "NotValidOnCluster": "pytest_simian.errors",
    "InjectError": "pytest_simian.errors",
    "HarnessError": "pytest_simian.errors",
    "ClearError": "pytest_simian.errors",
    "SubjectError": "pytest_simian.errors",
}

__all__ = [
    "__version__",
    "BackendSettings",
    "Bundle",
    "ClearError",
    "ClusterBackend",
    "ClusterClock",
    "ClusterHandle",
    "ClusterIdentity",
    "Engine",
    "ExpectedFinding",
    "FaultSpec",
    "HarnessError",
    "HttpProbe",
    "InjectError",
    "K8sProbe",
    "KindInfo",
    "LogsProbe",
    "NotValidOnCluster",
    "PackError",
    "Scenario",
    "SimianError",
    "Stage",
    "Subject",
    "SubjectContext",
    "SubjectError",
    "SubjectResult",
]

if TYPE_CHECKING:
    from pytest_simian.bundle import Bundle, Stage
    from pytest_simian.cluster.base import (
        BackendSettings,
        ClusterBackend,
        ClusterClock,
        ClusterHandle,
        ClusterIdentity,
    )
    from pytest_simian.engines.base import Engine
    from pytest_simian.errors import (
        ClearError,
        HarnessError,
        InjectError,
        NotValidOnCluster,
        PackError,
        SimianError,
        SubjectError,
    )
    from pytest_simian.pack.catalog import KindInfo
    from pytest_simian.pack.models import ExpectedFinding, FaultSpec, HttpProbe, K8sProbe, LogsProbe, Scenario
    from pytest_simian.subjects.base import Subject, SubjectContext, SubjectResult


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_simian' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
