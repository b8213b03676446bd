"""Cluster backends come through the `pytest_simian_cluster_backends` hook, built-in ones included: `--help`
lists what is registered, an unknown name is a usage error naming the registered ones, a backend's own
settings check runs at configure time, and its NOT VALID answer is recorded before anything is written."""

from __future__ import annotations

import json

from .conftest import Rig, scenario


def test_help_lists_the_registered_backends_and_no_other(rig: Rig) -> None:
    out = rig.pytester.runpytest("--help").stdout.str()
    text = " ".join(out.split())
    help_text = text.split("--simian-cluster=BACKEND", 1)[1].split("--simian-context", 1)[0]
    assert "Registered: sim: the embedded cluster (default)" in help_text
    assert "current: a real cluster from your kubeconfig" in help_text
    assert "kind" not in help_text
    # a conftest registers its backend after the options exist: not in --help, still accepted (below)
    assert "memory" not in help_text


def test_a_backend_registered_after_the_options_is_accepted_at_configure_time(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    result = rig.run(f"--simian-pack={pack}", "--simian-cluster=memory", "--simian-allow-short-faults",
                     "--simian-gate=none")
    assert result.ret == 0, result.stdout.str()[-2000:]


def test_an_unknown_backend_is_refused_naming_the_registered_ones(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    result = rig.run(f"--simian-pack={pack}", "--simian-cluster=kind")
    assert result.ret == 4
    assert ("--simian-cluster=kind: no installed plugin provides that cluster backend "
            "(registered: current, memory, sim)") in result.stderr.str()


def test_a_backends_settings_are_checked_at_configure_time(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    result = rig.run(f"--simian-pack={pack}", "--simian-cluster=current")
    assert result.ret == 4 and "needs --simian-context NAME" in result.stderr.str()
    assert not (rig.path / "simian-runs").exists()


def test_the_backends_not_valid_answer_comes_before_any_write(rig: Rig) -> None:
    pack = rig.pack([scenario("nv", faults=[{"engine": "fake", "kind": "T", "namespace": "nv",
                                             "params": {"not_valid_on": "memory"}}])])
    result = rig.run(f"--simian-pack={pack}", "--simian-allow-short-faults", "-rA")
    result.assert_outcomes(skipped=1)
    events = [json.loads(line) for line in (rig.runs()[-1] / "audit.jsonl").read_text().splitlines()]
    names = [e["event"] for e in events]
    assert "eval.not_valid" in names
    assert not {"executor.received", "arena.held", "driver.applied"} & set(names)
    nv = next(e for e in events if e["event"] == "eval.not_valid")
    assert nv["payload"] == {"cluster": "memory", "why": "the memory cluster serves no Widget in example.com/v1"}
