"""One import point for the sibling modules the store and HTTP layer use (patch, selectors, fieldmanager,
tables, protobuf), plus the last-resort table a printer bug degrades to.

Why: the store and handlers import these names from one place. Must not: grow semantics of its own; fidelity
belongs in the sibling modules.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .fieldmanager import ApplyConflict, record_update
from .fieldmanager import apply as apply_fields
from .patch import PatchError, json_merge_patch, json_patch, strategic_merge_patch
from .protobuf import ProtobufDecodeError, decode_body
from .selectors import SelectorError, label_selector_from_dict, parse_field_selector, parse_label_selector
from .tables import render_table

# --------------------------------------------------------------------------------------------------------------
# The default NAME/AGE table, used only when a printer raises (a printer bug must not become a 500).


def _fb_age(created: str, now: datetime) -> str:
    from .clock import parse_time

    try:
        secs = int((now - parse_time(created)).total_seconds())
    except Exception:
        return "<unknown>"
    if secs < 0:
        return "<invalid>"
    if secs < 120:
        return f"{secs}s"
    mins = secs // 60
    if mins < 10:
        return f"{mins}m{secs % 60}s" if secs % 60 else f"{mins}m"
    if mins < 180:
        return f"{mins}m"
    hours = secs // 3600
    if hours < 8:
        return f"{hours}h{mins % 60}m" if mins % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    return f"{hours // 24}d"


def _fb_render_table(obj_list: list[dict[str, Any]], *, resource: str, group: str, now: datetime,
                     include_object: str = "Metadata") -> dict[str, Any]:
    rows = []
    for obj in obj_list:
        md = obj.get("metadata", {})
        row: dict[str, Any] = {"cells": [md.get("name", ""), _fb_age(md.get("creationTimestamp", ""), now)]}
        if include_object == "Object":
            row["object"] = obj
        elif include_object != "None":
            row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                             "metadata": {k: v for k, v in md.items() if k != "managedFields"}}
        rows.append(row)
    return {
        "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {},
        "columnDefinitions": [
            {"name": "Name", "type": "string", "format": "name", "description": (
                "Name must be unique within a namespace. Is required when creating resources, although some "
                "resources may allow a client to request the generation of an appropriate name automatically. "
                "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
                "updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
            ), "priority": 0},
            {"name": "Created At", "type": "date", "format": "", "description": (
                "CreationTimestamp is a timestamp representing the server time when this object was created. It "
                "is not guaranteed to be set in happens-before order across separate operations. Clients may not "
                "set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. "
                "Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-"
                "architecture/api-conventions.md#metadata"), "priority": 0},
        ],
        "rows": rows,
    }


__all__ = [
    "ApplyConflict", "PatchError", "ProtobufDecodeError", "SelectorError", "apply_fields", "decode_body",
    "label_selector_from_dict",
    "json_merge_patch", "json_patch", "parse_field_selector", "parse_label_selector", "record_update",
    "render_table", "strategic_merge_patch",
]
