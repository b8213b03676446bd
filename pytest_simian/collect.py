"""Packs as pytest collectors, scenarios × subjects as pytest items.

Why: fault scenarios are test cases, so `-k`, `-m`, `--lf`, `-x` and `-n` work as pytest users
expect. One item per (scenario, subject); node ids are `simian:<pack>::<scenario>[<subject>]`, so
they do not depend on where the package is installed.
Must not: talk to the cluster or run anything at collection time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_simian.pack.loader import LoadedPack
from pytest_simian.pack.models import Scenario
from pytest_simian.subjects.base import Subject


def _run_scenario(simian_attempt: Any) -> None:
    """The test body of every scenario item: the fixture did the work; this applies the verdict."""
    simian_attempt.conclude()


class PackCollector(pytest.Collector):
    """One loaded pack."""

    def __init__(self, *, loaded: LoadedPack, scenarios: list[Scenario], subjects: list[Subject],
                 **kw: Any) -> None:
        super().__init__(**kw)
        self.loaded = loaded
        self.scenarios = scenarios
        self.subjects = subjects

    def collect(self) -> Iterator[pytest.Item]:
        for sc in self.scenarios:
            for subject in self.subjects:
                item = ScenarioItem.from_parent(self, name=f"{sc.id}[{subject.name}]", callobj=_run_scenario,
                                                scenario=sc, subject=subject)
                yield item


class ScenarioItem(pytest.Function):
    """One attempt: one scenario × one subject, with its own injection, gate and cleanup."""

    def __init__(self, *, scenario: Scenario, subject: Subject, **kw: Any) -> None:
        super().__init__(**kw)
        # The subject is this item's parameter, as parametrize would make it: `--lf` and
        # `--deselect` parse `pack::scenario[subject]` that way.
        assert self.parent is not None
        self._id = self.parent.id.child(scenario.id).with_params(subject.name)
        self.scenario = scenario
        self.subject = subject
        pack: PackCollector = self.parent  # type: ignore[assignment]
        self.pack = pack.loaded
        self.add_marker("simian")
        self.add_marker("control" if scenario.is_control else "fault")
        for tag in scenario.tags:
            self.add_marker(tag)
        self.keywords[pack.loaded.pack.name] = True
        self.keywords[subject.name] = True

    def reportinfo(self) -> tuple[str, int | None, str]:
        where = self.pack.scenario_files.get(self.scenario.id, self.pack.pack.name)
        return f"simian:{self.pack.pack.name}/{where}", 0, self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from pytest_simian.errors import SimianError

        if isinstance(excinfo.value, SimianError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)  # type: ignore[arg-type]
