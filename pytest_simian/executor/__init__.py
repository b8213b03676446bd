"""The executor: the one path every fault takes onto a cluster (see :mod:`pytest_simian.executor.core`).

    policy.py      ExecutorConfig, the Go Simian's stage and reason names, ExecutorError
    validation.py  static validation of a rendered bundle (pure), discovery-backed scope checks
    pipeline.py    admit → land (apply, lease, probes) → clear, for one rendered bundle
    core.py        Executor: engines render, the executor does everything else
"""

from pytest_simian.executor.core import AttemptRef, ClusterAccess, Executor, check_scenario, engine_catalog
from pytest_simian.executor.pipeline import Environment, Pipeline, fault_uid, objects_text
from pytest_simian.executor.policy import (
    REASON_BUDGET_EXCEEDED,
    REASON_DRIVER_FAILED,
    REASON_DURATION_OVER_CEILING,
    REASON_EFFICACY_FAILED,
    REASON_LEASE_FAILED,
    REASON_NAMES_THE_FAULT,
    REASON_NAMESPACE_NOT_ELIGIBLE,
    REASON_SCHEMA_INVALID,
    REASON_TIER_NOT_PERMITTED,
    REASON_UNKNOWN_GVK,
    REASON_WORKLOAD_EXCLUDED,
    STAGE_AUDIT,
    STAGE_DRIVER,
    STAGE_LEASE,
    STAGE_SAFETY,
    STAGE_SCHEMA,
    STAGE_SETTLE,
    TIER_RANK,
    TIERS,
    ExecutorConfig,
    ExecutorError,
)
from pytest_simian.executor.validation import (
    bundle_refs,
    check_bundle,
    duplicate_objects,
    held_namespaces,
    leaks,
    spec_namespaces,
    validate,
    validate_scopes,
    visible_strings,
)

__all__ = [
    "REASON_BUDGET_EXCEEDED", "REASON_DRIVER_FAILED", "REASON_DURATION_OVER_CEILING", "REASON_EFFICACY_FAILED",
    "REASON_LEASE_FAILED", "REASON_NAMES_THE_FAULT", "REASON_NAMESPACE_NOT_ELIGIBLE", "REASON_SCHEMA_INVALID",
    "REASON_TIER_NOT_PERMITTED", "REASON_UNKNOWN_GVK", "REASON_WORKLOAD_EXCLUDED", "STAGE_AUDIT", "STAGE_DRIVER",
    "STAGE_LEASE", "STAGE_SAFETY", "STAGE_SCHEMA", "STAGE_SETTLE", "TIERS", "TIER_RANK", "AttemptRef",
    "ClusterAccess", "Environment", "Executor", "ExecutorConfig", "ExecutorError", "Pipeline", "bundle_refs",
    "check_bundle", "check_scenario", "duplicate_objects", "engine_catalog", "fault_uid", "held_namespaces", "leaks",
    "objects_text", "spec_namespaces", "validate", "validate_scopes", "visible_strings",
]
