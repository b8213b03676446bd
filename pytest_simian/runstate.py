"""Run-wide state: the options, packs, subjects, executor, run directory, audit log and cluster.

Why: one object in the config stash that every hook and item reads, built once at configure time
(where every refusal must happen) and closed at session end. The controller owns run.json; workers
only write their own audit file and report files.
Must not: decide outcomes or score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_simian import __version__, clock
from pytest_simian.cluster.manager import ClusterManager
from pytest_simian.errors import PackError
from pytest_simian.executor import Executor
from pytest_simian.kubectl import kubectl_version
from pytest_simian.options import SimianOptions
from pytest_simian.pack.loader import LoadedPack
from pytest_simian.pack.models import Scenario
from pytest_simian.pack.scope import named_namespaces
from pytest_simian.record.artifacts import audit_path
from pytest_simian.record.audit import AuditLog
from pytest_simian.record.run_document import RunDocument, write_run_document
from pytest_simian.scoring.vocabulary import get_vocabulary
from pytest_simian.subjects.base import Subject


@dataclass
class Selected:
    """One scenario to run, with the pack it came from."""

    scenario: Scenario
    pack: LoadedPack


@dataclass
class RunState:
    options: SimianOptions
    packs: list[LoadedPack]
    selected: list[Selected]
    subjects: list[Subject]
    executor: Executor
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

    def run_document(self) -> RunDocument:
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
        return RunDocument(
            plugin_version=__version__,
            started_at=self.started_at,
            options=self.options.to_json(),
            gate=self.options.gate.describe(),
            min_efficacy=self.options.min_efficacy,
            executor=self.options.executor.to_json(),
            vocabularies={p.pack.vocabulary: get_vocabulary(p.pack.vocabulary).identity() for p in self.packs},
            packs=[{"name": p.pack.name, "reference": p.reference, "origin": p.origin, "digest": p.digest,
                    "vocabulary": p.pack.vocabulary,
                    "scenarios": [s.scenario.id for s in self.selected if s.pack is p]}
                   for p in self.packs],
            scenarios=scenarios,
            subjects=[s.describe() for s in self.subjects],
            kubectl=kubectl_version(),
        )

    def write_run_json(self, doc: RunDocument | dict[str, Any]) -> None:
        write_run_document(self.run_dir / "run.json", doc)


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
