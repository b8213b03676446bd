"""The parity pack against the upstream record, the four renames against the prompt lint, the
record against upstream's source (opt-in), and the rules every shipped pack keeps.

Why: the parity pack's numbers are comparable with upstream's only while every expectation,
settle condition and workload is upstream's. Drift is caught in two halves: the pack moved and the
record did not (a deep comparison on every run, so one extra accepted reason fails it), and
upstream moved and the record did not (SIMIAN_UPSTREAM_FIXTURES=<path to fixtures.go>, read as
text; skipped otherwise, because CI has no copy of that repository).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_simian.engines import builtin_catalog
from pytest_simian.pack.lint import lint_prompt
from pytest_simian.pack.loader import LoadedPack, builtin_pack_names, builtin_packs_root, load_pack
from pytest_simian.pack.models import Scenario
from pytest_simian.scoring.vocabulary import UPSTREAM, get_vocabulary

ROOT = Path(__file__).resolve().parents[2]
PARITY_DIR = ROOT / "packs" / "parity"
RECORD_FILE = ROOT / "testdata" / "upstream-fixtures.yaml"
RECORD: dict[str, Any] = yaml.safe_load(RECORD_FILE.read_text(encoding="utf-8"))
FIXTURES: list[dict[str, Any]] = RECORD["fixtures"]

RENAMES = {
    "fault-imagepull": "fault-checkout",
    "fault-crashloop": "fault-payments",
    "fault-oomkill": "fault-cache",
    "fault-unschedulable": "fault-analytics",
}
"""The four namespaces that name their own fault, and what each is called here."""

KINDS = {
    "fault-checkout": ["ImagePullFailure"],
    "fault-payments": ["ContainerExitLoop"],
    "fault-cache": ["OOMKill"],
    "fault-analytics": ["Unschedulable"],
    "fault-failedjob": ["JobFailure"],
    "fault-badselector": ["SelectorMismatch"],
    "fault-none": ["NoOp"],
    "fault-storefront": ["ImagePullFailure", "Unschedulable", "JobFailure"],
    "fault-sessions": ["Cascade"],
    "fault-ledger": ["UnboundVolume"],
    "fault-invoicing": ["DependencyStall"],
}
"""Which kube-state kinds transcribe each fixture (ours, not upstream's; see docs/packs.md)."""

PARAM_KEYS = ("deployments", "jobs", "services", "claims")

FAILURE_KINDS = builtin_catalog().failure_kinds()


def _load_parity() -> LoadedPack:
    # The built-in name once packs/ ships inside the package; the source tree until then.
    if "parity" in builtin_pack_names():
        return load_pack("parity", catalog=builtin_catalog())
    return load_pack(str(PARITY_DIR), catalog=builtin_catalog())


@pytest.fixture(scope="module")
def parity() -> LoadedPack:
    return _load_parity()


def _by_id(lp: LoadedPack) -> dict[str, Scenario]:
    return {sc.id: sc for sc in lp.pack.scenarios}


# --------------------------------------------------------------------------------------------
# The pack, seen in the record's shape
# --------------------------------------------------------------------------------------------


def _probe_view(probe: Any, scenario_id: str, upstream_ns: str) -> dict[str, Any]:
    """A probe as the record writes a settle condition, with the kubectl arguments upstream would
    have run (our namespace mapped back to upstream's; any other namespace is left to differ)."""
    ns = upstream_ns if probe.namespace == scenario_id else probe.namespace
    unmapped: dict[str, Any] = {}
    if probe.mode != "Settle":
        unmapped["mode"] = probe.mode
    if probe.type == "k8s":
        args = ["get", probe.resource]
        if probe.object_name is not None:
            args.append(probe.object_name)
        args += ["-n", ns]
        if probe.selector is not None:
            args += ["-l", probe.selector]
        args += ["-o", "jsonpath=" + probe.jsonpath]
        if probe.equals is not None:
            unmapped["equals"] = probe.equals
        view = {"describe": probe.name, "kubectl_args": args, "command": "get", "resource": probe.resource,
                "object": probe.object_name, "selector": probe.selector, "jsonpath": probe.jsonpath,
                "since": None, "contains": probe.contains, "empty": bool(probe.empty)}
    elif probe.type == "logs":
        args = ["logs", "-n", ns]
        if probe.selector is not None:
            args += ["-l", probe.selector]
        if probe.since is not None:
            args.append(f"--since={probe.since}")
        for field in ("pod", "container", "regex"):
            if getattr(probe, field) is not None:
                unmapped[field] = getattr(probe, field)
        if probe.previous:
            unmapped["previous"] = True
        view = {"describe": probe.name, "kubectl_args": args, "command": "logs", "resource": None,
                "object": None, "selector": probe.selector, "jsonpath": None, "since": probe.since,
                "contains": probe.contains, "empty": False}
    else:
        view = {"describe": probe.name, "type": probe.type}
    if unmapped:
        view["fields upstream has no counterpart for"] = unmapped
    return view


def pack_view(sc: Scenario, upstream_ns: str) -> dict[str, Any]:
    """A scenario in testdata/upstream-fixtures.yaml's shape: equal to its record entry iff the
    scenario says what upstream said (the prompt with its namespace mapped back to upstream's)."""
    objects: dict[str, list[Any]] = {}
    for fault in sc.faults:
        for key, value in fault.params.items():
            objects.setdefault(key, []).extend(value if isinstance(value, list) else [value])
    return {
        "upstream_name": sc.name,
        "upstream_namespace": upstream_ns,
        "id": sc.id,
        "prompt": sc.prompt.replace(f'"{sc.id}"', f'"{upstream_ns}"'),
        "want_severity": sc.severity,
        "wants": [{"kind": e.kind, "name": e.name, "reasons": list(e.reasons),
                   "also_accept_kinds": list(e.also_accept_kinds), "min_severity": e.min_severity,
                   "root": e.root} for e in sc.expect],
        "settle": [_probe_view(p, sc.id, upstream_ns) for f in sc.faults for p in f.probes],
        "objects": objects,
    }


def _own_fields(sc: Scenario) -> dict[str, Any]:
    """The pack's own fields that the format fixes for every parity scenario."""
    return {
        "kinds": [f.kind for f in sc.faults],
        "engines": sorted({f.engine for f in sc.faults}),
        "modes": sorted({f.mode for f in sc.faults}),
        "tiers": sorted({f.tier for f in sc.faults}),
        "durations": sorted({f.duration for f in sc.faults}),
        "fault namespaces": sorted({f.namespace for f in sc.faults}),
        "probe namespaces": sorted({getattr(p, "namespace", None) or f.namespace for f in sc.faults for p in f.probes}),
        "manifests": [f.manifests for f in sc.faults if f.manifests is not None],
        "param keys": sorted({k for f in sc.faults for k in f.params} - set(PARAM_KEYS)),
        "expect sources": sorted({e.source for e in sc.expect}),
        "also_true": list(sc.also_true),
        "settle_timeout": sc.settle_timeout,
        "source": sc.source,
        "tags": list(sc.tags),
        "substrate": sc.substrate,
    }


def _own_fields_expected(fixture: dict[str, Any]) -> dict[str, Any]:
    return {
        "kinds": KINDS[fixture["id"]],
        "engines": ["kube-state"],
        "modes": ["synthesize"],
        "tiers": ["namespace"],
        "durations": ["30m"],
        "fault namespaces": [fixture["id"]],
        "probe namespaces": [fixture["id"]],
        "manifests": [],
        "param keys": [],
        "expect sources": [f"upstream fixture {fixture['upstream_name']}"] if fixture["wants"] else [],
        "also_true": [],
        "settle_timeout": RECORD["settle_timeout"],
        "source": "pack:parity",
        "tags": ["parity"],
        "substrate": None,
    }


def test_parity_pack_matches_the_upstream_record(parity: LoadedPack) -> None:
    assert parity.pack.name == "parity"
    assert parity.pack.vocabulary == UPSTREAM.name
    scenarios = _by_id(parity)
    assert sorted(scenarios) == sorted(f["id"] for f in FIXTURES), "the pack and the record hold different ids"
    assert len(FIXTURES) == 11
    for fixture in FIXTURES:
        sc = scenarios[fixture["id"]]
        assert parity.scenario_files[sc.id] == f"{sc.id}.yaml", "one file per scenario, named for its id"
        assert fixture["prompt"] == RECORD["prompt_template"].replace("<NAMESPACE>", fixture["upstream_namespace"])
        assert pack_view(sc, fixture["upstream_namespace"]) == fixture, f"{sc.id} drifted from the record"
        assert _own_fields(sc) == _own_fields_expected(fixture), sc.id


def test_an_extra_accepted_reason_fails_the_comparison(parity: LoadedPack) -> None:
    fixture = next(f for f in FIXTURES if f["upstream_name"] == "silentFailure")
    sc = _by_id(parity)[fixture["id"]]
    assert pack_view(sc, fixture["upstream_namespace"]) == fixture
    first = sc.expect[0]
    widened = sc.model_copy(update={"expect": [first.model_copy(update={"reasons": [*first.reasons, "Unavailable"]}),
                                               *sc.expect[1:]]})
    assert pack_view(widened, fixture["upstream_namespace"]) != fixture
    retimed = sc.model_copy(update={"faults": [sc.faults[0].model_copy(update={
        "probes": [p.model_copy(update={"since": "60s"}) if p.type == "logs" else p for p in sc.faults[0].probes]})]})
    assert pack_view(retimed, fixture["upstream_namespace"]) != fixture


def test_each_probe_belongs_to_the_fault_whose_objects_it_checks(parity: LoadedPack) -> None:
    for sc in parity.pack.scenarios:
        for fault in sc.faults:
            names = {o["name"] for key in PARAM_KEYS for o in fault.params.get(key, [])}
            for probe in fault.probes:
                named = getattr(probe, "object_name", None)
                selector = getattr(probe, "selector", None) or ""
                if "=" in selector:
                    named = selector.split("=", 1)[1]
                if named is not None:
                    assert named in names, f"{sc.id}: probe {probe.name!r} checks {named}, not in its fault"


def test_the_scenarios_record_their_divergences(parity: LoadedPack) -> None:
    scenarios = _by_id(parity)
    for fixture in FIXTURES:
        sc = scenarios[fixture["id"]]
        renamed = fixture["id"] != fixture["upstream_namespace"]
        mentions = [d for d in sc.divergences if fixture["upstream_namespace"] in d and "renamed" in d.lower()]
        assert bool(mentions) == renamed, f"{sc.id}: the rename must be recorded exactly when there is one"
    invoicing = scenarios["fault-invoicing"]
    assert any("mechanism" in d.lower() for d in invoicing.divergences)
    assert any(p.type == "logs" for f in invoicing.faults for p in f.probes)


# --------------------------------------------------------------------------------------------
# The four renames and the prompt lint
# --------------------------------------------------------------------------------------------


def _reasons(fixture: dict[str, Any]) -> list[str]:
    return [r for w in fixture["wants"] for r in w["reasons"]]


RENAMED = [f for f in FIXTURES if f["id"] != f["upstream_namespace"]]
KEPT = [f for f in FIXTURES if f["id"] == f["upstream_namespace"]]


def test_the_renames_are_exactly_the_four() -> None:
    assert {f["upstream_namespace"]: f["id"] for f in RENAMED} == RENAMES
    assert len(KEPT) == 7


@pytest.mark.parametrize("fixture", RENAMED, ids=[f["upstream_namespace"] for f in RENAMED])
def test_each_rename_is_one_the_prompt_lint_refuses(fixture: dict[str, Any], parity: LoadedPack) -> None:
    hits = lint_prompt(fixture["prompt"], vocabulary=UPSTREAM, reasons=_reasons(fixture), kinds=FAILURE_KINDS)
    assert hits, f"upstream's prompt for {fixture['upstream_namespace']} passes the lint: the rename was not needed"
    ours = _by_id(parity)[fixture["id"]].prompt
    assert ours == fixture["prompt"].replace(fixture["upstream_namespace"], fixture["id"])
    assert lint_prompt(ours, vocabulary=UPSTREAM, reasons=_reasons(fixture), kinds=FAILURE_KINDS) == []


@pytest.mark.parametrize("fixture", KEPT, ids=[f["upstream_namespace"] for f in KEPT])
def test_lint_accepts_the_other_seven_unchanged(fixture: dict[str, Any], parity: LoadedPack) -> None:
    assert lint_prompt(fixture["prompt"], vocabulary=UPSTREAM, reasons=_reasons(fixture), kinds=FAILURE_KINDS) == []
    assert _by_id(parity)[fixture["id"]].prompt == fixture["prompt"]


# --------------------------------------------------------------------------------------------
# Upstream moved and the record did not (opt-in)
# --------------------------------------------------------------------------------------------

_GO_STRING = r'"(?:[^"\\\n]|\\.)*"'
_SEVERITY = {"warning": "SeverityWarning", "critical": "SeverityCritical", "info": "SeverityInfo"}
_OVERALL = {"ok": "OverallOK", "info": "OverallInfo", "warning": "OverallWarning", "critical": "OverallCritical"}


def _unquote(lit: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), lit[1:-1])


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _string_list(src: str, field: str, start: int = 0, end: int | None = None) -> list[tuple[int, list[str]]]:
    """Every `field: []string{...}` in src[start:end]: position and elements (a bare identifier
    such as `ns` becomes `<ns>`). Braces inside string literals are skipped."""
    out = []
    end = len(src) if end is None else end
    for m in re.finditer(rf"\b{field}:\s*\[\]string\{{", src[start:end]):
        i = start + m.end()
        items: list[str] = []
        while i < end:
            c = src[i]
            if c == "}":
                break
            if c == '"':
                lit = re.match(_GO_STRING, src[i:])
                assert lit, f"unterminated string at {i}"
                items.append(_unquote(lit.group(0)))
                i += len(lit.group(0))
                continue
            ident = re.match(r"[A-Za-z_]\w*", src[i:])
            if ident:
                items.append(f"<{ident.group(0)}>")
                i += len(ident.group(0))
                continue
            i += 1
        out.append((start + m.start(), items))
    return out


def _functions(src: str) -> dict[str, tuple[int, int]]:
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"^func (\w+)\(", src, re.M)]
    return {name: (pos, starts[i + 1][0] if i + 1 < len(starts) else len(src))
            for i, (pos, name) in enumerate(starts)}


def _wants_in(src: str, start: int, end: int) -> list[dict[str, Any]]:
    m = re.search(r"\bWant:\s*\[\]Want\{", src[start:end])
    if not m:
        return []
    first = start + m.end()
    kinds = [start + k.start() for k in re.finditer(r"\bKind:\s*" + _GO_STRING, src[start:end])
             if start + k.start() > first]
    wants = []
    for i, pos in enumerate(kinds):
        seg_end = kinds[i + 1] if i + 1 < len(kinds) else end
        seg = src[pos:seg_end]
        name = re.search(r"\bName:\s*(" + _GO_STRING + ")", seg)
        sev = re.search(r"\bMinSeverity:\s*schema\.(\w+)", seg)
        also = _string_list(src, "AlsoAcceptKinds", pos, seg_end)
        reasons = _string_list(src, "Reasons", pos, seg_end)
        wants.append({
            "kind": _unquote(re.match(r"Kind:\s*(" + _GO_STRING + ")", seg).group(1)),  # type: ignore[union-attr]
            "name": _unquote(name.group(1)) if name else None,
            "reasons": reasons[0][1] if reasons else [],
            "also_accept_kinds": also[0][1] if also else [],
            "min_severity": sev.group(1) if sev else None,
            "root": bool(re.search(r"\bRoot:\s*true\b", seg)),
        })
    return wants


def _conditions(src: str, funcs: dict[str, tuple[int, int]], start: int, end: int) -> list[dict[str, Any]]:
    """The settle conditions a fixture function lists, in order, following calls to helpers that
    return a Condition (upstream's crashLoopSettle)."""
    found: list[tuple[int, int]] = []  # (position in the fixture, position of the Describe)
    for m in re.finditer(r"\bDescribe:\s*" + _GO_STRING, src[start:end]):
        found.append((start + m.start(), start + m.start()))
    for name, (fs, fe) in funcs.items():
        body = src[fs:fe]
        if re.search(rf"^func {name}\([^)]*\)\s*Condition\b", body) is None:
            continue
        describe = re.search(r"\bDescribe:\s*" + _GO_STRING, body)
        for call in re.finditer(rf"\b{name}\(", src[start:end]):
            if describe:
                found.append((start + call.start(), fs + describe.start()))
    out = []
    for _, pos in sorted(found):
        stop = src.find("Describe:", pos + 1)
        stop = len(src) if stop == -1 else stop
        d = re.match(r"Describe:\s*(" + _GO_STRING + ")", src[pos:])
        args = _string_list(src, "Args", pos, stop)
        contains = re.search(r"\bContains:\s*(" + _GO_STRING + ")", src[pos:stop])
        empty = re.search(r"\bEmpty:\s*true\b", src[pos:stop])
        out.append({
            "describe": _unquote(d.group(1)),  # type: ignore[union-attr]
            "args": args[0][1] if args else None,
            "contains": _unquote(contains.group(1)) if contains else None,
            "empty": bool(empty),
        })
    return out


def _joined_literals(src: str) -> str:
    """The source with `"a" +\n "b"` concatenations joined, so a split string reads whole."""
    return re.sub(r'"\s*\+\s*(?://[^\n]*\n\s*)*"', "", src)


def test_upstream_record_still_matches_the_source() -> None:
    path = os.environ.get("SIMIAN_UPSTREAM_FIXTURES")
    if not path:
        pytest.skip("set SIMIAN_UPSTREAM_FIXTURES=<path to upstream internal/faults/fixtures.go> to check "
                    "the record against upstream's source")
    # Whole-line comments go first: upstream's doc comments quote field names and tokens.
    src = re.sub(r"^[ \t]*//[^\n]*\n", "", Path(path).read_text(encoding="utf-8"), flags=re.M)
    funcs = _functions(src)
    problems: list[str] = []

    all_body = src[slice(*funcs["All"])] if "All" in funcs else ""
    listed = re.findall(r"^\s*(\w+)\(\),\s*$", all_body, re.M)
    if listed != [f["upstream_name"] for f in FIXTURES]:
        problems.append(f"All() lists {listed}, the record {[f['upstream_name'] for f in FIXTURES]}")

    if "checkNamespace" in funcs:
        body = src[slice(*funcs["checkNamespace"])]
        text = "".join(_unquote(s) for s in re.findall(_GO_STRING, body))
        want = RECORD["prompt_template"].replace('"<NAMESPACE>"', "%q")
        if not text.startswith(want):
            problems.append(f"checkNamespace says {text!r}, the record {want!r}")
    else:
        problems.append("no checkNamespace function: the prompt template moved")

    joined = _joined_literals(src)
    for fx in FIXTURES:
        name, ns = fx["upstream_name"], fx["upstream_namespace"]
        if name not in funcs:
            problems.append(f"no func {name}")
            continue
        start, end = funcs[name]
        block = src[start:end]
        if f"const ns = {_quote(ns)}" not in block:
            problems.append(f"{name}: namespace is no longer {ns!r}")
        if not re.search(r"\bPrompt:\s*checkNamespace\(ns\)", block):
            problems.append(f"{name}: the prompt is no longer checkNamespace(ns)")
        if not re.search(rf"\bWantSeverity:\s*schema\.{_OVERALL[fx['want_severity']]}\b", block):
            problems.append(f"{name}: WantSeverity is no longer {fx['want_severity']}")
        wants = [dict(w, min_severity=_SEVERITY[w["min_severity"]] if w["min_severity"] else None)
                 for w in fx["wants"]]
        got = _wants_in(src, start, end)
        if got != wants:
            problems.append(f"{name}: wants are now {got}, the record {wants}")
        conditions = [{"describe": c["describe"],
                       "args": ["<ns>" if i and c["kubectl_args"][i - 1] == "-n" else a
                                for i, a in enumerate(c["kubectl_args"])],
                       "contains": c["contains"], "empty": c["empty"]} for c in fx["settle"]]
        got_conditions = _conditions(src, funcs, start, end)
        if got_conditions != conditions:
            problems.append(f"{name}: settle conditions are now {got_conditions}, the record {conditions}")
        for key in ("deployments", "jobs"):
            for obj in fx["objects"].get(key, []):
                for element in obj.get("command", []):
                    if _quote(element) not in joined:
                        problems.append(f"{name}: command element {element!r} of {obj['name']} not in the source")
    assert not problems, "upstream moved; re-read it and update the record and the pack:\n" + "\n".join(problems)


# --------------------------------------------------------------------------------------------
# Every shipped pack
# --------------------------------------------------------------------------------------------

SHIPPED = sorted({p.parent.resolve() for root in (ROOT / "packs", builtin_packs_root())
                  for p in root.glob("*/pack.yaml")})
"""Every pack in the source tree's packs/ and among the built-ins (the same directory, once wired)."""


def test_parity_is_shipped() -> None:
    assert "parity" in {p.name for p in SHIPPED}


@pytest.mark.parametrize("pack_dir", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_shipped_pack_has_a_control_and_clean_prompts(pack_dir: Path) -> None:
    lp = load_pack(str(pack_dir), catalog=builtin_catalog())
    controls = [sc for sc in lp.pack.scenarios if sc.is_control]
    assert controls, f"pack {lp.pack.name} has no control: a subject that reports everything would score perfectly"
    for sc in controls:
        assert sc.also_true == [], f"{sc.id}: a control may not carry also_true"
    vocab = get_vocabulary(lp.pack.vocabulary)
    for sc in lp.pack.scenarios:
        hits = lint_prompt(sc.prompt, vocabulary=vocab, reasons=[r for e in sc.expect for r in e.reasons],
                           kinds=FAILURE_KINDS)
        assert hits == [], f"{sc.id}: the prompt leaks the diagnosis: {', '.join(map(str, hits))}"
