"""Built-in packs resolve the same from any working directory, in a wheel and in an editable install."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import pytest_simian, sys; from pytest_simian.pack.loader import load_pack; "
         "lp = load_pack('parity'); print(pytest_simian.__file__); print(lp.pack.name, len(lp.pack.scenarios), "
         "lp.origin, lp.digest)")


def _probe(cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.strip().splitlines()


def test_builtin_pack_resolves_from_any_directory_in_this_install(tmp_path: Path) -> None:
    here = _probe(REPO)
    elsewhere = _probe(tmp_path)
    assert here[1].startswith("parity 11 builtin ")
    assert here[1] == elsewhere[1]


def test_a_directory_named_like_a_builtin_is_not_taken_for_it(tmp_path: Path) -> None:
    (tmp_path / "parity").mkdir()
    assert _probe(tmp_path)[1].startswith("parity 11 builtin ")


@pytest.mark.skipif(not (REPO / "pyproject.toml").exists(), reason="needs the source tree")
def test_builtin_pack_ships_inside_the_wheel(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(REPO)],
                   check=True, capture_output=True, text=True)
    (wheel,) = dist.glob("pytest_simian-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "pytest_simian/packs/parity/pack.yaml" in names
    assert "pytest_simian/schemas/scenario.schema.json" in names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = dict(os.environ, PYTHONPATH=str(site))
    lines = _probe(tmp_path, env)
    assert lines[0].startswith(str(site)), "the unpacked wheel must be what was imported"
    assert lines[1] == _probe(REPO)[1], "the wheel's pack is the source tree's pack"
