"""`python -m pytest_simian.engines.generate`: rewrite what is generated from the built-in engines' catalogue.

Why: the kinds have one home, the engines' `catalog()`; the committed JSON Schemas (an enum of the built-in
kinds) and the kind table in docs/engine.md are generated from it, and tests fail when either is stale
(tests/foundation/test_schemas.py, tests/engine/test_render.py).
Must not: be imported by the plugin.
"""

from __future__ import annotations

from pathlib import Path

from pytest_simian.engines import builtin_catalog
from pytest_simian.pack.catalog import kind_table, replace_kind_table
from pytest_simian.pack.schema import write_schemas

ENGINE_DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"


def engine_doc_text(doc: str) -> str:
    return replace_kind_table(doc, kind_table(builtin_catalog().kinds("kube-state")))


if __name__ == "__main__":  # pragma: no cover
    for p in write_schemas(builtin_catalog()):
        print(p)
    if ENGINE_DOC.is_file():
        ENGINE_DOC.write_text(engine_doc_text(ENGINE_DOC.read_text(encoding="utf-8")), encoding="utf-8")
        print(ENGINE_DOC)
