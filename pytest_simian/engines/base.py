"""The engine contract: what a fault engine supplies, and nothing more.

Why: one chokepoint. An engine knows what its fault kinds mean; the executor knows how anything reaches a
cluster. So an engine shrinks to three cluster-free answers: `catalog()` (its kinds, which packs are
validated against), `check(fault, scenario)` (refusals only it can make), and `render(fault)` (the
:class:`~pytest_simian.bundle.Bundle`: staged objects, the probes that prove the effect, how to clear).
The executor validates, holds the arena, leases, applies, runs the probes, writes every audit event and
clears. An engine is never handed the audit log, the cluster or a way to say its own fault landed.
Must not: import the audit log, a cluster client or the executor; do I/O.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import ClassVar

from pytest_simian.bundle import Bundle, Stage
from pytest_simian.pack.catalog import KindInfo
from pytest_simian.pack.models import FaultSpec, Scenario

__all__ = ["Bundle", "Engine", "KindInfo", "Stage"]


class Engine(abc.ABC):
    """A fault engine. Provide one through the `pytest_simian_engines` hook."""

    name: ClassVar[str] = ""
    """What a fault's `engine:` field names (`kube-state`)."""

    @abc.abstractmethod
    def catalog(self) -> Sequence[KindInfo]:
        """Every kind this engine renders. A fault naming another kind is refused when its pack loads."""

    def check(self, fault: FaultSpec, scenario: Scenario) -> None:  # noqa: B027 - optional hook
        """Refuse, without a cluster, what only this engine can refuse (raise PackError with a `field`).
        The executor's own validation of the rendered bundle runs after it, whatever it says."""

    @abc.abstractmethod
    def render(self, fault: FaultSpec) -> Bundle:
        """The bundle for one fault. Called at configure time (for validation) and once per attempt.
        Raise PackError (or KeyError/TypeError/ValueError for params that do not fit) when it cannot."""
