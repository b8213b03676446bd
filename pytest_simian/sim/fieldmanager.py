"""Server-side apply and managedFields bookkeeping, as sigs.k8s.io/structured-merge-diff does it.

Why: ``kubectl apply --server-side``, ``kubectl create``/``edit``/``patch`` and every controller write leave
``metadata.managedFields`` behind, and server-side apply decides from them what a field manager may change
(conflicts), what it stops owning and what it removes. A subject investigating a cluster may read those entries
(``kubectl get -o yaml --show-managed-fields``) and kubectl's own apply path depends on the conflict answers,
so this module reproduces the upstream rules:

* :func:`apply` merges an applied configuration into the live object (``Updater.Apply``): associative lists by
  their keys (:mod:`listkeys`), atomic lists and maps replaced, fields the manager applied before and omits now
  removed unless someone else still owns them, conflicts with other managers refused unless forced;
* :func:`record_update` records a non-apply write (``Updater.Update`` through the apiserver's
  ``managedFieldsUpdater``): the writer gains the fields it changed, the others lose them.

Field sets are kept as Python sets of paths, a path being a tuple of FieldsV1 path elements
(``f:name``, ``k:{"name":"c"}``, ``v:"x"``, ``i:0``), and are read from and written to the FieldsV1 JSON.

Must not: do I/O, talk HTTP, bump resourceVersion or generation, or mutate its arguments.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from typing import Any

from pytest_simian.sim import listkeys
from pytest_simian.sim.listkeys import FieldSpec
from pytest_simian.sim.patch import PatchError

__all__ = [
    "ApplyConflict",
    "ApplyError",
    "apply",
    "record_update",
    "fields_to_set",
    "set_to_fields",
    "path_string",
    "BEFORE_FIRST_APPLY",
    "MAX_UPDATE_MANAGERS",
]

Path = tuple[str, ...]
FieldSet = set[Path]

BEFORE_FIRST_APPLY = "before-first-apply"
ANCIENT_CHANGES = "ancient-changes"
MAX_UPDATE_MANAGERS = 10

# Never owned by anyone (the apiserver's stripMetaManager). Removed exactly, not recursively.
_STRIP: frozenset[Path] = frozenset(
    {
        ("f:apiVersion",),
        ("f:kind",),
        ("f:metadata",),
        ("f:metadata", "f:name"),
        ("f:metadata", "f:namespace"),
        ("f:metadata", "f:creationTimestamp"),
        ("f:metadata", "f:selfLink"),
        ("f:metadata", "f:uid"),
        ("f:metadata", "f:clusterName"),
        ("f:metadata", "f:generation"),
        ("f:metadata", "f:managedFields"),
        ("f:metadata", "f:resourceVersion"),
    }
)
# Server-set metadata that an applied configuration cannot set.
_CONFIG_DROP_META = ("uid", "creationTimestamp", "generation", "managedFields", "selfLink", "resourceVersion")


class ApplyError(PatchError):
    """An applied configuration the API server refuses (malformed lists, managedFields set, ...).

    A :class:`PatchError` (so callers catching patch errors catch it too); ``code``/``reason`` are the
    API server's: 500 with no reason for configurations that cannot be typed, 400 BadRequest otherwise.
    """

    def __init__(self, message: str, *, code: int = 500, reason: str = "") -> None:
        super().__init__(message, code=code, reason=reason)


class ApplyConflict(Exception):
    """Apply refused because other managers own fields the configuration changes (HTTP 409 Conflict).

    ``conflicts``: (manager, path) pairs, the path printed like ``.spec.replicas``; ``message`` the API server's
    text; ``causes`` the Status ``details.causes`` (reason FieldManagerConflict).
    """

    code = 409
    reason = "Conflict"

    def __init__(self, conflicts: list[tuple[str, str]], message: str, causes: list[dict[str, str]]) -> None:
        super().__init__(message)
        self.conflicts = conflicts
        self.message = message
        self.causes = causes


# ---------------------------------------------------------------------------------------------------------------
# Path elements
# ---------------------------------------------------------------------------------------------------------------


def _json(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _pe_field(name: str) -> str:
    return "f:" + name


def _pe_value(v: Any) -> str:
    return "v:" + _json(v)


def _pe_key(fields: dict[str, Any]) -> str:
    return "k:" + _json({k: fields[k] for k in sorted(fields)})


def _value_order(v: Any) -> tuple:
    if isinstance(v, bool):
        return (2, v)
    if isinstance(v, (int, float)):
        return (0, v)
    if isinstance(v, str):
        return (1, v)
    if isinstance(v, list):
        return (3, [_value_order(x) for x in v])
    if isinstance(v, dict):
        return (4, sorted((k, _value_order(x)) for k, x in v.items()))
    return (5, 0)


def _pe_order(pe: str) -> tuple:
    kind, _, rest = pe.partition(":")
    if kind == "f":
        return (0, rest)
    if kind == "k":
        try:
            d = json.loads(rest)
            return (1, [(k, _value_order(d[k])) for k in sorted(d)])
        except ValueError:
            return (1, [(rest, (5, 0))])
    if kind == "v":
        try:
            return (2, _value_order(json.loads(rest)))
        except ValueError:
            return (2, (5, 0))
    if kind == "i":
        try:
            return (3, int(rest))
        except ValueError:
            return (3, 0)
    return (4, pe)


def _go_value(v: Any) -> str:
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    return _json(v)


def path_string(path: Path) -> str:
    """A path as structured-merge-diff prints it: ``.spec.template.spec.containers[name="c"].image``."""
    out = []
    for pe in path:
        kind, _, rest = pe.partition(":")
        if kind == "f":
            out.append("." + rest)
        elif kind == "k":
            d = json.loads(rest)
            out.append("[" + ",".join(f"{k}={_go_value(d[k])}" for k in sorted(d)) + "]")
        elif kind == "v":
            out.append("[=" + _go_value(json.loads(rest)) + "]")
        elif kind == "i":
            out.append(f"[{rest}]")
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------------
# FieldsV1 <-> set of paths
# ---------------------------------------------------------------------------------------------------------------


def fields_to_set(fields: Mapping[str, Any] | None) -> FieldSet:
    """Decode a FieldsV1 object into a set of paths."""
    out: FieldSet = set()

    def walk(node: Mapping[str, Any], prefix: Path) -> None:
        for key, sub in node.items():
            if key == ".":
                if prefix:
                    out.add(prefix)
                continue
            path = prefix + (key,)
            if not isinstance(sub, Mapping) or not sub:
                out.add(path)
            else:
                walk(sub, path)

    if fields:
        walk(fields, ())
    return out


def set_to_fields(paths: Iterable[Path]) -> dict[str, Any]:
    """Encode a set of paths as FieldsV1 (``.`` first, then elements in structured-merge-diff order)."""
    trie: dict[str, Any] = {}
    members: set[Path] = set()
    for p in paths:
        if not p:
            continue
        members.add(p)
        node = trie
        for pe in p:
            node = node.setdefault(pe, {})

    def emit(node: dict[str, Any], prefix: Path) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if prefix and prefix in members and node:
            out["."] = {}
        for pe in sorted(node, key=_pe_order):
            out[pe] = emit(node[pe], prefix + (pe,))
        return out

    return emit(trie, ())


# ---------------------------------------------------------------------------------------------------------------
# Schema walking
# ---------------------------------------------------------------------------------------------------------------

_SCALAR = FieldSpec("scalar")


def _root(api_version: str, kind: str) -> FieldSpec:
    return FieldSpec("struct", listkeys.root_type(api_version, kind))


def _child_spec(parent: FieldSpec, key: str, value: Any) -> FieldSpec:
    if parent.kind == "map":
        if parent.type is not None and parent.type != listkeys.DEDUCED:
            return FieldSpec("struct", parent.type)
        return listkeys.field_spec(parent.type, key, value) if isinstance(value, (dict, list)) else _SCALAR
    return listkeys.field_spec(parent.type, key, value)


def _element_spec(list_spec: FieldSpec) -> FieldSpec:
    if list_spec.list_type == "map":
        return FieldSpec("struct", list_spec.type or listkeys.UNKNOWN_STRUCT)
    return _SCALAR


def _is_leaf(spec: FieldSpec, value: Any) -> bool:
    if spec.kind == "scalar" or spec.atomic:
        return True
    if spec.kind == "list":
        return spec.list_type == "atomic" or not isinstance(value, list)
    return not isinstance(value, dict)


class _KeyError(Exception):
    pass


def _item_pe(spec: FieldSpec, item: Any, *, strict: bool) -> str:
    if spec.list_type == "set":
        return _pe_value(item)
    if not isinstance(item, dict):
        raise _KeyError("expected a map")
    fields: dict[str, Any] = {}
    for k in spec.list_keys:
        if k in item and item[k] is not None:
            fields[k] = item[k]
        elif k in spec.key_defaults:
            fields[k] = spec.key_defaults[k]
        elif strict:
            raise _KeyError(
                f'associative list with keys has an element that omits key field "{k}" (and doesn\'t have default '
                "value)"
            )
        else:
            raise _KeyError("missing key")
    return _pe_key(fields)


def _list_items(spec: FieldSpec, lst: list, *, strict: bool, where: Path = ()) -> list[tuple[str | None, Any]]:
    """(path element, item) pairs; items that cannot be keyed get None (kept as they are, never owned)."""
    out: list[tuple[str | None, Any]] = []
    seen: set[str] = set()
    for i, item in enumerate(lst):
        try:
            pe = _item_pe(spec, item, strict=strict)
        except _KeyError as e:
            if strict:
                raise ApplyError(f"{path_string(where)}: element {i}: {e}") from None
            out.append((None, item))
            continue
        if pe in seen:
            if strict:
                raise ApplyError(f"{path_string(where)}: duplicate entries for key {path_string((pe,))}")
            out.append((None, item))
            continue
        seen.add(pe)
        out.append((pe, item))
    return out


def _children(
    spec: FieldSpec, value: Any, *, strict: bool = False, where: Path = ()
) -> list[tuple[str, Any, FieldSpec]]:
    """The addressable children of a granular container: (path element, value, spec)."""
    if isinstance(value, dict):
        return [(_pe_field(k), v, _child_spec(spec, k, v)) for k, v in value.items()]
    if isinstance(value, list):
        el = _element_spec(spec)
        return [(pe, item, el) for pe, item in _list_items(spec, value, strict=strict, where=where) if pe is not None]
    return []


# ---------------------------------------------------------------------------------------------------------------
# ToFieldSet, Merge, Compare, RemoveItems
# ---------------------------------------------------------------------------------------------------------------


def _to_field_set(value: Any, spec: FieldSpec, path: Path, out: FieldSet, *, strict: bool) -> None:
    if path and _is_leaf(spec, value):
        out.add(path)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            cs = _child_spec(spec, k, v)
            cp = path + (_pe_field(k),)
            _to_field_set(v, cs, cp, out, strict=strict)
            if spec.kind == "map" or v is None or (isinstance(v, dict) and not v):
                out.add(cp)
    elif isinstance(value, list):
        el = _element_spec(spec)
        for pe, item in _list_items(spec, value, strict=strict, where=path):
            if pe is None:
                continue
            cp = path + (pe,)
            _to_field_set(item, el, cp, out, strict=strict)
            out.add(cp)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _merge(lhs: Any, rhs: Any, spec: FieldSpec) -> Any:
    """Merge the applied value ``rhs`` into the live value ``lhs`` (typed.TypedValue.Merge)."""
    if _is_leaf(spec, rhs) or _is_leaf(spec, lhs) or type(lhs) is not type(rhs):
        return _strip_nulls(copy.deepcopy(rhs))
    if isinstance(rhs, dict):
        out = dict(lhs)
        for k, v in rhs.items():
            if v is None:
                out.pop(k, None)
            elif k in out:
                out[k] = _merge(out[k], v, _child_spec(spec, k, v))
            else:
                out[k] = _strip_nulls(copy.deepcopy(v))
        return out
    return _merge_list(lhs, rhs, spec)


def _strip_nulls(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _strip_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_strip_nulls(x) for x in v]
    return v


def _merge_list(lhs: list, rhs: list, spec: FieldSpec) -> list:
    """Merge associative/set lists: shared items take the applied order, live-only items keep their place."""
    el = _element_spec(spec)
    lhs_items = _list_items(spec, lhs, strict=False)
    rhs_items = [(pe, item) for pe, item in _list_items(spec, rhs, strict=False) if pe is not None]
    lhs_map = {pe: item for pe, item in lhs_items if pe is not None}
    rhs_map = dict(rhs_items)
    shared = [pe for pe, _ in rhs_items if pe in lhs_map]
    out: list = []
    merged: set[str] = set()
    li = ri = 0
    si = 0

    def next_shared() -> str | None:
        return shared[si] if si < len(shared) else None

    while li < len(lhs_items) or ri < len(rhs_items):
        if li < len(lhs_items) and ri < len(rhs_items):
            lpe = lhs_items[li][0]
            if lpe is not None and lpe == rhs_items[ri][0]:
                out.append(_merge(lhs_map[lpe], rhs_map[lpe], el))
                merged.add(lpe)
                li += 1
                ri += 1
                si += 1
                continue
            ns = next_shared()
            if lpe is not None and lpe in rhs_map and ns is not None and ns != lpe:
                li += 1
                continue
        if li < len(lhs_items):
            lpe, litem = lhs_items[li]
            if lpe is None or lpe not in rhs_map:
                out.append(litem)
                li += 1
                continue
            if lpe in merged:
                li += 1
                continue
        if ri < len(rhs_items):
            rpe, ritem = rhs_items[ri]
            merged.add(rpe)
            if rpe in lhs_map:
                out.append(_merge(lhs_map[rpe], ritem, el))
            else:
                out.append(_strip_nulls(copy.deepcopy(ritem)))
            ri += 1
            if next_shared() == rpe:
                si += 1
    return out


class _Comparison:
    def __init__(self) -> None:
        self.added: FieldSet = set()
        self.modified: FieldSet = set()
        self.removed: FieldSet = set()


_ABSENT = object()


def _compare(old: Any, new: Any, spec: FieldSpec, path: Path, c: _Comparison) -> None:
    """typed.TypedValue.Compare: leaves are added/removed/modified, containers added/removed with all below."""
    leaf = (old is _ABSENT or _is_leaf(spec, old)) and (new is _ABSENT or _is_leaf(spec, new))
    mixed = old is not _ABSENT and new is not _ABSENT and (
        _is_leaf(spec, old) != _is_leaf(spec, new) or type(old) is not type(new)
    )
    if path and (leaf or mixed):
        if old is _ABSENT:
            c.added.add(path)
        elif new is _ABSENT:
            c.removed.add(path)
        elif not _equal(old, new):
            c.modified.add(path)
        return
    old_children = {pe: (v, s) for pe, v, s in _children(spec, old)} if old is not _ABSENT else {}
    new_children = {pe: (v, s) for pe, v, s in _children(spec, new)} if new is not _ABSENT else {}
    for pe in list(old_children) + [p for p in new_children if p not in old_children]:
        ov, os_ = old_children.get(pe, (_ABSENT, None))
        nv, ns_ = new_children.get(pe, (_ABSENT, None))
        cs = ns_ or os_
        assert cs is not None
        if ov is None:
            ov = _ABSENT
        if nv is None:
            nv = _ABSENT
        if ov is _ABSENT and nv is _ABSENT:
            continue
        if cs.zero_present:
            # A Go non-pointer struct (or a list without omitempty) is there, empty, in any object that holds
            # its parent: it is never added nor removed itself, only what is under it.
            empty: Any = [] if cs.kind == "list" else {}
            if ov is _ABSENT and old is not _ABSENT:
                ov = empty
            if nv is _ABSENT and new is not _ABSENT:
                nv = empty
        cp = path + (pe,)
        _compare(ov, nv, cs, cp, c)
        if ov is _ABSENT:
            c.added.add(cp)
        elif nv is _ABSENT:
            c.removed.add(cp)


def _remove_path(value: Any, spec: FieldSpec, path: Path) -> Any:
    """``value`` without the node at ``path`` (and everything under it)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(value, dict) and head.startswith("f:"):
        k = head[2:]
        if k not in value:
            return value
        out = dict(value)
        if not rest:
            del out[k]
        else:
            out[k] = _remove_path(value[k], _child_spec(spec, k, value[k]), rest)
        return out
    if isinstance(value, list) and not _is_leaf(spec, value):
        el = _element_spec(spec)
        out_list = []
        for pe, item in _list_items(spec, value, strict=False):
            if pe == head:
                if not rest:
                    continue
                item = _remove_path(item, el, rest)
            out_list.append(item)
        return out_list
    return value


def _ensure_named_fields(paths: FieldSet, root: FieldSpec, obj: Any) -> FieldSet:
    """Add the struct fields on the way to each path as members (fieldpath.Set.EnsureNamedFieldsAreMembers)."""
    out = set(paths)
    for p in paths:
        spec = root
        value = obj
        for i, pe in enumerate(p):
            if pe.startswith("f:"):
                k = pe[2:]
                v = value.get(k) if isinstance(value, dict) else None
                child = _child_spec(spec, k, v)
                if spec.kind == "struct" and i < len(p) - 1:
                    out.add(p[: i + 1])
                spec, value = child, v
            elif isinstance(value, list):
                el = _element_spec(spec)
                found = None
                for ipe, item in _list_items(spec, value, strict=False):
                    if ipe == pe:
                        found = item
                        break
                spec, value = el, found
            else:
                break
    return out


def _exists(value: Any, spec: FieldSpec, path: Path) -> bool:
    for pe in path:
        if isinstance(value, dict) and pe.startswith("f:"):
            k = pe[2:]
            if k not in value:
                return False
            spec, value = _child_spec(spec, k, value[k]), value[k]
        elif isinstance(value, list) and not _is_leaf(spec, value):
            el = _element_spec(spec)
            for ipe, item in _list_items(spec, value, strict=False):
                if ipe == pe:
                    spec, value = el, item
                    break
            else:
                return False
        else:
            return False
    return True


# ---------------------------------------------------------------------------------------------------------------
# Managers
# ---------------------------------------------------------------------------------------------------------------


class _Manager:
    __slots__ = ("manager", "operation", "api_version", "subresource", "time", "fields")

    def __init__(
        self, manager: str, operation: str, api_version: str, subresource: str, time: str | None, fields: FieldSet
    ) -> None:
        self.manager = manager
        self.operation = operation
        self.api_version = api_version
        self.subresource = subresource
        self.time = time
        self.fields = fields

    @property
    def ident(self) -> tuple[str, str, str, str]:
        # BuildManagerIdentifier: appliers are identified without their apiVersion.
        return (
            self.manager,
            self.operation,
            "" if self.operation == "Apply" else self.api_version,
            self.subresource,
        )

    def describe(self) -> str:
        """printManager: ``"name"``, plus ``with subresource "s"``, plus ``using v`` for updaters."""
        s = json.dumps(self.manager, ensure_ascii=False)
        if self.subresource:
            s += f" with subresource {json.dumps(self.subresource)}"
        if self.operation == "Update":
            s += f" using {self.api_version}"
        return s

    def entry(self) -> dict[str, Any]:
        e: dict[str, Any] = {"manager": self.manager, "operation": self.operation, "apiVersion": self.api_version}
        if self.time is not None:
            e["time"] = self.time
        e["fieldsType"] = "FieldsV1"
        e["fieldsV1"] = set_to_fields(self.fields)
        if self.subresource:
            e["subresource"] = self.subresource
        return e


def _decode_managers(obj: Mapping[str, Any] | None) -> dict[tuple[str, str, str, str], _Manager]:
    out: dict[tuple[str, str, str, str], _Manager] = {}
    if not obj:
        return out
    entries = (obj.get("metadata") or {}).get("managedFields") or []
    for e in entries:
        if not isinstance(e, Mapping) or not e.get("manager") and not e.get("fieldsV1"):
            continue
        m = _Manager(
            str(e.get("manager", "")),
            str(e.get("operation", "Update")),
            str(e.get("apiVersion", "")),
            str(e.get("subresource", "")),
            e.get("time"),
            fields_to_set(e.get("fieldsV1")),
        )
        prev = out.get(m.ident)
        if prev is not None:
            prev.fields |= m.fields
        else:
            out[m.ident] = m
    return out


def _encode_managers(managers: dict[tuple[str, str, str, str], _Manager]) -> list[dict[str, Any]]:
    ordered = sorted(
        managers.values(),
        key=lambda m: (m.operation, m.time or "", m.manager, m.api_version, m.subresource),
    )
    return [m.entry() for m in ordered]


def _strip(fields: FieldSet) -> FieldSet:
    return {p for p in fields if p not in _STRIP}


def _under(paths: FieldSet, prefix: Path) -> FieldSet:
    n = len(prefix)
    return {p for p in paths if p[:n] == prefix}


def _filter_scope(paths: FieldSet, subresource: str) -> FieldSet:
    """What a write through this endpoint may own: the status subresource owns status only, the main
    resource everything but status (status is reset by the main resource's strategy)."""
    status = ("f:status",)
    if subresource == "status":
        return _under(paths, status)
    return paths - _under(paths, status)


def _cap_update_managers(managers: dict[tuple[str, str, str, str], _Manager]) -> None:
    updaters = [m for m in managers.values() if m.operation != "Apply"]
    if len(updaters) <= MAX_UPDATE_MANAGERS:
        return
    updaters.sort(key=lambda m: m.time or "")
    excess = len(updaters) - MAX_UPDATE_MANAGERS
    for m in updaters:
        if excess <= 0:
            break
        if m.manager == ANCIENT_CHANGES:
            continue
        del managers[m.ident]
        bucket_id = (ANCIENT_CHANGES, "Update", m.api_version, "")
        bucket = managers.get(bucket_id)
        if bucket is None:
            managers[bucket_id] = _Manager(ANCIENT_CHANGES, "Update", m.api_version, "", m.time, set(m.fields))
        else:
            bucket.fields |= m.fields
            if (m.time or "") > (bucket.time or ""):
                bucket.time = m.time
            excess -= 1


def _update_managers(
    managers: dict[tuple[str, str, str, str], _Manager],
    comparison: _Comparison,
    skip: tuple[str, str, str, str],
    *,
    force: bool,
) -> dict[tuple[str, str, str, str], FieldSet]:
    """Updater.update: find conflicts; with force take the conflicting fields away; drop removed fields."""
    changed = comparison.modified | comparison.added
    conflicts: dict[tuple[str, str, str, str], FieldSet] = {}
    for ident, m in managers.items():
        if ident == skip:
            continue
        c = m.fields & changed
        if c:
            conflicts[ident] = c
    if conflicts and not force:
        return conflicts
    for ident, c in conflicts.items():
        managers[ident].fields -= c
    for ident, m in managers.items():
        if ident != skip:
            m.fields -= comparison.removed
    return {}


def _drop_empty(managers: dict[tuple[str, str, str, str], _Manager], keep: tuple[str, str, str, str]) -> None:
    for ident in [i for i, m in managers.items() if not m.fields and i != keep]:
        del managers[ident]


def _conflict_error(
    conflicts: dict[tuple[str, str, str, str], FieldSet], managers: dict[tuple[str, str, str, str], _Manager]
) -> ApplyConflict:
    pairs: list[tuple[_Manager, Path]] = []
    for ident in sorted(conflicts):
        m = managers[ident]
        for p in sorted(conflicts[ident], key=lambda p: [_pe_order(pe) for pe in p]):
            pairs.append((m, p))
    causes = [
        {"reason": "FieldManagerConflict", "message": f"conflict with {m.describe()}", "field": path_string(p)}
        for m, p in pairs
    ]
    if len(pairs) == 1:
        m, p = pairs[0]
        message = f"Apply failed with 1 conflict: conflict with {m.describe()}: {path_string(p)}"
    else:
        lines: list[str] = []
        by_manager: dict[str, list[str]] = {}
        for m, p in pairs:
            by_manager.setdefault(m.describe(), []).append(path_string(p))
        for desc in sorted(by_manager):
            lines.append(f"conflicts with {desc}:")
            lines.extend(f"- {p}" for p in by_manager[desc])
        message = f"Apply failed with {len(pairs)} conflicts: " + "\n".join(lines)
    return ApplyConflict([(m.manager, path_string(p)) for m, p in pairs], message, causes)


def _gvk(api_version: str, kind: str) -> str:
    return f"{api_version if '/' in api_version else '/' + api_version}, Kind={kind}"


def _without_meta(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The object as the field manager sees it: no managedFields."""
    out = dict(obj)
    md = out.get("metadata")
    if isinstance(md, Mapping) and "managedFields" in md:
        md = dict(md)
        del md["managedFields"]
        out["metadata"] = md
    return out


def _record(
    managers: dict[tuple[str, str, str, str], _Manager],
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    root: FieldSpec,
    *,
    manager: str,
    operation: str,
    subresource: str,
    api_version: str,
    now: str,
) -> None:
    """The apiserver's managedFieldsUpdater.Update over Updater.Update, applied to ``managers`` in place."""
    c = _Comparison()
    _compare(old, new, root, (), c)
    c.added = _filter_scope(c.added, subresource)
    c.modified = _filter_scope(c.modified, subresource)
    c.removed = _filter_scope(c.removed, subresource)
    changed = _strip(c.added | c.modified)
    ident = (manager, operation, "" if operation == "Apply" else api_version, subresource)
    _update_managers(managers, c, ("<current-operation>", "", "", ""), force=True)
    if changed:
        prev = managers.get(ident)
        if prev is not None:
            prev.fields |= changed
            prev.api_version = api_version
            prev.time = now
        else:
            managers[ident] = _Manager(manager, operation, api_version, subresource, now, set(changed))
    for m in managers.values():
        m.fields = _strip(m.fields)
    _drop_empty(managers, ("", "", "", ""))
    _cap_update_managers(managers)


# ---------------------------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------------------------


def record_update(
    old: dict | None,
    new: dict,
    *,
    manager: str,
    operation: str,
    subresource: str = "",
    api_version: str,
    now: str,
    kind: str | None = None,
) -> list[dict]:
    """managedFields for ``new`` after a non-apply write (create, update, patch) by ``manager``.

    The manager gains the fields it added or changed, every other manager loses them and any field removed;
    entries left empty disappear, and an entry's ``time`` moves only when its manager changed something.
    ``old`` is None for a create. When ``new`` carries managedFields different from ``old``'s (a client
    writing them on purpose) those are the starting point, as upstream; ``[{}]`` clears them.
    """
    kind = kind or str(new.get("kind") or (old or {}).get("kind") or "")
    root = _root(api_version, kind)
    new_entries = (new.get("metadata") or {}).get("managedFields")
    old_entries = ((old or {}).get("metadata") or {}).get("managedFields")
    if new_entries and new_entries != old_entries and not subresource:
        if all(isinstance(e, Mapping) and not e for e in new_entries):
            return []
        managers = _decode_managers(new)
    else:
        managers = _decode_managers(old)
    _record(
        managers,
        _without_meta(old) if old else {},
        _without_meta(new),
        root,
        manager=manager,
        operation=operation,
        subresource=subresource,
        api_version=api_version,
        now=now,
    )
    return _encode_managers(managers)


def apply(
    live: dict | None,
    applied: dict,
    *,
    manager: str,
    force: bool,
    api_version: str,
    kind: str,
    now: str,
    subresource: str = "",
) -> dict:
    """Server-side apply ``applied`` (the request body) onto ``live`` (None to create) for ``manager``.

    Returns the new object with ``metadata.managedFields`` updated; when the configuration changes nothing the
    returned object equals ``live``. Raises :class:`ApplyConflict` when another manager owns a field the
    configuration sets to a different value and ``force`` is false (with ``force`` the ownership moves), and
    :class:`ApplyError` for a configuration that cannot be applied. ``status`` is never applied through the
    main resource, and metadata the server sets (uid, resourceVersion, ...) is ignored; checking a
    resourceVersion precondition is the caller's job. With ``subresource="status"`` only ``status`` is applied
    and owned (the entry carries ``subresource: status``).
    """
    if not isinstance(applied, dict):
        raise ApplyError("the applied configuration must be an object", code=400, reason="BadRequest")
    config = copy.deepcopy(applied)
    meta = config.get("metadata")
    if isinstance(meta, dict):
        if meta.get("managedFields"):
            raise ApplyError("metadata.managedFields must be nil", code=400, reason="BadRequest")
        for k in _CONFIG_DROP_META:
            meta.pop(k, None)
    if subresource == "status":
        raw_md = config.get("metadata")
        md: dict[str, Any] = raw_md if isinstance(raw_md, dict) else {}
        config = {k: v for k, v in config.items() if k in ("apiVersion", "kind", "status")}
        config["metadata"] = {k: v for k, v in md.items() if k in ("name", "namespace")}
    else:
        config.pop("status", None)

    root = _root(api_version, kind)
    config_set: FieldSet = set()
    try:
        _to_field_set(config, root, (), config_set, strict=True)
    except ApplyError as e:
        raise ApplyError(f"failed to create typed patch object ({_gvk(api_version, kind)}): {e.message}") from None
    config_set = _filter_scope(config_set, subresource)

    live_obj: dict[str, Any] = _without_meta(live) if live else {}
    managers = _decode_managers(live)
    if live is not None and not managers:
        # Objects that never had managedFields: someone owns everything they hold (skipNonAppliedManager).
        _record(
            managers, {}, live_obj, root, manager=BEFORE_FIRST_APPLY, operation="Update", subresource="",
            api_version=api_version, now=now,
        )

    ident = (manager, "Apply", "", subresource)
    previous = managers.get(ident)
    last_set = set(previous.fields) if previous else set()
    merged = _merge(live_obj, config, root)
    assert isinstance(merged, dict)

    if previous is None:
        previous_time = None
        managers[ident] = _Manager(manager, "Apply", api_version, subresource, now, set(config_set))
    else:
        previous_time = previous.time
        previous.fields = set(config_set)
        previous.api_version = api_version

    # Prune what this manager applied before, omits now, and nobody owns (Updater.prune). A struct field
    # survives while anything under it is owned; a list item or map entry only while it is owned itself.
    if last_set:
        owned: FieldSet = set()
        for m in managers.values():
            owned |= m.fields
        candidates = _ensure_named_fields(last_set, root, merged) - _ensure_named_fields(owned, root, merged)
        for p in sorted(candidates - _STRIP, key=len):
            if _exists(merged, root, p):
                merged = _remove_path(merged, root, p)

    c = _Comparison()
    _compare(live_obj, merged, root, (), c)
    c.added = _filter_scope(c.added, subresource)
    c.modified = _filter_scope(c.modified, subresource)
    c.removed = _filter_scope(c.removed, subresource)
    conflicts = _update_managers(managers, c, ident, force=force)
    if conflicts:
        raise _conflict_error(conflicts, managers)

    for m in managers.values():
        m.fields = _strip(m.fields)
    _drop_empty(managers, ident)
    _cap_update_managers(managers)

    changed_object = not _equal(live_obj, merged)
    me = managers[ident]
    if not changed_object and previous is not None and me.fields == last_set and previous_time is not None:
        me.time = previous_time
    else:
        me.time = now

    entries = _encode_managers(managers)
    result = merged
    md = dict(result.get("metadata") or {})
    md["managedFields"] = entries
    result["metadata"] = md
    if live is not None:
        old_entries = (live.get("metadata") or {}).get("managedFields")
        if not changed_object and old_entries == entries:
            return copy.deepcopy(live)
    return result
