"""The driver contract an engine fulfils, and the per-attempt context it works in.

Why: one chokepoint. The lifecycle calls `check` before anything runs, `inject` (apply, then settle:
every Settle probe result is a `fault.efficacy` event) and `clear`; the driver does nothing else and
is handed nothing else.
Must not: emit events without the attempt context, or talk to a subject.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_simian.cluster.base import ClusterHandle
from pytest_simian.pack.models import FaultSpec, Scenario
from pytest_simian.record.audit import AuditLog


@dataclass
class AttemptContext:
    """What a driver may use during one attempt."""

    attempt_id: str
    scenario: Scenario
    audit: AuditLog
    run_dir: Path
    cluster: Callable[[], ClusterHandle]
    """Starts the cluster on first call (lazily, once per worker) and returns it."""
    cluster_backend: str
    """`sim`, `current` or `kind`."""
    settle_deadline: float
    """Monotonic time by which every Settle probe of the scenario must have passed."""
    progress: Callable[[str], None]
    """Say what is pending (shown with -v)."""
    options: dict[str, Any]


class FaultDriver(abc.ABC):
    """One engine's way of applying and clearing faults."""

    engine: str = ""

    def check(self, fault: FaultSpec, scenario: Scenario) -> None:  # noqa: B027 - optional hook
        """Refuse, without a cluster, what can be refused without one (raise PackError)."""

    def not_valid_on(self, fault: FaultSpec, scenario: Scenario, backend: str) -> str | None:
        """Why this fault cannot be represented on `backend`, or None."""
        return None

    @abc.abstractmethod
    def inject(self, fault: FaultSpec, index: int, ctx: AttemptContext) -> None:
        """Apply the fault and wait for its Settle probes; emit a `fault.efficacy` event per probe
        result (payload: fault_index, probe, type, observed, passed, elapsed). Raise InjectError when
        it does not land, NotValidOnCluster when it cannot, HarnessError when the rig fails."""

    @abc.abstractmethod
    def clear(self, fault: FaultSpec, index: int, ctx: AttemptContext) -> None:
        """Remove the fault and verify it is gone; raise ClearError otherwise. Idempotent."""
