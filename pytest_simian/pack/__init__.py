"""Packs: scenario files with ground truth, as pydantic models.

Must not import pytest or kubernetes: a pack is data, loadable and checkable anywhere.
"""

from pytest_simian.pack.loader import LoadedPack, load_packs
from pytest_simian.pack.models import (
    KUBE_STATE_FAULT_KINDS,
    ExpectedFinding,
    FaultSpec,
    Pack,
    Scenario,
)

__all__ = [
    "KUBE_STATE_FAULT_KINDS",
    "ExpectedFinding",
    "FaultSpec",
    "LoadedPack",
    "Pack",
    "Scenario",
    "load_packs",
]
