"""The public API is pinned (as httpx pins its exports), and every exception class is in the drawn error tree.

Why: an extender imports these names; changing one breaks their plugin, so it must be a decision made here,
with this list changed in the same commit.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest_simian
from pytest_simian import errors

PUBLIC = [
    "BackendSettings", "Bundle", "ClearError", "ClusterBackend", "ClusterClock", "ClusterHandle", "ClusterIdentity",
    "Engine", "ExpectedFinding", "FaultSpec", "HarnessError", "HttpProbe", "InjectError", "K8sProbe", "KindInfo",
    "LogsProbe", "NotValidOnCluster", "PackError", "Scenario", "SimianError", "Stage", "Subject", "SubjectContext",
    "SubjectError", "SubjectResult", "__version__",
]


def test_the_exported_names_are_pinned() -> None:
    assert sorted(pytest_simian.__all__) == sorted(PUBLIC)


def test_every_exported_name_resolves_to_the_object_it_names() -> None:
    for name in PUBLIC:
        value = getattr(pytest_simian, name)
        if name != "__version__":
            assert value.__name__ == name


def test_the_base_classes_an_extender_subclasses_are_abstract() -> None:
    for name in ("Engine", "ClusterBackend", "ClusterHandle", "Subject"):
        assert inspect.isabstract(getattr(pytest_simian, name)), name


def test_importing_the_package_loads_nothing_heavy() -> None:
    import subprocess
    import sys

    code = ("import sys, pytest_simian; "
            "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'kubernetes'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _exception_classes() -> list[str]:
    root = Path(pytest_simian.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = [ast.unparse(b) for b in node.bases]
                if any(b.endswith(("Error", "Exception", "Failure", "Conflict")) for b in bases):
                    found.append(node.name)
    return found


def test_every_exception_class_is_in_the_error_tree() -> None:
    tree = errors.__doc__ or ""
    classes = _exception_classes()
    assert len(classes) > 15
    missing = [c for c in classes if c not in tree]
    assert missing == [], f"draw these in pytest_simian/errors.py: {missing}"
