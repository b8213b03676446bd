"""The `--simian-*` command-line options (group `simian`) and their parsed form.

Why: one place that says what each option means and refuses a bad value before anything runs.
Must not: load packs or start anything.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_simian.errors import PackError
from pytest_simian.executor.policy import DEFAULT_DURATION_CEILING, ExecutorConfig
from pytest_simian.pack.durations import parse_duration
from pytest_simian.scoring.outcomes import Gate

DEFAULT_CLUSTER = "sim"
SUBJECT_OWNED_ENV = frozenset({"PATH", "HOME", "KUBECONFIG", "KUBECACHEDIR", "SIMIAN_PROMPT"})
"""Variables the harness sets for a subject; --simian-subject-env may not override them."""


def addoptions(parser: pytest.Parser, backends: Sequence[tuple[str, str]] = ()) -> None:
    """`backends`: (name, summary) of the cluster backends registered so far, for `--help` (one registered
    later is still accepted: names are checked at configure time)."""
    listed = "; ".join(f"{n}: {summary}" for n, summary in backends) or "sim"
    g = parser.getgroup("simian", "pytest-simian: fault scenarios as tests")
    g.addoption("--simian-pack", action="append", default=[], metavar="PACK[,PACK]",
                help="Scenario pack(s) to run: a built-in name (parity, lookout) or a path (anything with a "
                     "separator, e.g. ./my-pack). Comma-separated or repeated. Without it the plugin is inert.")
    g.addoption("--simian-subject", action="append", default=[], metavar="[NAME=]SCHEME:SPEC",
                help="A subject to evaluate (repeatable; one scorecard column each): noop:, "
                     "exec:./agent --flag {prompt}. NAME= names the column.")
    g.addoption("--simian-cluster", default=DEFAULT_CLUSTER, metavar="BACKEND",
                help=f"Cluster backend to break (default {DEFAULT_CLUSTER}). Registered: {listed}.")
    g.addoption("--simian-context", default=None, metavar="CONTEXT",
                help="kubeconfig context to use with --simian-cluster=current (required there: safe by default).")
    g.addoption("--simian-out", default="simian-runs", metavar="DIR",
                help="Where run directories are written (default simian-runs/).")
    g.addoption("--simian-only", default=None, metavar="ID[,ID]",
                help="Run only these scenario ids; an unknown id is refused before anything runs.")
    g.addoption("--simian-gate", default=None, metavar="none|MEASURE>=X,...",
                help="Diagnosis gate deciding pass/fail of a scored attempt. Default: "
                     "fault_recall>=1,root_cause>=1,hallucinated_fault>=1. 'none' measures only.")
    g.addoption("--simian-min-efficacy", type=float, default=0.8, metavar="RATE",
                help="Exit non-zero when fewer than this share of attempts manifested (default 0.8).")
    g.addoption("--simian-subject-timeout", type=float, default=480.0, metavar="SECONDS",
                help="Kill a subject (and its process group) after this long: a SubjectError (default 480).")
    g.addoption("--simian-settle-timeout", type=float, default=None, metavar="SECONDS",
                help="Override every scenario's settle deadline.")
    g.addoption("--simian-allow-short-faults", action="store_true", default=False,
                help="Accept faults whose lease is shorter than settle deadline plus subject timeout.")
    g.addoption("--simian-floor", default=None, metavar="NAME",
                help="The deterministic detector's column (e.g. lookout): a subject whose fault_recall on a "
                     "scenario is below that column's is flagged 'below its own tool' in the scorecard.")
    g.addoption("--simian-subject-env", action="append", default=[], metavar="NAME",
                help="Pass this host environment variable through to every subject (repeatable; e.g. an API "
                     "key). Nothing else of the host environment reaches a subject beyond a small allowlist.")
    g.addoption("--simian-permitted-tiers", default=None, metavar="TIER[,TIER]",
                help="Blast-radius tiers the executor may apply (default: namespace); unknown tiers are refused.")
    g.addoption("--simian-fault-ceiling", default=None, metavar="DURATION",
                help=f"Longest fault lease the executor accepts (default {DEFAULT_DURATION_CEILING / 3600:g}h).")
    g.addoption("--simian-max-faults", type=int, default=None, metavar="N",
                help="Most faults active at once across every runner sharing the cluster (default: no cap).")
    g.addoption("--simian-keep", action="store_true", default=False,
                help="Leave the embedded cluster running at the end and print how to reach it.")
    g.addoption("--simian-compare", default=None, metavar="OLD_RUN",
                help="Compare this run (or the --simian-offline rescoring) with an earlier run directory: score "
                     "deltas, newly missed, newly charged, newly not scored; in the terminal, compare.txt and "
                     "report.html.")
    g.addoption("--simian-offline", default=None, metavar="RUN_DIR",
                help="Rescore a saved run directory: no collection, no cluster. Writes a new run directory.")


@dataclass(frozen=True)
class SimianOptions:
    packs: list[str]
    subjects: list[str]
    cluster: str
    context: str | None
    out: Path
    only: list[str] | None
    gate: Gate
    min_efficacy: float
    subject_timeout: float
    settle_timeout: float | None
    allow_short_faults: bool
    keep: bool
    compare: Path | None = None
    floor: str | None = None
    subject_env: tuple[str, ...] = ()
    executor: ExecutorConfig = field(default_factory=ExecutorConfig)
    """The executor's policy (`--simian-permitted-tiers`, `--simian-fault-ceiling`, `--simian-max-faults`)."""
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return bool(self.packs)

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw)


def _split(values: list[str]) -> list[str]:
    return [p.strip() for v in values for p in v.split(",") if p.strip()]


def parse_options(config: pytest.Config) -> SimianOptions:
    """Read and check the options; PackError (a usage error) for a bad value."""
    packs = _split(config.getoption("simian_pack") or [])
    subjects = [s for s in (config.getoption("simian_subject") or []) if s.strip()]
    only_raw = config.getoption("simian_only")
    only = _split([only_raw]) if only_raw else None
    try:
        gate = Gate.parse(config.getoption("simian_gate"))
    except ValueError as exc:
        raise PackError(str(exc)) from None
    min_eff = float(config.getoption("simian_min_efficacy"))
    if not 0 <= min_eff <= 1:
        raise PackError(f"--simian-min-efficacy {min_eff} is outside [0, 1]")
    timeout = float(config.getoption("simian_subject_timeout"))
    if not math.isfinite(timeout) or timeout <= 0:
        raise PackError(f"--simian-subject-timeout {timeout} must be a finite number of seconds above zero")
    settle = config.getoption("simian_settle_timeout")
    if settle is not None and (not math.isfinite(float(settle)) or float(settle) <= 0):
        raise PackError(f"--simian-settle-timeout {settle} must be a finite number of seconds above zero")
    executor = parse_executor_options(config)
    compare = config.getoption("simian_compare")
    if compare:
        from pytest_simian.report.compare import check_compare_dir

        why = check_compare_dir(Path(compare))
        if why:
            raise PackError(why)
    cluster = config.getoption("simian_cluster")
    context = config.getoption("simian_context")
    floor = config.getoption("simian_floor") or None
    subject_env = tuple(dict.fromkeys(_split(config.getoption("simian_subject_env") or [])))
    for var in subject_env:
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", var):
            raise PackError(f"--simian-subject-env {var!r} is not an environment variable name")
        if var in SUBJECT_OWNED_ENV:
            raise PackError(f"--simian-subject-env {var}: the harness sets {var} for every subject itself")
    if not packs:
        for opt, value in (("--simian-subject", subjects), ("--simian-only", only)):
            if value:
                raise PackError(f"{opt} needs --simian-pack")
    raw = {
        "packs": packs, "subjects": subjects, "cluster": cluster, "context": context,
        "only": only, "gate": gate.describe(), "min_efficacy": min_eff, "subject_timeout": timeout,
        "settle_timeout": settle, "allow_short_faults": bool(config.getoption("simian_allow_short_faults")),
        "keep": bool(config.getoption("simian_keep")), "compare": compare,
        "floor": floor, "subject_env": list(subject_env),
        "permitted_tiers": config.getoption("simian_permitted_tiers"),
        "fault_ceiling": config.getoption("simian_fault_ceiling"),
        "max_faults": config.getoption("simian_max_faults"),
    }
    return SimianOptions(
        packs=packs, subjects=subjects, cluster=cluster, context=context,
        out=Path(config.getoption("simian_out")), only=only, gate=gate, min_efficacy=min_eff,
        subject_timeout=timeout, settle_timeout=float(settle) if settle is not None else None,
        allow_short_faults=raw["allow_short_faults"], keep=raw["keep"], floor=floor, subject_env=subject_env,
        compare=Path(compare) if compare else None, executor=executor, raw=raw,
    )


def parse_executor_options(config: pytest.Config) -> ExecutorConfig:
    """The executor's policy from `--simian-permitted-tiers`, `--simian-fault-ceiling`, `--simian-max-faults`."""
    tiers = config.getoption("simian_permitted_tiers")
    ceiling = config.getoption("simian_fault_ceiling")
    cap = config.getoption("simian_max_faults")
    kw: dict[str, Any] = {}
    if tiers is not None:
        kw["permitted_tiers"] = frozenset(t.strip() for t in str(tiers).split(",") if t.strip())
    if ceiling is not None:
        try:
            kw["duration_ceiling"] = parse_duration(str(ceiling))
        except ValueError as exc:
            raise PackError(f"--simian-fault-ceiling {ceiling!r}: {exc}") from None
    if cap is not None:
        kw["max_concurrent_faults"] = int(cap)
    try:
        return ExecutorConfig(**kw)
    except ValueError as exc:
        raise PackError(f"executor policy: {exc}") from None
