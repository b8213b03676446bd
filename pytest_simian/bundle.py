"""What an engine renders for one fault: staged objects, the probes that prove the effect, how to clear.

Why: the engine knows what a fault kind means; the executor knows how anything reaches a cluster. A
bundle is the whole hand-over between them, plain data, so the executor can validate it, apply it,
lease it, run its probes and clear it without asking the engine anything else.
Must not: do I/O, or hold anything that writes to a cluster or to the audit log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

CLEAR_BY_DELETE: Final = "delete"


@dataclass
class Stage:
    """Objects applied together, and the probes that must pass before the next stage is applied."""

    objects: list[dict[str, Any]]
    probes: list[Any] = field(default_factory=list)
    """Probe models (`K8sProbe`, `LogsProbe`, `HttpProbe`) gating the next stage."""


@dataclass
class Bundle:
    """One fault's rendering: stages applied in order, the Settle probes that prove the fault landed,
    the reason tokens it mechanically produces, and how it is cleared."""

    stages: list[Stage]
    probes: list[Any]
    reasons: tuple[str, ...] = ()
    clear: Literal["delete"] = CLEAR_BY_DELETE
    """Clearing deletes every object the bundle created (only those carrying its fault's uid) and waits
    until they and their workloads' pods are gone. The one way there is today."""

    @property
    def objects(self) -> list[dict[str, Any]]:
        return [o for s in self.stages for o in s.objects]

    def all_probes(self) -> list[Any]:
        """Every probe of the bundle: each stage's gate, then the Settle probes."""
        return [p for s in self.stages for p in s.probes] + list(self.probes)
