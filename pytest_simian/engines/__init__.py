"""Fault engines: what a fault kind means, rendered as a bundle the executor applies.

Every fault goes through :mod:`pytest_simian.executor` (validation, arena, lease, apply, efficacy probes,
audit, clear); an engine only supplies `catalog`, `check` and `render` (:mod:`pytest_simian.engines.base`).
"""

from __future__ import annotations

from pytest_simian.engines.base import Engine
from pytest_simian.pack.catalog import Catalog


def builtin_engines() -> list[Engine]:
    """The engines this package ships (registered through the same hook a third party implements)."""
    from pytest_simian.engines.kube_state import KubeStateEngine

    return [KubeStateEngine()]


def builtin_catalog() -> Catalog:
    """The built-in engines' kinds: what the committed JSON Schemas enumerate and tests load packs with."""
    return Catalog.of((e.name, list(e.catalog())) for e in builtin_engines())
