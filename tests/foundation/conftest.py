"""Helpers for the plugin's own pytester tests: write packs, subjects, the fake engine and its memory cluster."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

FAKE_ENGINE = (Path(__file__).parent / "fake_engine.py").read_text()

PROMPT = 'Assess the health of the "{ns}" namespace in this Kubernetes cluster and report what you find.'


def scenario(sid: str, ns: str | None = None, *, expect: list[dict[str, Any]] | None = None,
             severity: str = "critical", faults: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    ns = ns or sid
    if expect is None:
        expect = [{"kind": "Pod", "name": "checkout-api", "reasons": ["ImagePullBackOff", "ErrImagePull"],
                   "also_accept_kinds": ["Deployment"], "min_severity": "warning"}]
    return {"id": sid, "prompt": PROMPT.format(ns=ns), "severity": severity if expect else "ok",
            "faults": faults or [{"engine": "fake", "kind": "Thing", "namespace": ns, "duration": "2h"}],
            "expect": expect, **extra}


GOOD_REPORT = {"overall_severity": "critical", "summary": "CRITICAL: checkout-api cannot pull its image",
               "findings": [{"kind": "Pod", "resource_name": "checkout-api-7d9f4b6c8-x2k9", "namespace": "shop",
                             "reason": "ImagePullBackOff", "severity": "critical", "title": "image pull",
                             "detail": "…"}]}


class Rig:
    """Writes packs and subjects into a pytester directory and runs the plugin on them."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        pytester.makeconftest(FAKE_ENGINE)

    @property
    def path(self) -> Path:
        return self.pytester.path

    def pack(self, scenarios: list[dict[str, Any]], name: str = "demo", directory: str | None = None) -> str:
        d = self.path / (directory or name)
        d.mkdir(exist_ok=True)
        (d / "pack.yaml").write_text(yaml.safe_dump({"name": name, "description": "test pack"}))
        for sc in scenarios:
            (d / f"{sc['id']}.yaml").write_text(yaml.safe_dump(sc, sort_keys=False))
        return f"./{d.name}"

    def subject(self, name: str, body: str) -> str:
        p = self.path / name
        p.write_text("#!/bin/sh\n" + textwrap.dedent(body))
        p.chmod(0o755)
        return f"./{name}"

    def reporting(self, name: str, report: dict[str, Any]) -> str:
        return self.subject(name, f"cat > /dev/null\necho 'looking around'\necho '{json.dumps(report)}'\n")

    def run(self, *args: str, subprocess: bool = False) -> pytest.RunResult:
        if not any(a.startswith("--simian-cluster") for a in args):
            args = (*args, "--simian-cluster=memory")  # the fake engine's in-memory cluster (fake_engine.py)
        if subprocess:
            return self.pytester.runpytest_subprocess(*args)
        return self.pytester.runpytest(*args)

    def runs(self) -> list[Path]:
        root = self.path / "simian-runs"
        return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []

    def run_json(self, run: Path | None = None) -> dict[str, Any]:
        run = run or self.runs()[-1]
        return json.loads((run / "run.json").read_text())


def table(card: str, measure: str) -> dict[str, list[str]]:
    """The rows of one measure's table in a text scorecard: row label → cells."""
    import re

    lines = card.split("\n")
    start = next(i for i, line in enumerate(lines) if line.split("  ")[0] == measure)
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        label, *cells = re.split(r"\s{2,}", line.strip())
        rows[label] = cells
    return rows


@pytest.fixture
def rig(pytester: pytest.Pytester) -> Rig:
    return Rig(pytester)
