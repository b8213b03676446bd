"""Bundles: the parity fixtures render exactly as upstream's manifests; nothing of ours on pod templates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_simian.engines import builtin_catalog
from pytest_simian.engines.kube_state import KINDS, KubeStateEngine, render, tls_secret
from pytest_simian.leases import OUR_LABELS
from pytest_simian.pack.loader import load_packs
from pytest_simian.pack.models import FaultSpec

RECORD = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "upstream-parity-record.yaml"


def _parity() -> dict[str, Any]:
    return {sc.id: sc for lp in load_packs(["parity"], catalog=builtin_catalog()) for sc in lp.pack.scenarios}


def test_every_kind_in_the_catalogue_renders_with_its_reasons_and_default_probes() -> None:
    assert [k.name for k in KubeStateEngine().catalog()] == list(KINDS)
    for name, info in KINDS.items():
        if info.takes_manifests:
            assert info.needs_probes and not info.names_failure
            continue
        bundle = render(FaultSpec.model_validate({"kind": name, "namespace": "shop"}))
        assert bundle.objects and bundle.probes, name
        assert bundle.reasons == KINDS[name].reasons


@pytest.mark.skipif(not RECORD.exists(), reason="shared/reference is not beside the repository")
def test_parity_bundles_are_upstream_manifests() -> None:
    record = yaml.safe_load(RECORD.read_text())
    scenarios = _parity()
    by_upstream = {}
    for sc in scenarios.values():
        for f in sc.faults:
            by_upstream.setdefault(sc.id, []).extend(render(f).objects)
    renames = {"fault-imagepull": "fault-checkout", "fault-crashloop": "fault-payments",
               "fault-oomkill": "fault-cache", "fault-unschedulable": "fault-analytics"}
    checked = 0
    for fx in record["fixtures"]:
        sid = renames.get(fx["namespace"], fx["namespace"])
        ours = {(o["kind"], o["metadata"]["name"]): o for o in by_upstream[sid]}
        theirs = []
        for m in fx["manifest"]:
            obj = yaml.safe_load(yaml.safe_dump(m["object"]))
            obj["metadata"]["namespace"] = sid
            theirs.append(obj)
        assert sorted(ours) == sorted((o["kind"], o["metadata"]["name"]) for o in theirs), sid
        for obj in theirs:
            mine = ours[(obj["kind"], obj["metadata"]["name"])]
            if obj["kind"] == "Deployment":
                obj["spec"]["replicas"] = int(obj["spec"]["replicas"])
            assert mine == obj, f"{sid}: {obj['kind']}/{obj['metadata']['name']}"
            checked += 1
    assert checked == 17  # every object of the eleven fixtures


def test_parity_probes_are_the_packs_own() -> None:
    for sc in _parity().values():
        for f in sc.faults:
            assert render(f).probes == list(f.probes)


def test_pod_templates_carry_nothing_of_ours() -> None:
    for name in KINDS:
        if name == "Manifests":
            continue
        for obj in render(FaultSpec.model_validate({"kind": name, "namespace": "shop"})).objects:
            template = (obj.get("spec") or {}).get("template")
            if template:
                assert set(template["metadata"]["labels"]) == {"app"}, name
                assert not set(template["metadata"].get("annotations") or {}) & set(OUR_LABELS)


def test_bad_rollout_is_a_staged_apply() -> None:
    b = render(FaultSpec.model_validate({"kind": "BadRollout", "namespace": "shop"}))
    assert len(b.stages) == 2 and b.stages[0].probes
    first, second = b.stages[0].objects[0], b.stages[1].objects[0]
    assert first["metadata"]["name"] == second["metadata"]["name"]
    assert first["spec"]["template"] != second["spec"]["template"]


def test_pdb_gridlock_loses_its_headroom_rather_than_being_born_without_it() -> None:
    """upstream pdb-gridlock scales a two-replica Deployment to one under minAvailable 1: disruptionsAllowed
    drops 1 -> 0, the transition lookout's sentinel fires on. The default and the lookout pack's params both
    run one replica over the request first, wait until the budget counts it, then scale down."""
    def kinds(stage: Any) -> dict[str, dict[str, Any]]:
        return {o["kind"]: o for o in stage.objects}

    b = render(FaultSpec.model_validate({"kind": "PDBGridlock", "namespace": "shop"}))
    assert len(b.stages) == 2
    first, second = kinds(b.stages[0]), kinds(b.stages[1])
    assert first["Deployment"]["spec"]["replicas"] == 3 and second["Deployment"]["spec"]["replicas"] == 2
    assert first["PodDisruptionBudget"]["spec"] == {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 2}
    assert "PodDisruptionBudget" not in second  # the budget is not touched; the workload shrinks under it
    counted = [p for p in b.stages[0].probes if p.jsonpath == "{.status.currentHealthy}"]
    assert [(p.object_name, p.equals) for p in counted] == [("web", "3")]
    assert [(p.jsonpath, p.equals) for p in b.probes if p.resource == "pdb"] == [
        ("{.status.disruptionsAllowed}", "0")]

    sc = next(s for lp in load_packs(["lookout"]) for s in lp.pack.scenarios if s.id == "lookout-pdb-gridlock")
    b = render(sc.faults[0])
    first, second = kinds(b.stages[0]), kinds(b.stages[1])
    assert (first["Deployment"]["spec"]["replicas"], second["Deployment"]["spec"]["replicas"]) == (2, 1)
    assert [p.equals for p in b.stages[0].probes if p.jsonpath == "{.status.currentHealthy}"] == ["2"]


def test_cert_expiry_makes_a_real_certificate_that_expires_soon() -> None:
    import base64
    from datetime import UTC, datetime, timedelta

    from cryptography import x509

    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    s = tls_secret("shop", "web-tls", common_name="web.shop.svc", dns_names=["web.shop.svc"], expires_in=36 * 3600,
                   now=now)
    cert = x509.load_pem_x509_certificate(base64.b64decode(s["data"]["tls.crt"]))
    assert cert.not_valid_after_utc == now + timedelta(hours=36)
    assert cert.not_valid_before_utc < now
    assert s["type"] == "kubernetes.io/tls" and s["data"]["tls.key"]


def test_dependency_stall_keeps_upstreams_mechanism() -> None:
    b = render(FaultSpec.model_validate({"kind": "DependencyStall", "namespace": "shop"}))
    cmd = " ".join(b.objects[0]["spec"]["template"]["spec"]["containers"][0]["command"])
    assert "wget" in cmd and "127.0.0.1:5432" in cmd
    assert "refused" not in cmd.lower() and "error" not in cmd.lower()
    assert "env" not in b.objects[0]["spec"]["template"]["spec"]["containers"][0]


def test_the_kind_table_in_the_docs_is_the_catalogues() -> None:
    from pytest_simian.engines.generate import ENGINE_DOC, engine_doc_text

    doc = ENGINE_DOC.read_text(encoding="utf-8")
    assert doc == engine_doc_text(doc), "docs/engine.md's kind table is stale: python -m pytest_simian.engines.generate"
    for name in KINDS:
        assert f"| {name} |" in doc
