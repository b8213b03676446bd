"""Test helpers for the engine tests: an attempt context without the lifecycle, a started embedded cluster.

Why: the executor, probes, leases and arena are exercised directly (the lifecycle is tested in
tests/foundation); this builds the executor the lifecycle would hold and the AttemptRef it would hand it,
on a real embedded cluster.
Must not: be imported outside tests/engine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_simian import clock
from pytest_simian.cluster.base import ClusterBackend, ClusterHandle
from pytest_simian.engines.kube_state import KubeStateEngine
from pytest_simian.executor import AttemptRef, Executor, ExecutorConfig
from pytest_simian.pack.models import Scenario
from pytest_simian.record.audit import AuditLog

PROMPT = 'Assess the health of the "{ns}" namespace in this Kubernetes cluster and report what you find.'


def scenario(faults: list[dict[str, Any]], *, expect: list[dict[str, Any]] | None = None, sid: str = "s1",
             prompt_ns: str | None = None, settle: str = "5m") -> Scenario:
    ns = prompt_ns or faults[0]["namespace"]
    if expect is None:
        expect = [{"kind": "Pod", "name": "x", "reasons": ["Something"]}]
    return Scenario.model_validate({"id": sid, "prompt": PROMPT.format(ns=ns), "faults": faults,
                                    "expect": expect, "severity": "ok" if not expect else "critical",
                                    "settle_timeout": settle})


def context(sc: Scenario, audit: AuditLog | None = None, handle: Any = None, *, attempt_id: str = "a000000000001",
            settle_seconds: float = 120.0, lines: list[str] | None = None) -> AttemptRef:
    """The AttemptRef the lifecycle would hand the executor (`audit` and `handle` are the executor's)."""
    return AttemptRef(attempt_id=attempt_id, scenario=sc, settle_deadline=clock.monotonic() + settle_seconds,
                      progress=(lines.append if lines is not None else (lambda _l: None)))


class FixedCluster:
    """A ClusterAccess over an already started handle (the plugin's is a ClusterManager)."""

    def __init__(self, handle: ClusterHandle, backend: ClusterBackend | None = None) -> None:
        from pytest_simian.cluster.sim import SimBackend

        self.handle = handle
        self.backend = backend or SimBackend()

    def get(self) -> ClusterHandle:
        return self.handle


def executor(handle: ClusterHandle, audit: AuditLog, config: ExecutorConfig | None = None) -> Executor:
    """The executor the plugin builds, with the built-in engine, on `handle`."""
    return Executor({"kube-state": KubeStateEngine()}, FixedCluster(handle), audit, config)


def events(audit: AuditLog) -> list[dict[str, Any]]:
    return [json.loads(line) for line in audit.path.read_text().splitlines() if line.strip()]


def names(evs: list[dict[str, Any]]) -> list[str]:
    return [e["event"] for e in evs]


def start_sim(tmp: Path) -> Iterator[Any]:
    from pytest_simian.cluster.sim import SimBackend

    handle = SimBackend().start(tmp)
    try:
        yield handle
    finally:
        handle.close()
