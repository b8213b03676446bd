"""The prompt lint table of issue 2 ("Prompt lint"), on the upstream parity prompts as recorded in
data/parity_truth.yaml (transcribed from ../shared/reference/upstream-parity-record.yaml).

Our lint does not strip the namespace from the prompt (upstream's does): the namespace is quoted in the
prompt, so a namespace named after the fault leaks it. Hence four parity prompts are refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_simian.engines import builtin_catalog
from pytest_simian.pack.lint import LintHit, lint_prompt
from pytest_simian.scoring.vocabulary import UPSTREAM

CATALOG = builtin_catalog()
FAILURE_KINDS = CATALOG.failure_kinds()
NEUTRAL_KINDS = tuple(k.name for k in CATALOG.kinds("kube-state") if not k.names_failure)

DATA = Path(__file__).parent / "data" / "parity_truth.yaml"
FIXTURES: dict[str, dict[str, Any]] = {
    f["id"]: f for f in yaml.safe_load(DATA.read_text(encoding="utf-8"))["fixtures"]}

REFUSED = ["fault-imagepull", "fault-crashloop", "fault-oomkill", "fault-unschedulable"]
ACCEPTED = ["fault-failedjob", "fault-badselector", "fault-none", "fault-storefront", "fault-sessions",
            "fault-ledger", "fault-invoicing"]


def lint(prompt: str, reasons: list[str] | tuple[str, ...] = ()) -> list[LintHit]:
    return lint_prompt(prompt, vocabulary=UPSTREAM, reasons=reasons, kinds=FAILURE_KINDS)


def lint_fixture(fixture_id: str) -> list[LintHit]:
    f = FIXTURES[fixture_id]
    return lint(f["prompt"], [r for w in f["wants"] for r in w["reasons"]])


def test_the_table_covers_the_eleven_parity_prompts() -> None:
    assert sorted(REFUSED + ACCEPTED) == sorted(FIXTURES)


@pytest.mark.parametrize("fixture_id", REFUSED)
def test_parity_prompt_naming_the_fault_is_refused(fixture_id: str) -> None:
    assert lint_fixture(fixture_id)


@pytest.mark.parametrize("fixture_id", ACCEPTED)
def test_parity_prompt_naming_only_the_task_is_accepted(fixture_id: str) -> None:
    assert lint_fixture(fixture_id) == []


def test_what_refuses_each_refused_parity_prompt() -> None:
    got = {fid: [(h.source, h.token) for h in lint_fixture(fid)] for fid in REFUSED}
    assert got == {
        "fault-imagepull": [("failure family", "image-pull")],
        "fault-crashloop": [("failure family", "crash-loop")],
        "fault-oomkill": [("fault kind", "OOMKill"), ("failure family", "oom")],
        "fault-unschedulable": [("fault kind", "Unschedulable")],
    }


def test_kind_name_unschedulable_and_only_it_refuses_fault_unschedulable() -> None:
    f = FIXTURES["fault-unschedulable"]
    reasons = [r for w in f["wants"] for r in w["reasons"]]
    assert "Unschedulable" in reasons  # also an expected reason there, but generic: it may not refuse
    hits = lint_fixture("fault-unschedulable")
    assert [(h.source, h.token) for h in hits] == [("fault kind", "Unschedulable")]
    assert str(hits[0]) == "fault kind 'Unschedulable'"


def test_generic_tokens_never_refuse_on_their_own() -> None:
    generic = ["Pending", "Failed", "Error", "Unhealthy", "FailedScheduling"]
    prompt = "Some pods are pending, one failed with an error, one is unhealthy after failed scheduling."
    assert lint(prompt, generic) == []
    assert lint("Check the pending_pods and FAILED-jobs.", ["pending", "failed"]) == []
    # `unschedulable` as a reason never refuses; the same word refuses only as the kind name.
    hits = lint("Why is the pod unschedulable?", ["Unschedulable"])
    assert [(h.source, h.token) for h in hits] == [("fault kind", "Unschedulable")]


def test_non_generic_reason_from_the_scenarios_own_expectations_refuses() -> None:
    prompt = "Assess the \"shop\" namespace; the label mismatch is suspected."
    hits = lint(prompt, ["LabelMismatch", "Pending"])
    assert [(h.source, h.token) for h in hits] == [("expected reason", "LabelMismatch")]
    # The same prompt is clean for a scenario that does not expect that reason.
    assert lint(prompt, ["Pending"]) == []
    # fault-invoicing's own coined tokens refuse its prompt when written into it.
    reasons = [r for w in FIXTURES["fault-invoicing"]["wants"] for r in w["reasons"]]
    assert [h.token for h in lint("Is there a connection refused in \"shop\"?", reasons)] == ["ConnectionRefused"]


@pytest.mark.parametrize("kind", FAILURE_KINDS)
def test_every_failure_kind_name_refuses(kind: str) -> None:
    hits = lint(f"Assess the namespace; hint: {kind}.")
    assert ("fault kind", kind) in [(h.source, h.token) for h in hits]


def test_the_built_in_catalogue_names_these_failure_kinds() -> None:
    assert FAILURE_KINDS == (
        "ImagePullFailure", "ContainerExitLoop", "OOMKill", "Unschedulable", "JobFailure", "SelectorMismatch",
        "UnboundVolume", "DependencyStall", "Cascade", "BadRollout", "PDBGridlock", "CertExpiry",
        "MissingVolumeSource")
    assert NEUTRAL_KINDS == ("NoOp", "Manifests")


def test_a_third_party_engines_failure_kind_refuses_too() -> None:
    from pytest_simian.pack.catalog import Catalog, KindInfo

    kinds = Catalog({"net": [KindInfo("PacketStorm", "x"), KindInfo("Quiet", "y", names_failure=False)]})
    hits = lint_prompt("Is there a packet storm in \"shop\"?", vocabulary=UPSTREAM, kinds=kinds.failure_kinds())
    assert [(h.source, h.token) for h in hits] == [("fault kind", "PacketStorm")]
    assert lint_prompt("Is it quiet in \"shop\"?", vocabulary=UPSTREAM, kinds=kinds.failure_kinds()) == []


@pytest.mark.parametrize("prompt", [
    "Assess the noop namespace and report what you find.",
    "Apply these manifests and report what you find.",
])
def test_neutral_kind_names_never_refuse(prompt: str) -> None:
    assert lint(prompt) == []


@pytest.mark.parametrize(("prompt", "token"), [
    ("The pods are in crash loop back off.", "CrashLoopBackOff"),
    ("Something about ERR_IMAGE_PULL here.", "ErrImagePull"),
    ("Check for node-not-ready conditions.", "NodeNotReady"),
    ("Is there disk pressure?", "disk"),
    ("Volume binding is slow.", "volume-binding"),
])
def test_family_names_and_family_tokens_refuse_after_normalization(prompt: str, token: str) -> None:
    assert token in [h.token for h in lint(prompt)]


def test_namespace_is_not_stripped_before_linting() -> None:
    # Upstream strips the namespace first; ours does not, on purpose.
    assert lint('Assess the health of the "team-oom" namespace.')
    assert lint('Assess the health of the "team-a" namespace.') == []
