"""The subject's report, decoded the way upstream decodes a HealthReport.

Why: scores must be comparable with the upstream agent rig, so the report is read as upstream reads
it (keys matched as Go's json.Unmarshal matches them: exact, else ignoring case):
`overall_severity`, `summary`, `findings[]` (`kind`, `resource_name` alias `name`, `namespace`,
`reason`, `severity`, `title`, `detail`). Unknown fields are kept (and ignored); severities are free
strings ranked by upstream's exact lowercase table; a missing `findings` means no findings; a report
whose `overall_severity` and `summary` are both empty is no structured report. A wrapper object with
a single key whose value holds `overall_severity` is unwrapped, as upstream does with tool arguments.
Must not: do I/O, or refuse a report for having extra fields.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

SEVERITY_RANK = {"ok": 0, "info": 1, "warning": 2, "critical": 3}
"""Upstream's exact lowercase table. Anything else (`Critical`, `high`) ranks 0."""


def rank(severity: str) -> int:
    return SEVERITY_RANK.get(severity, 0)


@dataclass(frozen=True)
class Finding:
    kind: str = ""
    resource_name: str = ""
    namespace: str = ""
    reason: str = ""
    severity: str = ""
    title: str = ""
    detail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        return f"{self.reason or '?'}({self.kind or '?'}/{self.resource_name or '?'})"


@dataclass(frozen=True)
class Report:
    overall_severity: str
    summary: str
    findings: tuple[Finding, ...]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DecodedReport:
    """The outcome of decoding: a structured report, or why there is none."""

    report: Report | None
    why: str = ""

    @property
    def structured(self) -> bool:
        return self.report is not None


_FINDING_FIELDS = ("kind", "resource_name", "namespace", "reason", "severity", "title", "detail")


def decode_report(obj: Any) -> DecodedReport:
    """Decode a JSON value into a Report, or say why it is not a structured report."""
    if not isinstance(obj, dict):
        return DecodedReport(None, "the report is not a JSON object")
    if len(obj) == 1:
        (inner,) = obj.values()
        if isinstance(inner, dict) and _has(inner, "overall_severity"):
            obj = inner
    try:
        overall = _string(obj, "overall_severity", "overall_severity")
        summary = _string(obj, "summary", "summary")
        raw_findings = json_key(obj, "findings")
        if raw_findings is None:
            raw_findings = []
        if not isinstance(raw_findings, list):
            raise _ShapeError("findings is not a list")
        findings = []
        for i, raw in enumerate(raw_findings):
            if not isinstance(raw, dict):
                raise _ShapeError(f"findings[{i}] is not an object")
            values = {}
            for name in _FINDING_FIELDS:
                key = name
                if name == "resource_name" and not _has(raw, "resource_name") and _has(raw, "name"):
                    key = "name"
                values[name] = _string(raw, key, f"findings[{i}].{key}")
            extra = {k: v for k, v in raw.items() if k.lower() not in _FINDING_FIELDS and k.lower() != "name"}
            findings.append(Finding(**values, extra=extra))
    except _ShapeError as exc:
        return DecodedReport(None, f"the report does not have the HealthReport shape: {exc}")
    if not overall and not summary:
        return DecodedReport(None, "the report has neither overall_severity nor summary")
    extra = {k: v for k, v in obj.items() if k.lower() not in ("overall_severity", "summary", "findings")}
    return DecodedReport(Report(overall, summary, tuple(findings), extra))


class _ShapeError(Exception):
    pass


def json_key(obj: dict[str, Any], key: str) -> Any:
    """Go's json.Unmarshal matching: the exact key if present, else the first key equal ignoring case."""
    if key in obj:
        return obj[key]
    low = key.lower()
    for k, v in obj.items():
        if k.lower() == low:
            return v
    return None


def _has(obj: dict[str, Any], key: str) -> bool:
    low = key.lower()
    return any(k.lower() == low for k in obj)


def _string(obj: dict[str, Any], key: str, where: str) -> str:
    value = json_key(obj, key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _ShapeError(f"{where} is {type(value).__name__}, not a string")
    return value


def last_json_object(text: str) -> Any | None:
    """The last top-level JSON object in `text` (a subject may narrate before its report).

    Scans forward: at each `{` try to decode a value; a decoded object is skipped whole, so an
    object nested inside the report is never mistaken for it.
    """
    decoder = json.JSONDecoder()
    found: Any | None = None
    idx = text.find("{")
    while idx != -1:
        try:
            value, end = decoder.raw_decode(text, idx)
        except ValueError:
            idx = text.find("{", idx + 1)
            continue
        if isinstance(value, dict):
            found = value
        idx = text.find("{", end)
    return found
