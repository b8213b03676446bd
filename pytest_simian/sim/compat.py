"""Seams to the sibling modules (patch, selectors, fieldmanager, tables, protobuf), with small fallbacks.

Why: the store and HTTP layer were written in parallel with those modules. Everything imports the names
below from here; when a sibling module exists its implementation is used, otherwise a deliberately simple
fallback keeps the server usable (the fallbacks are approximations, not the real semantics).
Must not: grow real semantics. Fidelity belongs in the sibling modules.
"""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime
from typing import Any

# --------------------------------------------------------------------------------------------------------------
# patches


class _FallbackPatchError(ValueError):
    pass


def _fb_merge(obj: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(obj) if isinstance(obj, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = _fb_merge(out.get(k), v)
    return out


def _fb_json_merge_patch(obj: dict[str, Any], patch: Any) -> dict[str, Any]:
    if not isinstance(patch, dict):
        raise _FallbackPatchError("merge patch must be an object")
    return _fb_merge(obj, patch)


def _ptr(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise _FallbackPatchError(f"invalid JSON pointer: {path}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _fb_json_patch(obj: dict[str, Any], ops: Any) -> dict[str, Any]:
    if not isinstance(ops, list):
        raise _FallbackPatchError("json patch must be a list of operations")
    doc: Any = copy.deepcopy(obj)

    def parent(parts: list[str]) -> tuple[Any, str]:
        cur = doc
        for p in parts[:-1]:
            cur = cur[int(p)] if isinstance(cur, list) else cur[p]
        return cur, parts[-1]

    def get(path: str) -> Any:
        cur = doc
        for p in _ptr(path):
            cur = cur[int(p)] if isinstance(cur, list) else cur[p]
        return cur

    for op in ops:
        kind, path = op.get("op"), op.get("path", "")
        try:
            if kind in ("add", "replace", "remove"):
                par, last = parent(_ptr(path))
                if isinstance(par, list):
                    idx = len(par) if last == "-" else int(last)
                    if kind == "add":
                        par.insert(idx, copy.deepcopy(op["value"]))
                    elif kind == "replace":
                        par[idx] = copy.deepcopy(op["value"])
                    else:
                        del par[idx]
                else:
                    if kind in ("replace", "remove") and last not in par:
                        raise _FallbackPatchError(
                            f"{'replace' if kind == 'replace' else 'remove'} operation does not apply: doc is "
                            f"missing path: {path}")
                    if kind == "remove":
                        del par[last]
                    else:
                        par[last] = copy.deepcopy(op["value"])
            elif kind == "test":
                if get(path) != op.get("value"):
                    raise _FallbackPatchError(f"testing value {path} failed")
            elif kind in ("move", "copy"):
                val = copy.deepcopy(get(op["from"]))
                if kind == "move":
                    par, last = parent(_ptr(op["from"]))
                    del par[int(last) if isinstance(par, list) else last]
                par, last = parent(_ptr(path))
                if isinstance(par, list):
                    par.insert(len(par) if last == "-" else int(last), val)
                else:
                    par[last] = val
            else:
                raise _FallbackPatchError(f"Unexpected kind: {kind}")
        except (KeyError, IndexError, ValueError, TypeError) as e:
            if isinstance(e, _FallbackPatchError):
                raise
            raise _FallbackPatchError(f"{kind} operation does not apply: doc is missing path: {path}") from None
    return doc  # type: ignore[no-any-return]


_LIST_KEYS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name", "env": "name",
    "volumes": "name", "volumeMounts": "mountPath", "ports": "containerPort", "conditions": "type",
    "imagePullSecrets": "name", "hostAliases": "ip", "tolerations": "key", "envFrom": "",
}


def _fb_smp(obj: Any, patch: Any, field: str = "") -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: v for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    out = dict(obj) if isinstance(obj, dict) else {}
    for k, v in patch.items():
        if k.startswith("$"):
            continue
        if k.startswith("$setElementOrder/") or k.startswith("$deleteFromPrimitiveList/"):
            continue
        if v is None:
            out.pop(k, None)
            continue
        key = _LIST_KEYS.get(k)
        if k == "ports" and isinstance(v, list) and v and isinstance(v[0], dict) and "port" in v[0]:
            key = "port"
        if key and isinstance(v, list) and isinstance(out.get(k), list):
            merged = [copy.deepcopy(x) for x in out[k]]
            for item in v:
                if not isinstance(item, dict) or key not in item:
                    merged.append(copy.deepcopy(item))
                    continue
                idx = next((i for i, x in enumerate(merged) if isinstance(x, dict) and x.get(key) == item[key]),
                           None)
                if item.get("$patch") == "delete":
                    if idx is not None:
                        merged.pop(idx)
                elif idx is None:
                    merged.append({a: b for a, b in item.items() if a != "$patch"})
                else:
                    merged[idx] = _fb_smp(merged[idx], item, k)
            out[k] = merged
        else:
            out[k] = _fb_smp(out.get(k), v, k)
    return out


def _fb_strategic(obj: dict[str, Any], patch: Any, *, api_version: str, kind: str) -> dict[str, Any]:
    if not isinstance(patch, dict):
        raise _FallbackPatchError("strategic merge patch must be an object")
    return _fb_smp(obj, patch)  # type: ignore[no-any-return]


try:
    from .patch import PatchError, json_merge_patch, json_patch, strategic_merge_patch
except ImportError:  # pragma: no cover - used only until patch.py exists
    PatchError = _FallbackPatchError  # type: ignore[assignment,misc]
    json_merge_patch = _fb_json_merge_patch
    json_patch = _fb_json_patch
    strategic_merge_patch = _fb_strategic

# --------------------------------------------------------------------------------------------------------------
# selectors


class _FallbackSelectorError(ValueError):
    pass


class _LabelSel:
    def __init__(self, reqs: list[tuple[str, str, list[str]]]) -> None:
        self.reqs = reqs

    def matches(self, labels: dict[str, str]) -> bool:
        for key, op, vals in self.reqs:
            has = key in labels
            v = labels.get(key)
            if op in ("=", "==", "in") and (not has or v not in vals):
                return False
            if op in ("!=", "notin") and has and v in vals:
                return False
            if op == "exists" and not has:
                return False
            if op == "!" and has:
                return False
        return True


def _split_terms(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [t.strip() for t in out if t.strip()]


def _fb_parse_label_selector(s: str) -> _LabelSel:
    reqs: list[tuple[str, str, list[str]]] = []
    for term in _split_terms(s):
        m = re.match(r"^([\w./-]+)\s+(in|notin)\s+\((.*)\)$", term)
        if m:
            reqs.append((m.group(1), m.group(2), [v.strip() for v in m.group(3).split(",") if v.strip()]))
            continue
        m = re.match(r"^([\w./-]+)\s*(==|!=|=)\s*([\w./-]*)$", term)
        if m:
            reqs.append((m.group(1), m.group(2), [m.group(3)]))
            continue
        if term.startswith("!"):
            reqs.append((term[1:].strip(), "!", []))
            continue
        if re.match(r"^[\w./-]+$", term):
            reqs.append((term, "exists", []))
            continue
        raise _FallbackSelectorError(f"unable to parse requirement: {term}")
    return _LabelSel(reqs)


class _FieldSel:
    def __init__(self, reqs: list[tuple[str, str, str]]) -> None:
        self.reqs = reqs

    def matches(self, obj: dict[str, Any]) -> bool:
        for path, op, val in self.reqs:
            cur: Any = obj
            for p in path.split("."):
                cur = cur.get(p) if isinstance(cur, dict) else None
            s = "" if cur is None else (str(cur).lower() if isinstance(cur, bool) else str(cur))
            if (op == "!=") == (s == val):
                return False
        return True


def _fb_parse_field_selector(s: str, *, resource: str) -> _FieldSel:
    reqs = []
    for term in _split_terms(s):
        m = re.match(r"^([\w.]+)\s*(==|!=|=)\s*(.*)$", term)
        if not m:
            raise _FallbackSelectorError(f"invalid selector: '{s}'; can't understand '{term}'")
        reqs.append((m.group(1), m.group(2), m.group(3)))
    return _FieldSel(reqs)


def _fb_label_selector_from_dict(d: dict[str, Any] | None) -> _LabelSel:
    reqs: list[tuple[str, str, list[str]]] = [(k, "=", [v]) for k, v in ((d or {}).get("matchLabels") or {}).items()]
    ops = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}
    for e in (d or {}).get("matchExpressions") or []:
        reqs.append((e["key"], ops[e["operator"]], list(e.get("values") or [])))
    return _LabelSel(reqs)


try:
    from .selectors import SelectorError, label_selector_from_dict, parse_field_selector, parse_label_selector
except ImportError:  # pragma: no cover
    label_selector_from_dict = _fb_label_selector_from_dict  # type: ignore[assignment]
    SelectorError = _FallbackSelectorError  # type: ignore[assignment,misc]
    parse_label_selector = _fb_parse_label_selector  # type: ignore[assignment]
    parse_field_selector = _fb_parse_field_selector  # type: ignore[assignment]

# --------------------------------------------------------------------------------------------------------------
# field manager (server-side apply, managedFields)


class _FallbackApplyConflict(Exception):
    def __init__(self, conflicts: list[tuple[str, str]], message: str) -> None:
        super().__init__(message)
        self.conflicts = conflicts
        self.message = message


def _fields_of(obj: Any) -> dict[str, Any]:
    if not isinstance(obj, dict):
        return {}
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out[f"f:{k}"] = _fields_of(v)
        elif isinstance(v, list) and v and all(isinstance(x, dict) and "name" in x for x in v):
            out[f"f:{k}"] = {f'k:{{"name":"{x["name"]}"}}': {".": {}, **_fields_of(x)} for x in v}
        else:
            out[f"f:{k}"] = {}
    return out


def _managed_set(obj: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata", "status")}
    md = obj.get("metadata") or {}
    meta = {k: md[k] for k in ("labels", "annotations", "finalizers", "ownerReferences") if k in md}
    fs = _fields_of(body)
    if meta:
        fs["f:metadata"] = _fields_of(meta)
    return fs


def _entry(manager: str, operation: str, api_version: str, now: str, fields: dict[str, Any],
           subresource: str = "") -> dict[str, Any]:
    e = {"manager": manager, "operation": operation, "apiVersion": api_version, "time": now,
         "fieldsType": "FieldsV1", "fieldsV1": fields}
    if subresource:
        e["subresource"] = subresource
    return e


def _fb_record_update(old: dict[str, Any] | None, new: dict[str, Any], *, manager: str, operation: str,
                      subresource: str = "", api_version: str, now: str,
                      kind: str | None = None) -> list[dict[str, Any]]:
    entries = copy.deepcopy((old or new).get("metadata", {}).get("managedFields") or []) if old else []
    if old is not None:
        o = {k: v for k, v in old.items() if k != "metadata"}
        n = {k: v for k, v in new.items() if k != "metadata"}
        om = {k: v for k, v in old["metadata"].items() if k not in ("managedFields", "resourceVersion")}
        nm = {k: v for k, v in new["metadata"].items() if k not in ("managedFields", "resourceVersion")}
        if o == n and om == nm:
            return entries
    fields = _fields_of({"status": new.get("status")}) if subresource == "status" else _managed_set(new)
    entries = [e for e in entries if not (e.get("manager") == manager and e.get("operation") == operation
                                          and e.get("subresource", "") == subresource)]
    entries.append(_entry(manager, operation, api_version, now, fields, subresource))
    return entries


def _fb_apply(live: dict[str, Any] | None, applied: dict[str, Any], *, manager: str, force: bool,
              api_version: str, kind: str, now: str, subresource: str = "") -> dict[str, Any]:
    base = copy.deepcopy(live) if live else {}
    result = _fb_smp(base, {k: v for k, v in applied.items() if k != "status"})
    md = result.setdefault("metadata", {})
    entries = [e for e in (live or {}).get("metadata", {}).get("managedFields") or []
               if not (e.get("manager") == manager and e.get("operation") == "Apply")]
    prev = next((e for e in (live or {}).get("metadata", {}).get("managedFields") or []
                 if e.get("manager") == manager and e.get("operation") == "Apply"), None)
    fields = _managed_set(applied)
    t = prev["time"] if prev and prev.get("fieldsV1") == fields and result == live else now
    entries.append(_entry(manager, "Apply", api_version, t, fields))
    md["managedFields"] = entries
    return result  # type: ignore[no-any-return]


try:
    from .fieldmanager import ApplyConflict, record_update
    from .fieldmanager import apply as apply_fields
except ImportError:  # pragma: no cover
    ApplyConflict = _FallbackApplyConflict  # type: ignore[assignment,misc]
    apply_fields = _fb_apply
    record_update = _fb_record_update

# --------------------------------------------------------------------------------------------------------------
# tables


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


try:
    from .tables import render_table
except ImportError:  # pragma: no cover
    render_table = _fb_render_table  # type: ignore[assignment]

# --------------------------------------------------------------------------------------------------------------
# protobuf request bodies


class _FallbackProtobufError(ValueError):
    pass


def _fb_decode_body(data: bytes) -> dict[str, Any]:
    raise _FallbackProtobufError("protobuf request bodies are not supported yet")


try:
    from .protobuf import ProtobufDecodeError, decode_body
except ImportError:  # pragma: no cover
    ProtobufDecodeError = _FallbackProtobufError  # type: ignore[assignment,misc]
    decode_body = _fb_decode_body

__all__ = [
    "ApplyConflict", "PatchError", "ProtobufDecodeError", "SelectorError", "apply_fields", "decode_body",
    "label_selector_from_dict",
    "json_merge_patch", "json_patch", "parse_field_selector", "parse_label_selector", "record_update",
    "render_table", "strategic_merge_patch",
]
_ = json  # kept for fallbacks that may need it
