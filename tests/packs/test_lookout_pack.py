"""The lookout pack: it loads, every scenario keeps the pack's rules, and the scoring judgements
it encodes (bad-rollout's also_true, oom declining it, the control) hold.

Why: the pack is k8s-lookout's example corpus mapped onto kube-state kinds, so its worth is in what
each scenario commits to: one neutral namespace, the task-only prompt, expectations at the
scenario's altitude with their provenance, reasons a correct detector writes (lookout's own tokens
included, so the lookout adapter can score), and the rewrite from upstream's Python workloads
recorded per scenario. node-failure needs the node tier; the docs must say so rather than drop it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_simian.engines import builtin_catalog
from pytest_simian.pack.lint import lint_prompt
from pytest_simian.pack.loader import LoadedPack, load_pack
from pytest_simian.pack.models import Scenario
from pytest_simian.scoring.measures import Expectation, GroundTruth, fault_recall, hallucinated_fault, satisfies
from pytest_simian.scoring.report import Finding, Report
from pytest_simian.scoring.vocabulary import get_vocabulary

ROOT = Path(__file__).resolve().parents[2]
LOOKOUT_DIR = ROOT / "packs" / "lookout"
PARITY_DIR = ROOT / "packs" / "parity"
DOCS = ROOT / "docs" / "packs.md"

PROMPT = 'Assess the health of the "{ns}" namespace in this Kubernetes cluster and report what you find.'

KINDS = {
    "lookout-crashloop": "ContainerExitLoop",
    "lookout-image-pull": "ImagePullFailure",
    "lookout-oom": "OOMKill",
    "lookout-pending": "Unschedulable",
    "lookout-failed-mount": "MissingVolumeSource",
    "lookout-endpoints-empty": "SelectorMismatch",
    "lookout-pdb-gridlock": "PDBGridlock",
    "lookout-bad-rollout": "BadRollout",
    "lookout-cert-expiry": "CertExpiry",
    "lookout-healthy": "NoOp",
}
"""Upstream scenario (examples/scenarios/<name>) -> the kube-state kind that produces its state."""

LOOKOUT_FINDINGS = {
    "lookout-crashloop": Finding("Pod", "worker-7d9f8-abcde", "tick-worker", "CrashLoopBackOff", "critical"),
    "lookout-image-pull": Finding("Pod", "api-7d9f8-abcde", "orders-api", "ImagePullBackOff", "critical"),
    "lookout-oom": Finding("Pod", "session-cache-7d9f8-abcde", "session-cache", "OOMKilled", "warning"),
    "lookout-pending": Finding("Pod", "renderer-7d9f8-abcde", "render-farm", "Unschedulable", "critical"),
    "lookout-failed-mount": Finding("ConfigMap", "profile-api-settings", "profile-service", "FailedMount",
                                    "critical"),
    "lookout-endpoints-empty": Finding("Service", "web", "web-frontend", "NoMatchingPods", "critical"),
    "lookout-pdb-gridlock": Finding("PodDisruptionBudget", "api", "inventory-api", "DisruptionsBlocked", "warning"),
    "lookout-bad-rollout": Finding("Deployment", "web", "storefront-web", "RolloutIncomplete", "warning"),
    "lookout-cert-expiry": Finding("Secret", "storefront-tls", "storefront-edge", "CertificateExpiringSoon",
                                   "warning"),
}
"""The finding lookout's read path writes for each scenario (lookout-scenarios.yaml, read_path_derived),
with this pack's names: each must satisfy the scenario's expectation, or lookout cannot score."""


@pytest.fixture(scope="module")
def lookout() -> LoadedPack:
    return load_pack(str(LOOKOUT_DIR), catalog=builtin_catalog())


def _by_id(pack: LoadedPack) -> dict[str, Scenario]:
    return {sc.id: sc for sc in pack.pack.scenarios}


def truth(sc: Scenario) -> GroundTruth:
    """The scoring view of a scenario, as run.json stores it."""
    return GroundTruth(
        scenario_id=sc.id,
        expect=tuple(Expectation(kind=e.kind, name=e.name, reasons=tuple(e.reasons),
                                 also_accept_kinds=tuple(e.also_accept_kinds), min_severity=e.min_severity,
                                 root=e.root) for e in sc.expect),
        also_true=tuple(sc.also_true), severity=sc.severity,
        namespaces=tuple(sorted({f.namespace for f in sc.faults})))


def report(*findings: Finding, severity: str = "critical") -> Report:
    return Report(overall_severity=severity, summary="", findings=tuple(findings))


def test_the_pack_loads_with_the_upstream_vocabulary(lookout: LoadedPack) -> None:
    assert lookout.pack.name == "lookout"
    assert lookout.pack.vocabulary == "upstream"
    assert {sc.id: [f.kind for f in sc.faults] for sc in lookout.pack.scenarios} == {
        k: [v] for k, v in KINDS.items()}


def test_one_file_per_scenario_named_after_its_id(lookout: LoadedPack) -> None:
    files = sorted(p.stem for p in LOOKOUT_DIR.glob("*.yaml") if p.name != "pack.yaml")
    assert files == sorted(KINDS)


def test_it_loads_beside_parity_without_clashes(lookout: LoadedPack) -> None:
    parity = load_pack(str(PARITY_DIR), catalog=builtin_catalog())
    assert not {sc.id for sc in parity.pack.scenarios} & {sc.id for sc in lookout.pack.scenarios}
    ns = lambda lp: {f.namespace for sc in lp.pack.scenarios for f in sc.faults}  # noqa: E731
    assert not ns(parity) & ns(lookout)


@pytest.mark.parametrize("sid", sorted(KINDS))
def test_each_scenario_keeps_the_pack_rules(sid: str, lookout: LoadedPack) -> None:
    sc = _by_id(lookout)[sid]
    namespaces = {f.namespace for f in sc.faults}
    assert len(namespaces) == 1, "one namespace per scenario"
    (ns,) = namespaces
    assert sc.prompt == PROMPT.format(ns=ns), "upstream's task-only prompt form"
    assert sc.source == "pack:lookout" and sc.tags == ["lookout"]
    assert all(f.duration == "30m" for f in sc.faults)
    assert sc.settle_timeout == "5m"
    assert sc.divergences, "the rewrite from upstream's workload is recorded"
    assert any("rewritten" in d or "Not an upstream scenario" in d for d in sc.divergences)
    for e in sc.expect:
        assert e.source, f"{sid}: expectation {e.kind}/{e.name} names no source"
        assert any(word in e.source for word in ("readme", "verify step", "our reading")), e.source


@pytest.mark.parametrize("sid", sorted(KINDS))
def test_each_prompt_and_namespace_is_lint_clean(sid: str, lookout: LoadedPack) -> None:
    sc = _by_id(lookout)[sid]
    vocab = get_vocabulary(lookout.pack.vocabulary)
    reasons = [r for e in sc.expect for r in e.reasons] + list(sc.also_true)
    assert lint_prompt(sc.prompt, vocabulary=vocab, reasons=reasons) == []
    # the namespace alone, too: it is named for what it hosts, never for its fault
    for f in sc.faults:
        assert lint_prompt(f'"{f.namespace}"', vocabulary=vocab, reasons=reasons) == []
        assert upstream_name(sid) not in f.namespace


def upstream_name(sid: str) -> str:
    return sid.removeprefix("lookout-")


def test_the_lint_would_refuse_upstreams_own_scenario_names_as_namespaces(lookout: LoadedPack) -> None:
    """Why the namespaces are neutral: most upstream scenario names leak through a quoted namespace."""
    vocab = get_vocabulary(lookout.pack.vocabulary)
    refused = {sid for sid, sc in _by_id(lookout).items() if not sc.is_control
               and lint_prompt(PROMPT.format(ns=upstream_name(sid)), vocabulary=vocab,
                               reasons=[r for e in sc.expect for r in e.reasons])}
    assert {"lookout-crashloop", "lookout-image-pull", "lookout-oom", "lookout-failed-mount"} <= refused


def test_the_control_rules(lookout: LoadedPack) -> None:
    controls = [sc for sc in lookout.pack.scenarios if sc.is_control]
    assert [sc.id for sc in controls] == ["lookout-healthy"]
    (control,) = controls
    assert control.expect == [] and control.also_true == [] and control.severity == "ok"
    assert [f.kind for f in control.faults] == ["NoOp"]


def test_every_fault_scenario_expects_something_with_a_severity(lookout: LoadedPack) -> None:
    for sc in lookout.pack.scenarios:
        if not sc.is_control:
            assert sc.expect and sc.severity in ("warning", "critical"), sc.id


@pytest.mark.parametrize("sid", sorted(LOOKOUT_FINDINGS))
def test_lookouts_own_finding_satisfies_the_expectation(sid: str, lookout: LoadedPack) -> None:
    sc = _by_id(lookout)[sid]
    gt = truth(sc)
    assert fault_recall(report(LOOKOUT_FINDINGS[sid]), gt).value == 1.0
    assert all(satisfies(LOOKOUT_FINDINGS[sid], w, gt) for w in gt.expect)


def test_failed_mount_is_not_credited_for_an_unbound_claim(lookout: LoadedPack) -> None:
    gt = truth(_by_id(lookout)["lookout-failed-mount"])
    wrong = Finding("Pod", "profile-api-5d4-xyz12", "profile-service", "Unbound", "critical")
    assert fault_recall(report(wrong), gt).value == 0.0
    assert hallucinated_fault(report(wrong), gt, get_vocabulary("upstream")).value == 0.0


# --------------------------------------------------------------------------- bad-rollout and also_true

STALL = Finding("Deployment", "web", "storefront-web", "RolloutStalled", "warning")
LOOP = Finding("Pod", "web-6c8d9f-k2x7q", "storefront-web", "CrashLoopBackOff", "warning")


def test_bad_rollout_is_expected_at_the_deployment(lookout: LoadedPack) -> None:
    sc = _by_id(lookout)["lookout-bad-rollout"]
    assert [(e.kind, e.name) for e in sc.expect] == [("Deployment", "web")]
    assert sc.also_true == ["CrashLoopBackOff"]
    assert get_vocabulary("upstream").family_of("CrashLoopBackOff") == "crash-loop"


def test_bad_rollout_licenses_the_crash_looping_pod(lookout: LoadedPack) -> None:
    gt = truth(_by_id(lookout)["lookout-bad-rollout"])
    vocab = get_vocabulary("upstream")
    both = report(STALL, LOOP, severity="warning")
    assert fault_recall(both, gt).value == 1.0
    assert hallucinated_fault(both, gt, vocab).value == 1.0


def test_bad_rollout_charges_only_the_crash_loop_by_recall_not_precision(lookout: LoadedPack) -> None:
    gt = truth(_by_id(lookout)["lookout-bad-rollout"])
    only_loop = report(LOOP, severity="critical")
    assert fault_recall(only_loop, gt).value == 0.0
    assert hallucinated_fault(only_loop, gt, get_vocabulary("upstream")).value == 1.0


def test_without_also_true_the_pod_would_be_charged(lookout: LoadedPack) -> None:
    """The license is what saves the right answer: strip it and the pod, the report's only claim of a
    failure family (a stalled rollout names none), is charged in full."""
    sc = _by_id(lookout)["lookout-bad-rollout"]
    gt = truth(sc)
    bare = GroundTruth(gt.scenario_id, gt.expect, (), gt.severity, gt.namespaces)
    assert hallucinated_fault(report(STALL, LOOP), bare, get_vocabulary("upstream")).value == 0.0


def test_oom_declines_the_crash_loop_exemption(lookout: LoadedPack) -> None:
    sc = _by_id(lookout)["lookout-oom"]
    assert sc.also_true == []
    gt = truth(sc)
    loop = Finding("Pod", "session-cache-5d4-xyz12", "session-cache", "CrashLoopBackOff", "critical")
    oom = Finding("Pod", "session-cache-5d4-xyz12", "session-cache", "OOMKilled", "critical")
    vocab = get_vocabulary("upstream")
    assert hallucinated_fault(report(loop), gt, vocab).value == 0.0
    assert hallucinated_fault(report(oom), gt, vocab).value == 1.0
    assert hallucinated_fault(report(oom, loop), gt, vocab).value == 0.5


def test_the_control_charges_any_failure_claim(lookout: LoadedPack) -> None:
    gt = truth(_by_id(lookout)["lookout-healthy"])
    vocab = get_vocabulary("upstream")
    assert fault_recall(report(), gt).value is None
    assert hallucinated_fault(report(severity="ok"), gt, vocab).value == 1.0
    claim = Finding("Pod", "web-5d4-xyz12", "catalog-web", "CrashLoopBackOff", "critical")
    assert hallucinated_fault(report(claim), gt, vocab).value == 0.0


# --------------------------------------------------------------------------- docs


def test_node_failure_is_listed_as_not_yet_runnable() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## The lookout pack"):]
    section = section[:section.find("\n## ", 4)] if "\n## " in section[4:] else section
    assert "node-failure" in section
    line = next(ln for ln in section.splitlines() if "node-failure" in ln and "not" in ln.lower())
    assert "node tier" in line or "node tier" in section
    assert "not yet runnable" in section


def test_the_docs_table_lists_every_scenario() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## The lookout pack"):]
    for sid, kind in KINDS.items():
        row = next((ln for ln in section.splitlines() if ln.startswith(f"| `{sid}`")), None)
        assert row is not None, f"{sid} missing from the lookout table in docs/packs.md"
        assert kind in row
