"""Hooks other plugins implement to add subjects, fault engines and cluster backends.

Why: subjects, engines and backends are open sets. A third-party package registers them the way any
pytest plugin does (a `pytest11` entry point, or a conftest.py) by implementing these hooks; the
built-in ones are registered through the very same hooks (pytest_simian/builtins.py).
Must not: hold logic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_simian.cluster.base import ClusterBackend
    from pytest_simian.engines.base import Engine
    from pytest_simian.subjects.base import Subject

hookspec = pytest.hookspec


@hookspec(firstresult=True)
def pytest_simian_make_subject(name: str, scheme: str, rest: str, spec: str,
                               config: pytest.Config) -> Subject | None:
    """Build the subject for one `--simian-subject` value.

    Called once per `--simian-subject` at configure time, before anything runs. Return a
    :class:`pytest_simian.Subject` if `scheme` is yours (e.g. `lookout` for
    `lookout:./bin/lookout`), or None to let another plugin answer. Raise
    :class:`pytest_simian.PackError` for a spec that is wrong (a missing binary, a forbidden
    flag): it becomes a usage error. The first non-None result wins.

    :param name: the column name (given as `NAME=` or derived).
    :param scheme: the part before the first colon.
    :param rest: the part after it.
    :param spec: `scheme:rest` as written.
    """


@hookspec
def pytest_simian_engines(config: pytest.Config) -> list[Engine]:
    """The fault engines this plugin provides (:class:`pytest_simian.Engine` instances).

    Called once at configure time. Their catalogues decide which engines and kinds a pack may name (an
    unknown one is refused when the pack loads). An engine only renders: the executor validates, holds
    the arena, leases, applies, runs the efficacy probes, writes the audit log and clears, for every
    engine alike. Two engines with one name are refused.
    """
    return []


@hookspec
def pytest_simian_cluster_backends() -> list[type[ClusterBackend]]:
    """The cluster backends this plugin provides (:class:`pytest_simian.ClusterBackend` subclasses).

    `--simian-cluster=NAME` picks one by its `name`. Called when options are added (so `--help` lists
    the backends registered by then) and again at configure time, where a name no backend has is
    refused. Two backends with one name are refused.
    """
    return []
