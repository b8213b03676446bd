"""run.json: the run's manifest and, at the end, its summary, as one versioned model.

Why: run.json holds the resolved expectations every verdict is computed from (live and offline), the
options that change scoring, the executor's policy, the cluster identity and each attempt's outcome. It
is written and read only through :func:`write_run_document` and :func:`read_run_document`, so a field
has one definition and a run written by a newer plugin is refused rather than misread. Later versions
extend the model; version 1 (before the executor's policy was recorded) still reads.
Must not: score, or hold anything a subject could use (it is never shown to one).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

RUN_FORMAT: Final = "pytest-simian/run"
RUN_VERSION = 2
"""2: adds `executor` (the policy the executor enforced)."""


class RunDocumentError(Exception):
    """run.json is missing, unreadable, not ours, or newer than this plugin reads."""


class RunDocument(BaseModel):
    """run.json. Nested entries stay plain JSON: their producers and readers are named per field."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["pytest-simian/run"] = RUN_FORMAT
    version: int = RUN_VERSION
    plugin_version: str = ""
    started_at: str = ""
    ended_at: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    """The parsed `--simian-*` options (options.py)."""
    gate: str = ""
    min_efficacy: float = 0.8
    executor: dict[str, Any] = Field(default_factory=dict)
    """The executor's policy: permitted tiers, duration ceiling, concurrency cap (executor/policy.py)."""
    vocabularies: dict[str, Any] = Field(default_factory=dict)
    packs: list[dict[str, Any]] = Field(default_factory=list)
    scenarios: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Scenario id → its resolved ground truth, prompt, namespaces and faults (what scoring reads)."""
    subjects: list[dict[str, Any]] = Field(default_factory=list)
    kubectl: dict[str, Any] | None = None
    clusters: list[dict[str, Any]] = Field(default_factory=list)
    attempts: dict[str, dict[str, Any]] = Field(default_factory=dict)
    efficacy: dict[str, Any] | None = None
    exit_status: int | None = None
    rescored_from: str | None = None
    rescored_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def parse_run_document(data: Any, *, where: str = "run.json") -> RunDocument:
    if not isinstance(data, dict):
        raise RunDocumentError(f"{where}: not a JSON object")
    if data.get("format") != RUN_FORMAT:
        raise RunDocumentError(f"{where}: not a pytest-simian run (format {data.get('format')!r})")
    try:
        version = int(data.get("version", 0))
    except (TypeError, ValueError):
        raise RunDocumentError(f"{where}: version {data.get('version')!r} is not a number") from None
    if version > RUN_VERSION:
        raise RunDocumentError(f"{where}: run format v{version} is newer than this plugin reads")
    try:
        return RunDocument.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise RunDocumentError(f"{where}: {field}: {err['msg']}") from None


def read_run_document(path: Path) -> RunDocument:
    if not path.is_file():
        raise RunDocumentError(f"{path.parent} is not a simian run directory (no run.json)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RunDocumentError(f"{path}: unreadable run.json: {exc}") from None
    return parse_run_document(data, where=str(path))


def write_run_document(path: Path, doc: RunDocument | dict[str, Any]) -> RunDocument:
    """Validate and write atomically (a reader never sees half a file). Returns what was written."""
    model = doc if isinstance(doc, RunDocument) else RunDocument.model_validate(doc)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(model.to_json(), indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return model
