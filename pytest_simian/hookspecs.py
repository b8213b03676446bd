"""Hooks other plugins implement to add subjects and fault engines.

Why: subjects and fault engines are open sets. A third-party package registers them the way any
pytest plugin does (a `pytest11` entry point, or a conftest.py) by implementing these hooks.
Must not: hold logic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_simian.engines.base import FaultDriver
    from pytest_simian.subjects.base import Subject

hookspec = pytest.hookspec


@hookspec(firstresult=True)
def pytest_simian_make_subject(name: str, scheme: str, rest: str, spec: str,
                               config: pytest.Config) -> Subject | None:
    """Build the subject for one `--simian-subject` value.

    Called once per `--simian-subject` at configure time, before anything runs. Return a
    :class:`pytest_simian.subjects.Subject` if `scheme` is yours (e.g. `lookout` for
    `lookout:./bin/lookout`), or None to let another plugin answer. Raise
    :class:`pytest_simian.errors.PackError` for a spec that is wrong (a missing binary, a forbidden
    flag): it becomes a usage error. The first non-None result wins.

    :param name: the column name (given as `NAME=` or derived).
    :param scheme: the part before the first colon.
    :param rest: the part after it.
    :param spec: `scheme:rest` as written.
    """


@hookspec(firstresult=True)
def pytest_simian_fault_driver(engine: str, config: pytest.Config) -> FaultDriver | None:
    """Return the :class:`pytest_simian.engines.base.FaultDriver` for an engine name.

    Called at configure time for every engine a loaded pack names. Return None if `engine` is not
    yours. A fault whose engine no plugin provides is refused before anything runs. Every fault still
    goes through the harness's lifecycle (audit events, efficacy gate, clear): a driver is the only
    thing a third party supplies.
    """


@hookspec
def pytest_simian_engines(config: pytest.Config) -> list[str]:
    """Names of the engines this plugin provides (used to refuse unknown engines at load)."""
    return []
