"""Packs: scenario files with ground truth, as pydantic models.

Must not import pytest or kubernetes: a pack is data, loadable and checkable anywhere.
"""

from pytest_simian.pack.catalog import Catalog, KindInfo
from pytest_simian.pack.loader import LoadedPack, load_packs
from pytest_simian.pack.models import (
    ExpectedFinding,
    FaultSpec,
    Pack,
    Scenario,
)

__all__ = [
    "Catalog",
    "ExpectedFinding",
    "FaultSpec",
    "KindInfo",
    "LoadedPack",
    "Pack",
    "Scenario",
    "load_packs",
]
