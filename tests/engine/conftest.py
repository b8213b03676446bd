"""Fixtures for the engine tests: one embedded cluster per test module, an audit log per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_simian.record.audit import AuditLog
from tests.engine.harness import start_sim


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A running embedded cluster (API server, controllers, simulated kubelet)."""
    yield from start_sim(tmp_path_factory.mktemp("sim"))


@pytest.fixture(scope="module")
def kube(sim: Any) -> Iterator[Any]:
    from pytest_simian.cluster.kube import Kube

    k = Kube(sim.harness_kubeconfig)
    yield k
    k.close()


@pytest.fixture
def audit(tmp_path: Path) -> Iterator[AuditLog]:
    log = AuditLog(tmp_path / "audit.jsonl")
    yield log
    log.close()
