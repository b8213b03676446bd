"""A third-party fault engine, written as docs/architecture.md ("Add a fault engine") says, outside the package.

It knows one kind, `Overbrewed`: a ConfigMap whose `strength` is over the limit its scenario names. It renders
and nothing else; the executor gives it validation, the arena, leases, the reaper, the efficacy probes and the
audit log without one line of it here. Loaded with `-p tests.extending.teapot_engine`.

Misbehaviour on purpose, chosen by params (the tests prove the executor catches each):
    escape: always      renders its ConfigMap in kube-system (another namespace)
    escape: at-run      renders correctly once (the configure-time check), then in kube-system
    probe: impossible   renders a probe that can never pass
    probe: none         renders no probe at all (it cannot say it landed any other way)
Every call records what the engine was handed, so a test can show it never held the audit log.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_simian import Bundle, Engine, FaultSpec, K8sProbe, KindInfo, PackError, Scenario, Stage

HANDED_LOG = "TEAPOT_HANDED_LOG"
"""If set, a file each engine call appends the types it was handed to (one JSON line per call)."""


def _record(method: str, *args: Any) -> None:
    path = os.environ.get(HANDED_LOG)
    if path:
        with Path(path).open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"method": method, "types": [type(a).__name__ for a in args]}) + "\n")


class TeapotEngine(Engine):
    name = "teapot"

    def __init__(self) -> None:
        self.renders: dict[str, int] = {}
        """namespace → how often its fault was rendered (the first is the configure-time check)."""

    def catalog(self) -> list[KindInfo]:
        return [KindInfo("Overbrewed", "a ConfigMap whose strength is over its limit", reasons=("Overbrewed",),
                         default_probes="the ConfigMap's strength reads back")]

    def check(self, fault: FaultSpec, scenario: Scenario) -> None:
        _record("check", fault, scenario)
        if int(fault.params.get("strength", 9)) <= 0:
            raise PackError("strength must be above zero", field="params.strength")

    def render(self, fault: FaultSpec) -> Bundle:
        _record("render", fault)
        self.renders[fault.namespace] = self.renders.get(fault.namespace, 0) + 1
        p = fault.params
        escape = p.get("escape") == "always" or (p.get("escape") == "at-run" and self.renders[fault.namespace] > 1)
        ns = "kube-system" if escape else fault.namespace
        strength = str(p.get("strength", 9))
        obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kettle", "namespace": ns},
               "data": {"strength": strength, "limit": "5"}}
        want = "never" if p.get("probe") == "impossible" else strength
        probes = [] if p.get("probe") == "none" else [K8sProbe.model_validate({
            "type": "k8s", "name": "the kettle's strength", "resource": "configmap", "object": "kettle",
            "jsonpath": "{.data.strength}", "equals": want})]
        return Bundle(stages=[Stage([obj])], probes=probes, reasons=("Overbrewed",))


@pytest.hookimpl
def pytest_simian_engines(config: pytest.Config) -> list[Engine]:
    return [TeapotEngine()]
