"""Every audit event name the harness writes, in one place.

Why: the audit log is the evidence a verdict is computed from, live and offline, so an event's name must
mean one thing wherever it is written or read. Executor, driver and lease events keep the Go Simian's
names; `eval.*` are the harness's own; `arena.*` and `cluster.started` are ours too.
Must not: hold anything but names.
"""

from __future__ import annotations

# the attempt, as the lifecycle sees it
SCENARIO_STARTED = "eval.scenario_started"
NOT_VALID = "eval.not_valid"
INJECT_ERROR = "eval.inject_error"
SUBJECT_STARTED = "eval.subject_started"
REPORT_RECEIVED = "eval.report_received"
SUBJECT_ERROR = "eval.subject_error"
HARNESS_ERROR = "eval.harness_error"
CLEAR_FAILED = "eval.clear_failed"
CLEARED = "eval.cleared"
SCENARIO_ENDED = "eval.scenario_ended"
TRAJECTORY = "eval.trajectory"
CLUSTER_STARTED = "cluster.started"

# the executor (only the executor writes these)
EXECUTOR_RECEIVED = "executor.received"
EXECUTOR_VALIDATED = "executor.validated"
EXECUTOR_REJECTED = "executor.rejected"
DRIVER_APPLIED = "driver.applied"
DRIVER_FAILED = "driver.failed"
FAULT_EFFICACY = "fault.efficacy"
"""One Settle probe's result: the evidence that a fault landed (or did not)."""

# leases and the reaper
LEASE_REGISTERED = "lease.registered"
LEASE_CLEARED = "lease.cleared"
LEASE_EXPIRED = "lease.expired"

# the arena
ARENA_HELD = "arena.held"
ARENA_RELEASED = "arena.released"
ARENA_ADOPTED = "arena.namespace_adopted"
