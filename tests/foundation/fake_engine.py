"""A test-only fault engine, `fake`, whose behaviour each fault's params control.

Lives under tests/ and is loaded only with `-p tests.foundation.fake_engine` (or pytester's
`plugins=`), so nothing of it is reachable from a user's run.

params:
    efficacy: pass (default) | fail | none     what fault.efficacy records
    raise: inject | notvalid | harness        raise instead of landing
    clear: fail                                clearing fails
    not_valid_on: sim                          not representable on that backend
"""

from __future__ import annotations

import pytest

from pytest_simian.engines.base import AttemptContext, FaultDriver
from pytest_simian.errors import ClearError, HarnessError, InjectError, NotValidOnCluster, PackError
from pytest_simian.pack.models import FaultSpec, Scenario


class FakeDriver(FaultDriver):
    engine = "fake"

    def check(self, fault: FaultSpec, scenario: Scenario) -> None:
        if fault.params.get("refuse"):
            raise PackError("the fake executor refuses this manifest", field="params.refuse")

    def not_valid_on(self, fault: FaultSpec, scenario: Scenario, backend: str) -> str | None:
        if fault.params.get("not_valid_on") == backend:
            return "the fake workload's program cannot be modelled here"
        return None

    def inject(self, fault: FaultSpec, index: int, ctx: AttemptContext) -> None:
        p = fault.params
        ctx.audit.emit("driver.applied", fault_uid=f"f{index}", payload={"engine": "fake"})
        what = p.get("raise")
        if what == "inject":
            raise InjectError(f'settle probe "{fault.kind} landed" timed out after 1s (last output "")')
        if what == "notvalid":
            raise NotValidOnCluster(ctx.cluster_backend, "fake says so at inject time")
        if what == "harness":
            raise HarnessError("the fake engine lost its cluster")
        eff = p.get("efficacy", "pass")
        if eff == "none":
            return
        ctx.progress(f"waiting for {fault.kind} (fake)")
        ctx.audit.emit("fault.efficacy", fault_uid=f"f{index}", payload={
            "fault_index": index, "probe": f"{fault.kind} landed", "type": "k8s",
            "observed": "x" * int(p.get("observed_len", 10)), "passed": eff == "pass", "elapsed": 0.01})

    def clear(self, fault: FaultSpec, index: int, ctx: AttemptContext) -> None:
        if fault.params.get("clear") == "fail":
            raise ClearError("fake objects are still there after clearing")
        ctx.audit.emit("lease.cleared", fault_uid=f"f{index}", reason="explicit-clear")


@pytest.hookimpl
def pytest_simian_engines(config: pytest.Config) -> list[str]:
    return ["fake"]


@pytest.hookimpl
def pytest_simian_fault_driver(engine: str, config: pytest.Config) -> FaultDriver | None:
    return FakeDriver() if engine == "fake" else None
