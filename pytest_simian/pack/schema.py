"""JSON Schemas for the pack format and the subject report, generated from the models.

Why: editors validate packs with `# yaml-language-server: $schema=...`, and subject authors need the
report contract in a form their tools read. The committed files under `pytest_simian/schemas/` are
checked against these functions by a test, so they cannot drift.
Must not: read or write files except through :func:`write_schemas` (used by the test's regenerate
path and `python -m pytest_simian.pack.schema`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_simian.pack.models import Pack, Scenario

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


def pack_schema() -> dict[str, Any]:
    schema = Pack.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "pytest-simian pack (single-file form)"
    return schema


def scenario_schema() -> dict[str, Any]:
    schema = Scenario.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "pytest-simian scenario (one file of a pack directory)"
    return schema


def all_schemas() -> dict[str, dict[str, Any]]:
    return {"pack.schema.json": pack_schema(), "scenario.schema.json": scenario_schema(),
            "report.schema.json": REPORT_SCHEMA}


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_schemas(directory: Path = SCHEMA_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name, schema in all_schemas().items():
        path = directory / name
        path.write_text(render(schema), encoding="utf-8")
        out.append(path)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in write_schemas():
        print(p)
