"""The built-in subjects, engine and cluster backends, registered through the public hooks.

Why: a third party adds a subject scheme, an engine or a backend exactly the way these are added, so the
hooks are exercised by every run and nothing built in takes a private path.
Must not: hold the logic of what it registers.
"""

from __future__ import annotations

import pytest

from pytest_simian.cluster.base import ClusterBackend
from pytest_simian.engines.base import Engine
from pytest_simian.errors import PackError
from pytest_simian.subjects.base import Subject


class BuiltinSubjects:
    """Provides the `noop:`, `exec:`, `lookout:`, `sre-agent:` and `replay:` schemes."""

    @pytest.hookimpl(trylast=True)
    def pytest_simian_make_subject(self, name: str, scheme: str, rest: str, spec: str,
                                   config: pytest.Config) -> Subject | None:
        from pytest_simian.subjects.builtin import ExecSubject, NoopSubject

        if scheme == "noop":
            if rest.strip():
                raise PackError(f"--simian-subject {spec!r}: noop takes no arguments")
            return NoopSubject(name, spec)
        if scheme == "exec":
            return ExecSubject(name, spec, rest)
        if scheme == "lookout":
            from pytest_simian.subjects.lookout import LookoutSubject

            return LookoutSubject(name, spec, rest)
        if scheme == "sre-agent":
            from pytest_simian.subjects.sre_agent import SreAgentSubject

            return SreAgentSubject(name, spec, rest)
        if scheme == "replay":
            from pytest_simian.subjects.replay import ReplaySubject

            return ReplaySubject(name, spec, rest)
        return None


class BuiltinEngines:
    """Provides the `kube-state` engine."""

    @pytest.hookimpl
    def pytest_simian_engines(self, config: pytest.Config) -> list[Engine]:
        from pytest_simian.engines import builtin_engines

        return builtin_engines()


class BuiltinBackends:
    """Provides the `sim` and `current` cluster backends."""

    @pytest.hookimpl
    def pytest_simian_cluster_backends(self) -> list[type[ClusterBackend]]:
        from pytest_simian.cluster.registry import BUILTIN_BACKENDS

        return list(BUILTIN_BACKENDS)


def register(pluginmanager: pytest.PytestPluginManager) -> None:
    for name, plugin in (("simian-builtin-subjects", BuiltinSubjects()), ("simian-builtin-engines", BuiltinEngines()),
                         ("simian-builtin-backends", BuiltinBackends())):
        if not pluginmanager.has_plugin(name):
            pluginmanager.register(plugin, name)
