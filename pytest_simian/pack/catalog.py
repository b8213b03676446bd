"""The fault-kind catalogue: which engines exist and which kinds each one renders.

Why: a pack is validated against the kinds the *registered* engines provide, so that a third-party
engine's kinds are checked at load time exactly like the built-in ones, and the prompt lint refuses
every kind name that names a failure, whichever engine it belongs to. The engines own the facts
(each returns its `catalog()`); this module only holds them, so `pack/` never imports an engine.
Must not: import an engine, a cluster or pytest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KindInfo:
    """One fault kind of one engine, as the engine describes it."""

    name: str
    summary: str
    """What the kind renders, in words (docs/engine.md's table is generated from these)."""
    reasons: tuple[str, ...] = ()
    """Reason tokens the fault mechanically causes (status and event reasons, log wording). An object's
    name or label may carry them without counting as a leak."""
    default_probes: str = ""
    """The Settle probes the kind adds when a scenario names none, in words."""
    names_failure: bool = True
    """The kind's name says what is wrong (`OOMKill`): the prompt lint refuses it verbatim. False for
    neutral kinds (`NoOp`, `Manifests`)."""
    takes_manifests: bool = False
    """The fault carries the user's own objects in `manifests` (required then, refused otherwise)."""
    needs_probes: bool = False
    """The kind has no default probes: the fault must name its own."""


class Catalog:
    """Engine name → its kinds. Built from the registered engines; passed into pack validation."""

    def __init__(self, engines: Mapping[str, Sequence[KindInfo]]) -> None:
        self._kinds: dict[str, dict[str, KindInfo]] = {e: {k.name: k for k in kinds} for e, kinds in engines.items()}

    @classmethod
    def of(cls, entries: Iterable[tuple[str, Sequence[KindInfo]]]) -> Catalog:
        return cls(dict(entries))

    def engines(self) -> list[str]:
        return sorted(self._kinds)

    def kinds(self, engine: str) -> list[KindInfo]:
        return list(self._kinds.get(engine, {}).values())

    def kind(self, engine: str, name: str) -> KindInfo | None:
        return self._kinds.get(engine, {}).get(name)

    def failure_kinds(self) -> tuple[str, ...]:
        """Every kind name that names a failure, across engines (what the prompt lint refuses)."""
        return tuple(dict.fromkeys(k.name for kinds in self._kinds.values() for k in kinds.values()
                                   if k.names_failure))

    def context(self) -> dict[str, Any]:
        """The pydantic validation context that makes the pack models check engines and kinds."""
        return {"catalog": self}


KIND_TABLE_START = ("<!-- kinds:start (generated from the engines' catalogue: "
                    "python -m pytest_simian.engines.generate) -->")
KIND_TABLE_END = "<!-- kinds:end -->"


def kind_table(kinds: Sequence[KindInfo]) -> str:
    """The Markdown table docs/engine.md shows for one engine's kinds."""
    lines = ["| kind | synthesizes | default Settle probes | reason tokens it mechanically produces |",
             "|---|---|---|---|"]
    for k in kinds:
        lines.append(f"| {k.name} | {k.summary} | {k.default_probes or '—'} | {', '.join(k.reasons) or '—'} |")
    return "\n".join(lines) + "\n"


def replace_kind_table(doc: str, table: str) -> str:
    """`doc` with the text between the kind-table markers replaced by `table`; ValueError without markers."""
    start, end = doc.find(KIND_TABLE_START), doc.find(KIND_TABLE_END)
    if start < 0 or end < start:
        raise ValueError("the document has no kind-table markers")
    return doc[:start] + KIND_TABLE_START + "\n" + table + doc[end:]
