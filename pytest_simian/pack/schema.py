"""JSON Schemas for the pack format and the subject report, generated from the models.

Why: editors validate packs with `# yaml-language-server: $schema=...`, and subject authors need the
report contract in a form their tools read. The committed files under `pytest_simian/schemas/` are
checked against these functions by a test, so they cannot drift.
The kinds are not the models' to know: the schemas enumerate the kinds of the catalogue they are
given (the committed files: the built-in engines', `python -m pytest_simian.engines.generate`), as a
condition on faults whose engine is one of the catalogue's; a third-party engine's kinds are checked
when its pack loads.
Must not: read or write files except through :func:`write_schemas`; import an engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_simian.pack.catalog import Catalog
from pytest_simian.pack.models import DEFAULT_ENGINE, Pack, Scenario

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"

REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Subject report (HealthReport-compatible)",
    "description": (
        "What a subject prints as the last JSON object on stdout. Decoded the way the upstream agent "
        "rig decodes a HealthReport: unknown fields are kept and ignored; severities are free strings "
        "ranked by the exact lowercase table ok < info < warning < critical (anything else ranks 0); a "
        "missing findings list means no findings; a report whose overall_severity and summary are both "
        "empty is no structured report."),
    "type": "object",
    "properties": {
        "overall_severity": {"type": "string", "description": "ok, info, warning or critical (exact, lowercase)",
                             "examples": ["ok", "info", "warning", "critical"]},
        "summary": {"type": "string", "description": "One or two sentences, leading with the severity word."},
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "description": "Kubernetes kind, e.g. Pod, Deployment, Service."},
                    "resource_name": {"type": "string", "description": "The one object's name. Alias: name."},
                    "name": {"type": "string", "description": "Alias of resource_name."},
                    "namespace": {"type": "string", "description": "Empty for cluster-scoped findings."},
                    "reason": {"type": "string", "description": "Stable CamelCase token: CrashLoopBackOff, ..."},
                    "severity": {"type": "string", "description": "info, warning or critical (exact, lowercase)"},
                    "title": {"type": "string"},
                    "detail": {"type": "string"},
                },
                "additionalProperties": True,
            },
        },
        "recommended_actions": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": True,
}


def _with_kinds(schema: dict[str, Any], catalog: Catalog | None) -> dict[str, Any]:
    """Each catalogue engine's kinds as an enum, applied to faults that name that engine (or none, for the
    default engine)."""
    if catalog is None:
        return schema
    fault = schema.get("$defs", {}).get("FaultSpec")
    if fault is None:
        return schema
    rules = []
    for engine in catalog.engines():
        names = sorted(k.name for k in catalog.kinds(engine))
        cond: dict[str, Any] = {"properties": {"engine": {"const": engine}}}
        if engine != DEFAULT_ENGINE:
            cond["required"] = ["engine"]
        rules.append({"if": cond, "then": {"properties": {"kind": {"enum": names}}}})
    fault["allOf"] = rules
    return schema


def pack_schema(catalog: Catalog | None = None) -> dict[str, Any]:
    schema = Pack.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "pytest-simian pack (single-file form)"
    return _with_kinds(schema, catalog)


def scenario_schema(catalog: Catalog | None = None) -> dict[str, Any]:
    schema = Scenario.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "pytest-simian scenario (one file of a pack directory)"
    return _with_kinds(schema, catalog)


def all_schemas(catalog: Catalog | None = None) -> dict[str, dict[str, Any]]:
    return {"pack.schema.json": pack_schema(catalog), "scenario.schema.json": scenario_schema(catalog),
            "report.schema.json": REPORT_SCHEMA}


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_schemas(catalog: Catalog, directory: Path = SCHEMA_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name, schema in all_schemas(catalog).items():
        path = directory / name
        path.write_text(render(schema), encoding="utf-8")
        out.append(path)
    return out
