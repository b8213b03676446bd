"""Known-field checking for built-in kinds (``fieldValidation``), from the Python client's model tables.

Why: a manifest with a typo must meet the real API server's answer: 400 ``strict decoding error: unknown
field "spec.foo"`` under ``fieldValidation=Strict`` (what kubectl sends), a ``Warning`` header and a pruned
object under ``Warn`` (the server default), silent pruning under ``Ignore``, and for server-side apply
``failed to create typed patch object (...): .spec.foo: field not declared in schema``. The field tables come
from the pinned ``kubernetes`` client's generated models (``openapi_types``/``attribute_map``), which are
generated from the upstream OpenAPI, so no schema is hand-written here.
Must not: validate values (types, formats, enums); only field names.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from kubernetes.client import models

_LIST = re.compile(r"^List\[(.+)\]$")
_DICT = re.compile(r"^Dict\[str, (.+)\]$")
_SKIP_PREFIX = ("$setElementOrder/", "$deleteFromPrimitiveList/", "$retainKeys", "$patch")


@cache
def _fields(model: str) -> dict[str, str] | None:
    """JSON key -> type string for a model class name, or None when unknown."""
    cls = getattr(models, model, None)
    if cls is None or not hasattr(cls, "openapi_types"):
        return None
    return {cls.attribute_map[a]: t for a, t in cls.openapi_types.items()}


def model_for(api_version: str, kind: str) -> str | None:
    group, _, version = api_version.rpartition("/")
    v = version.capitalize()
    cands = [f"{v}{kind}"]
    if group == "":
        cands.insert(0, f"Core{v}{kind}")
    else:
        g = group.split(".")[0]
        cands.insert(0, f"{g.capitalize()}{v}{kind}")
    for c in cands:
        if _fields(c) is not None:
            return c
    return None


def _walk(value: Any, typ: str, path: str, out: list[str], *, ssa: bool, prune: bool) -> Any:
    m = _LIST.match(typ)
    if m:
        if not isinstance(value, list):
            return value
        inner = m.group(1)
        res = []
        for i, item in enumerate(value):
            if ssa and isinstance(item, dict) and "name" in item:
                seg = f'[name="{item["name"]}"]'
            else:
                seg = f"[{i}]"
            res.append(_walk(item, inner, path + seg, out, ssa=ssa, prune=prune))
        return res
    m = _DICT.match(typ)
    if m:
        if not isinstance(value, dict):
            return value
        inner = m.group(1)
        return {k: _walk(v, inner, f"{path}.{k}" if path or not ssa else f".{k}", out, ssa=ssa, prune=prune)
                for k, v in value.items()}
    fields = _fields(typ)
    if fields is None or not isinstance(value, dict):
        return value  # scalar, 'object' (free-form), or an unknown model
    res_d: dict[str, Any] = {}
    for k, v in value.items():
        if k.startswith(_SKIP_PREFIX):
            res_d[k] = v
            continue
        sub = (f"{path}.{k}" if path else k) if not ssa else f"{path}.{k}"
        if k not in fields:
            out.append(sub)
            if not prune:
                res_d[k] = v
            continue
        res_d[k] = _walk(v, fields[k], sub, out, ssa=ssa, prune=prune)
    return res_d


def unknown_fields(api_version: str, kind: str, obj: dict[str, Any], *, ssa: bool = False) -> list[str]:
    """Paths of fields the kind does not declare: ``spec.foo`` (strict decoding style) or ``.spec.foo``
    (``ssa=True``, structured-merge-diff style, keyed list items as ``[name="x"]``)."""
    model = model_for(api_version, kind)
    if model is None:
        return []
    out: list[str] = []
    _walk(obj, model, "", out, ssa=ssa, prune=False)
    return out


def prune(api_version: str, kind: str, obj: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The object without undeclared fields, and their paths."""
    model = model_for(api_version, kind)
    if model is None:
        return obj, []
    out: list[str] = []
    pruned = _walk(obj, model, "", out, ssa=False, prune=True)
    return pruned, out
