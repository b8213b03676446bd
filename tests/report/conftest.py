"""Fixtures for the report tests: a hand-written run directory, and the foundation's pytester rig."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.foundation.conftest import Rig
from tests.report.runs import write_run

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run")


@pytest.fixture
def rig(pytester: pytest.Pytester) -> Rig:
    return Rig(pytester)


def golden(name: str, actual: str) -> None:
    """Compare with tests/report/golden/<name>; SIMIAN_REGEN_GOLDEN=1 rewrites it instead."""
    path = GOLDEN / name
    if os.environ.get("SIMIAN_REGEN_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.is_file(), f"no golden {name}: run with SIMIAN_REGEN_GOLDEN=1 to write it"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"golden {name} differs (SIMIAN_REGEN_GOLDEN=1 rewrites it after review)"
