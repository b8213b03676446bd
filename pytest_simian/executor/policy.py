"""The executor's policy and its typed errors: tiers, the duration ceiling, the concurrency cap.

Why: policy is chosen by the user (`--simian-permitted-tiers`, `--simian-fault-ceiling`,
`--simian-max-faults`), parsed once in the options model and recorded in run.json; the executor enforces
it. Errors are typed like the Go ExecutorError, `executor[<stage>:<reason>]: <message>`; an ExecutorError
is an InjectError, so the attempt is NOT SCORED, never scored as a subject's miss.
Must not: import a cluster client, an engine or the audit log.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pytest_simian.errors import InjectError

# ---------------------------------------------------------------------------- names kept from the Go Simian

STAGE_SCHEMA = "schema"
STAGE_SAFETY = "safety"
STAGE_AUDIT = "audit"
STAGE_DRIVER = "driver"
STAGE_LEASE = "lease"
STAGE_SETTLE = "settle"
"""Ours: the efficacy gate (the Go executor had none)."""

REASON_UNKNOWN_GVK = "unknown-gvk"
REASON_SCHEMA_INVALID = "schema-invalid"
REASON_NAMESPACE_NOT_ELIGIBLE = "namespace-not-eligible"
REASON_WORKLOAD_EXCLUDED = "workload-excluded"
REASON_TIER_NOT_PERMITTED = "tier-not-permitted"
REASON_DURATION_OVER_CEILING = "duration-over-ceiling"
REASON_BUDGET_EXCEEDED = "budget-exceeded"
REASON_DRIVER_FAILED = "driver-failed"
REASON_LEASE_FAILED = "lease-failed"
REASON_EFFICACY_FAILED = "efficacy-failed"
"""Ours: a Settle probe did not pass before the deadline."""
REASON_NAMES_THE_FAULT = "names-the-fault"
"""Ours: an object a subject would read names the fault (seed 000 principle 3)."""

TIERS = ("namespace", "node", "external")
TIER_RANK = {t: i for i, t in enumerate(TIERS)}

DEFAULT_DURATION_CEILING = 4 * 3600.0


class ExecutorError(InjectError):
    """A fault refused or failed on its way through the executor (the Go ExecutorError)."""

    def __init__(self, stage: str, reason: str, message: str, cause: BaseException | None = None) -> None:
        self.message = message
        self.cause = cause
        text = f"executor[{stage}:{reason}]: {message}" + (f": {cause}" if cause is not None else "")
        super().__init__(text, stage=stage, reason=reason)


@dataclass(frozen=True)
class ExecutorConfig:
    """Policy. `permitted_tiers` is enforced (an unknown tier in it is refused, so it cannot be inert)."""

    permitted_tiers: frozenset[str] = frozenset({"namespace"})
    duration_ceiling: float = DEFAULT_DURATION_CEILING
    max_concurrent_faults: int = 0
    """0 = no cap. Counted across every process sharing the cluster (slots are Lease objects)."""
    clear_timeout: float = 180.0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.permitted_tiers) - set(TIERS))
        if unknown:
            raise ValueError(f"unknown tier(s) in the tier policy: {', '.join(unknown)} (known: {', '.join(TIERS)})")
        if not self.permitted_tiers:
            raise ValueError("the tier policy permits no tier")
        if not math.isfinite(self.duration_ceiling) or self.duration_ceiling <= 0:
            raise ValueError("the duration ceiling must be a finite duration above zero")
        if self.max_concurrent_faults < 0:
            raise ValueError("the concurrency cap cannot be negative")

    def to_json(self) -> dict[str, object]:
        return {"permitted_tiers": sorted(self.permitted_tiers), "duration_ceiling": self.duration_ceiling,
                "max_concurrent_faults": self.max_concurrent_faults}
