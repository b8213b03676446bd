"""The committed JSON Schemas are the ones the models generate (regenerate with
`python -m pytest_simian.engines.generate`)."""

from __future__ import annotations

import json

import pytest

from pytest_simian.engines import builtin_catalog
from pytest_simian.pack.schema import SCHEMA_DIR, all_schemas, render


@pytest.mark.parametrize("name", sorted(all_schemas()))
def test_committed_schema_is_current(name: str) -> None:
    committed = (SCHEMA_DIR / name).read_text(encoding="utf-8")
    assert committed == render(all_schemas(builtin_catalog())[name]), (
        f"{name} is stale: run `python -m pytest_simian.engines.generate` and commit the result")


def test_scenario_schema_forbids_unknown_fields() -> None:
    schema = json.loads((SCHEMA_DIR / "scenario.schema.json").read_text())
    assert schema["additionalProperties"] is False
    assert "expect" in schema["properties"] and "also_true" in schema["properties"]


def test_report_schema_keeps_unknown_fields() -> None:
    schema = json.loads((SCHEMA_DIR / "report.schema.json").read_text())
    assert schema["additionalProperties"] is True
    assert schema["properties"]["findings"]["items"]["additionalProperties"] is True
