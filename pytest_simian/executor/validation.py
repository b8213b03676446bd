"""Static validation: what must never reach a cluster, refused before any write.

Why: one chokepoint. Every engine's bundle passes the same checks, the built-in engine's and a
third party's alike: schema (apiVersion, kind, name; no generateName; our marks reserved), the duration
ceiling, every object's namespace (including namespaces named or selected inside a spec) one the
scenario holds, cluster-scoped kinds only at a permitted tier, no object whose name, labels or
annotations name the fault to a subject, probes kubectl can evaluate, no two faults creating one
object. `validate` is pure (no cluster, no clock); `validate_scopes` asks discovery for kinds the static
table cannot place; `check_fault` is the configure-time form that turns a refusal into a usage error.
Must not: write to a cluster, or know what a fault kind means.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytest_simian.bundle import Bundle
from pytest_simian.cluster.kube import KubeError
from pytest_simian.executor.policy import (
    REASON_DURATION_OVER_CEILING,
    REASON_NAMES_THE_FAULT,
    REASON_NAMESPACE_NOT_ELIGIBLE,
    REASON_SCHEMA_INVALID,
    REASON_TIER_NOT_PERMITTED,
    REASON_UNKNOWN_GVK,
    STAGE_SAFETY,
    STAGE_SCHEMA,
    TIER_RANK,
    TIERS,
    ExecutorConfig,
    ExecutorError,
)
from pytest_simian.jsonpath import JSONPathError, parse_jsonpath
from pytest_simian.kube_kinds import CLUSTER_SCOPED_TIERS, static_scope
from pytest_simian.leases import BUNDLE, EXPIRES_AT, FAULT_UID, MANAGED, OUR_ANNOTATIONS, OUR_LABELS, ObjectRef
from pytest_simian.pack.catalog import Catalog
from pytest_simian.pack.lint import lint_prompt
from pytest_simian.pack.models import FaultSpec, K8sProbe, Scenario
from pytest_simian.pack.scope import named_namespaces
from pytest_simian.scoring.vocabulary import get_vocabulary, normalize


def held_namespaces(scenario: Scenario) -> set[str]:
    """What the arena holds for a scenario: its faults' namespaces and the namespaces its prompt names."""
    return set(named_namespaces(scenario))


def _reject(stage: str, reason: str, message: str) -> ExecutorError:
    return ExecutorError(stage, reason, message)


def spec_namespaces(obj: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every place inside an object (outside its own metadata) that names or selects namespaces."""
    found: list[tuple[str, Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{path}.{k}" if path else k
            if p == "metadata":
                continue
            if k == "namespace" and isinstance(v, str):
                found.append((p, v))
            elif k == "namespaces" and isinstance(v, list):
                found.append((p, v))
            elif k == "namespaceSelector":
                found.append((p, v))
            else:
                found.extend(spec_namespaces(v, p))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found.extend(spec_namespaces(v, f"{path}[{i}]"))
    return found


def _selector_names(sel: Any) -> set[str] | None:
    """The namespace names a namespaceSelector pins by `kubernetes.io/metadata.name`, or None if it selects
    anything else (or everything)."""
    if not isinstance(sel, dict) or not sel:
        return None
    names: set[str] | None = None
    labels = sel.get("matchLabels") or {}
    exprs = sel.get("matchExpressions") or []
    for k, v in labels.items():
        if k != "kubernetes.io/metadata.name":
            return None
        names = {str(v)} if names is None else names & {str(v)}
    for e in exprs:
        if e.get("key") != "kubernetes.io/metadata.name" or e.get("operator") != "In":
            return None
        vals = {str(x) for x in e.get("values") or []}
        names = vals if names is None else names & vals
    return names


def validate(fault: FaultSpec, scenario: Scenario, bundle: Bundle, config: ExecutorConfig, *,
             scope: Callable[[str, str], bool | None] = static_scope) -> str:
    """Refuse what must never reach the cluster; return the effective tier. Pure: no cluster, no clock.

    Kinds `scope` cannot place are left for :func:`validate_scopes` (called with discovery before any
    write)."""
    # schema
    tier = getattr(fault, "tier", None)
    if tier not in TIER_RANK:
        raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, f"unknown tier {tier!r} (known: {', '.join(TIERS)})")
    if not bundle.objects:
        raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, "the fault renders no objects")
    for i, obj in enumerate(bundle.objects):
        if not isinstance(obj, dict):
            raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, f"object {i} is not a mapping")
        meta = obj.get("metadata")
        if not obj.get("apiVersion") or not obj.get("kind") or not isinstance(meta, dict) or not meta.get("name"):
            raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID,
                          f"object {i} needs apiVersion, kind and metadata.name")
        if meta.get("generateName"):
            raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID,
                          f"{obj['kind']}/{meta['name']}: generateName is not allowed (objects keep the names "
                          "the scenario gives them)")
        for key in list(meta.get("labels") or {}) + list(meta.get("annotations") or {}):
            if key.startswith("simian.chaos/") and key not in (MANAGED, BUNDLE, FAULT_UID, EXPIRES_AT):
                raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, f"{obj['kind']}/{meta['name']}: {key} is reserved")
    # duration
    seconds = fault.duration_seconds
    if seconds <= 0:
        raise _reject(STAGE_SAFETY, REASON_DURATION_OVER_CEILING, "duration must be positive")
    if seconds > config.duration_ceiling:
        raise _reject(STAGE_SAFETY, REASON_DURATION_OVER_CEILING,
                      f"duration {fault.duration} is over the ceiling of {config.duration_ceiling:g}s")
    # namespaces, metadata and spec
    held = held_namespaces(scenario)
    effective = tier
    for obj in bundle.objects:
        meta = obj["metadata"]
        where = f"{obj['kind']}/{meta['name']}"
        ns = meta.get("namespace")
        namespaced = scope(obj["apiVersion"], obj["kind"])
        if namespaced is True:
            if not ns:
                raise _reject(STAGE_SAFETY, REASON_NAMESPACE_NOT_ELIGIBLE, f"{where} has no namespace")
            if ns not in held:
                raise _reject(STAGE_SAFETY, REASON_NAMESPACE_NOT_ELIGIBLE,
                              f"{where} is in namespace {ns!r}, which the scenario does not hold "
                              f"(it holds {', '.join(sorted(held))})")
        elif namespaced is False:
            if ns:
                raise _reject(STAGE_SCHEMA, REASON_SCHEMA_INVALID, f"{where} is cluster-scoped but names a namespace")
            need = CLUSTER_SCOPED_TIERS.get(obj["kind"], "external")
            if TIER_RANK[need] > TIER_RANK[effective]:
                effective = need
        for path, value in spec_namespaces(obj):
            if path.endswith("namespaceSelector"):
                names = _selector_names(value)
                if value is None:
                    continue
                if names is None or not names <= held:
                    raise _reject(STAGE_SAFETY, REASON_NAMESPACE_NOT_ELIGIBLE,
                                  f"{where} {path} selects namespaces beyond the ones the scenario holds")
                continue
            values = value if isinstance(value, list) else [value]
            bad = [str(v) for v in values if str(v) not in held]
            if bad:
                raise _reject(STAGE_SAFETY, REASON_NAMESPACE_NOT_ELIGIBLE,
                              f"{where} {path} names namespace(s) {', '.join(bad)}, which the scenario does not hold")
    if effective not in config.permitted_tiers:
        what = f"declared tier {tier!r}" if effective == tier else f"tier {effective!r} (cluster-scoped objects)"
        raise _reject(STAGE_SAFETY, REASON_TIER_NOT_PERMITTED,
                      f"{what} is not permitted (permitted: {', '.join(sorted(config.permitted_tiers))})")
    return effective


def validate_scopes(fault: FaultSpec, scenario: Scenario, bundle: Bundle, config: ExecutorConfig,
                    kube: Any) -> str:
    """:func:`validate` again with every kind placed by discovery (unknown kinds are refused)."""
    scopes: dict[tuple[str, str], bool] = {}
    for obj in bundle.objects:
        key = (obj["apiVersion"], obj["kind"])
        if key in scopes:
            continue
        try:
            scopes[key] = kube.for_kind(*key).namespaced
        except KubeError as exc:
            raise _reject(STAGE_SCHEMA, REASON_UNKNOWN_GVK, f"{key[1]} in {key[0]}: {exc.message}") from None
    return validate(fault, scenario, bundle, config, scope=lambda a, k: scopes[(a, k)])


def duplicate_objects(bundles: Sequence[Bundle]) -> list[str]:
    """Objects two faults of one scenario would both create (refused: they would fight over it)."""
    owner: dict[ObjectRef, int] = {}
    dups: list[str] = []
    for i, b in enumerate(bundles):
        for ref in bundle_refs(b):
            if ref in owner and owner[ref] != i:
                dups.append(f"{ref} (faults {owner[ref]} and {i})")
            owner.setdefault(ref, i)
    return dups


def bundle_refs(bundle: Bundle) -> list[ObjectRef]:
    """The objects a bundle creates, each once, in the order it applies them."""
    seen: dict[ObjectRef, None] = {}
    for o in bundle.objects:
        seen.setdefault(ObjectRef.of(o), None)
    return list(seen)


# ---------------------------------------------------------------------------- what a subject reads


def visible_strings(obj: dict[str, Any]) -> list[tuple[str, str]]:
    """What a subject reads first about an object: its name, label and annotation keys and values (ours
    excluded: they are irreducible and neutral), its pod template's labels and annotations."""
    out: list[tuple[str, str]] = []
    meta = obj.get("metadata") or {}
    where = f"{obj.get('kind')}/{meta.get('name')}"
    out.append((where + " name", str(meta.get("name", ""))))
    for part in ("labels", "annotations"):
        for k, v in (meta.get(part) or {}).items():
            if k in OUR_LABELS or k in OUR_ANNOTATIONS:
                continue
            out.append((f"{where} {part[:-1]} key", k))
            out.append((f"{where} {part[:-1]} {k}", str(v)))
    tmeta = (((obj.get("spec") or {}).get("template") or {}).get("metadata") or {})
    for part in ("labels", "annotations"):
        for k, v in (tmeta.get(part) or {}).items():
            out.append((f"{where} pod template {part[:-1]} key", k))
            out.append((f"{where} pod template {part[:-1]} {k}", str(v)))
    return out


def leaks(strings: list[tuple[str, str]], *, reasons: list[str], kinds: Sequence[str] = (),
          allowed: tuple[str, ...] = ()) -> list[str]:
    """Hits of the prompt lint's vocabulary (and the catalogue's failure kinds) in each string, less the
    tokens the fault mechanically causes."""
    vocab = get_vocabulary("upstream")
    ok = {normalize(a) for a in allowed}
    found = []
    for where, text in strings:
        for hit in lint_prompt(text, vocabulary=vocab, reasons=reasons, kinds=kinds):
            key = normalize(hit.token)
            if key in ok or any(key in a for a in ok):
                continue
            found.append(f"{where}: {text!r} names {hit}")
    return found


def check_leaks(bundle: Bundle, scenario: Scenario, kinds: Sequence[str]) -> None:
    """Refuse a bundle whose objects would name the fault to a subject."""
    reasons = [r for e in scenario.expect for r in e.reasons]
    found = leaks([s for o in bundle.objects for s in visible_strings(o)], reasons=reasons, kinds=kinds)
    if found:
        raise ExecutorError(STAGE_SAFETY, REASON_NAMES_THE_FAULT,
                            "an object would name the fault to a subject: " + "; ".join(found[:5]))


def check_probes(bundle: Bundle) -> None:
    """Refuse probes the executor could not evaluate (a JSONPath kubectl would not parse)."""
    for i, probe in enumerate(bundle.all_probes()):
        if isinstance(probe, K8sProbe):
            try:
                parse_jsonpath(probe.jsonpath)
            except JSONPathError as exc:
                raise ExecutorError(STAGE_SCHEMA, REASON_SCHEMA_INVALID,
                                    f"probe {i} ({probe.name!r}): jsonpath {probe.jsonpath!r} does not parse: "
                                    f"{exc}") from None


def check_bundle(fault: FaultSpec, scenario: Scenario, bundle: Bundle, config: ExecutorConfig,
                 catalog: Catalog) -> str:
    """Every static check of one rendered fault; returns the effective tier. Raises ExecutorError."""
    tier = validate(fault, scenario, bundle, config)
    check_probes(bundle)
    check_leaks(bundle, scenario, catalog.failure_kinds())
    return tier
