"""The three PATCH bodies the API server accepts besides apply: JSON merge, JSON patch and strategic merge.

Why: kubectl patches objects on every ``label``, ``annotate``, ``set image``, ``rollout restart``, ``edit``,
``scale`` and client-side ``apply``, and the Python client's ``patch_*`` calls send strategic merge patches by
default. The result of each must be exactly what the real API server would store, so this module follows
RFC 7386 (merge patch), RFC 6902 (JSON patch, as evanphx/json-patch applies it) and
k8s.io/apimachinery/pkg/util/strategicpatch (the server side of strategic merge: ``StrategicMergeMapPatch``),
with the per-field merge keys of :mod:`pytest_simian.sim.listkeys`.

Errors raise :class:`PatchError` carrying the status code, reason and message the API server would answer.
JSON patch is implemented here rather than with the ``jsonpatch`` package so that its error messages are the
ones evanphx/json-patch (which the API server uses) gives.

Must not: do I/O, touch HTTP or the store, validate objects against their schema, or mutate its arguments
(every function returns a new object).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from pytest_simian.sim import listkeys

__all__ = ["PatchError", "json_merge_patch", "json_patch", "strategic_merge_patch"]

# The API server caps JSON patches at this many operations (maxJSONPatchOperations).
MAX_JSON_PATCH_OPERATIONS = 10000


class PatchError(ValueError):
    """A patch that cannot be applied.

    ``message`` is the underlying error text; ``code``/``reason`` the HTTP status and Status reason the API
    server answers with. :meth:`status_fields` gives the Status body fields the way the API server fills them
    (a 422 from a failed JSON patch carries a generic message and the detail in ``details.causes``).
    """

    def __init__(self, message: str, *, code: int = 422, reason: str = "Invalid", generic: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason
        self.generic = generic

    def status_fields(self) -> dict[str, Any]:
        if self.generic:
            return {
                "code": self.code,
                "reason": self.reason,
                "message": "the server rejected our request due to an error in our request",
                "details": {"causes": [{"reason": "UnexpectedServerResponse", "message": self.message}]},
            }
        return {"code": self.code, "reason": self.reason, "message": self.message}


def _bad_request(message: str) -> PatchError:
    return PatchError(message, code=400, reason="BadRequest")


def _unprocessable(message: str) -> PatchError:
    return PatchError(message, code=422, reason="Invalid", generic=True)


def _internal(message: str) -> PatchError:
    # Errors the API server does not translate end up as a 500 with an empty (Unknown) reason.
    return PatchError(message, code=500, reason="")


# ---------------------------------------------------------------------------------------------------------------
# Go-like rendering, for error messages that print values the way fmt's %v does.
# ---------------------------------------------------------------------------------------------------------------


def _go_fmt(v: Any) -> str:
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{_go_fmt(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(_go_fmt(x) for x in v) + "]"
    return str(v)


def _go_type(v: Any) -> str:
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, dict):
        return "map[string]interface {}"
    if isinstance(v, list):
        return "[]interface {}"
    if isinstance(v, str):
        return "string"
    if isinstance(v, int):
        return "int64"
    return "float64"


# ---------------------------------------------------------------------------------------------------------------
# RFC 7386 JSON merge patch
# ---------------------------------------------------------------------------------------------------------------


def json_merge_patch(obj: dict, patch: dict) -> dict:
    """Apply an RFC 7386 merge patch: objects merge recursively, ``null`` deletes, anything else replaces."""
    if not isinstance(patch, dict):
        # The API server decodes the body into a map before merging; a non-object is a bad request.
        raise _bad_request("Invalid JSON Patch")
    result = _merge_patch_value(copy.deepcopy(obj) if isinstance(obj, dict) else {}, patch)
    assert isinstance(result, dict)
    return result


def _merge_patch_value(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = _merge_patch_value(target.get(key), value)
    return target


# ---------------------------------------------------------------------------------------------------------------
# RFC 6902 JSON patch
# ---------------------------------------------------------------------------------------------------------------

_MISSING = object()


def _decode_pointer(path: Any, op_name: str, what: str = "path") -> list[str]:
    if not isinstance(path, str):
        raise _unprocessable(f"{op_name} operation failed to decode {what}: missing value")
    if path == "":
        return []
    if not path.startswith("/"):
        raise _unprocessable(f"{op_name} operation does not apply: doc is missing {what}: \"{path}\": missing value")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _parse_index(token: str, length: int, *, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return length
    if not token.isdigit() or (len(token) > 1 and token.startswith("0")):
        raise ValueError(f"Unable to access invalid index: {token}")
    idx = int(token)
    limit = length if allow_end else length - 1
    if idx > limit:
        raise ValueError(f"Unable to access invalid index: {idx}: invalid index referenced")
    return idx


def _resolve_parent(doc: Any, tokens: list[str]) -> Any:
    """The container holding the last token, or _MISSING."""
    cur = doc
    for tok in tokens[:-1]:
        if isinstance(cur, dict):
            if tok not in cur:
                return _MISSING
            cur = cur[tok]
        elif isinstance(cur, list):
            if not tok.isdigit() or int(tok) >= len(cur):
                return _MISSING
            cur = cur[int(tok)]
        else:
            return _MISSING
    if not isinstance(cur, (dict, list)):
        return _MISSING
    return cur


def _get(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        return doc
    parent = _resolve_parent(doc, tokens)
    if parent is _MISSING:
        return _MISSING
    key = tokens[-1]
    if isinstance(parent, dict):
        return parent.get(key, _MISSING)
    if not key.isdigit() or int(key) >= len(parent):
        return _MISSING
    return parent[int(key)]


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _op_add(doc: Any, path: str, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return copy.deepcopy(value)
    parent = _resolve_parent(doc, tokens)
    if parent is _MISSING:
        raise _unprocessable(f'add operation does not apply: doc is missing path: "{path}": missing value')
    key = tokens[-1]
    if isinstance(parent, dict):
        parent[key] = copy.deepcopy(value)
    else:
        try:
            idx = _parse_index(key, len(parent), allow_end=True)
        except ValueError as e:
            raise _unprocessable(f"error in add for path: '{path}': {e}") from None
        parent.insert(idx, copy.deepcopy(value))
    return doc


def _op_remove(doc: Any, path: str, tokens: list[str]) -> tuple[Any, Any]:
    parent: Any = _resolve_parent(doc, tokens) if tokens else _MISSING
    if parent is _MISSING:
        raise _unprocessable(f'remove operation does not apply: doc is missing path: "{path}": missing value')
    key = tokens[-1]
    if isinstance(parent, dict):
        if key not in parent:
            raise _unprocessable(
                f"error in remove for path: '{path}': Unable to remove nonexistent key: {key}: missing value"
            )
        return doc, parent.pop(key)
    try:
        idx = _parse_index(key, len(parent), allow_end=False)
    except ValueError as e:
        raise _unprocessable(f"error in remove for path: '{path}': {e}") from None
    return doc, parent.pop(idx)


def _op_replace(doc: Any, path: str, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return copy.deepcopy(value)
    parent = _resolve_parent(doc, tokens)
    if parent is _MISSING:
        raise _unprocessable(f"replace operation does not apply: doc is missing path: {path}: missing value")
    key = tokens[-1]
    if isinstance(parent, dict):
        if key not in parent:
            raise _unprocessable(f"replace operation does not apply: doc is missing key: {path}: missing value")
        parent[key] = copy.deepcopy(value)
        return doc
    if not key.isdigit() or int(key) >= len(parent):
        raise _unprocessable(f"replace operation does not apply: doc is missing key: {path}: missing value")
    parent[int(key)] = copy.deepcopy(value)
    return doc


def json_patch(obj: dict, ops: list) -> dict:
    """Apply an RFC 6902 JSON patch (add, remove, replace, move, copy, test) and return the new object."""
    if not isinstance(ops, list):
        raise _bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        raise PatchError(
            f"The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}",
            code=413,
            reason="RequestEntityTooLarge",
        )
    doc: Any = copy.deepcopy(obj)
    for op in ops:
        if not isinstance(op, dict):
            raise _bad_request("json: cannot unmarshal into Go value of type jsonpatch.Operation")
        kind = op.get("op")
        path = op.get("path")
        if kind == "add":
            if "value" not in op:
                raise _unprocessable("add operation failed to decode value: missing value")
            doc = _op_add(doc, str(path), _decode_pointer(path, "add"), op["value"])
        elif kind == "remove":
            doc, _ = _op_remove(doc, str(path), _decode_pointer(path, "remove"))
        elif kind == "replace":
            if "value" not in op:
                raise _unprocessable("replace operation failed to decode value: missing value")
            doc = _op_replace(doc, str(path), _decode_pointer(path, "replace"), op["value"])
        elif kind in ("move", "copy"):
            frm = op.get("from")
            from_tokens = _decode_pointer(frm, kind, "from")
            to_tokens = _decode_pointer(path, kind)
            if kind == "move" and from_tokens == to_tokens[: len(from_tokens)] and from_tokens != to_tokens:
                raise _unprocessable(f"move operation does not apply: cannot move {frm} into its own child {path}")
            value = _get(doc, from_tokens)
            if value is _MISSING:
                raise _unprocessable(f"{kind} operation does not apply: doc is missing from path: {frm}: missing value")
            if kind == "move":
                if from_tokens == to_tokens:
                    continue
                doc, value = _op_remove(doc, str(frm), from_tokens)
            if to_tokens and _resolve_parent(doc, to_tokens) is _MISSING:
                raise _unprocessable(
                    f"{kind} operation does not apply: doc is missing destination path: {path}: missing value"
                )
            doc = _op_add(doc, str(path), to_tokens, value)
        elif kind == "test":
            tokens = _decode_pointer(path, "test")
            current = _get(doc, tokens)
            expected = op.get("value", None)
            if current is _MISSING:
                if expected is None and "value" in op:
                    continue  # evanphx treats a missing key as equal to null
                raise _unprocessable(f"testing value {path} failed: test failed")
            if not _json_equal(current, expected):
                raise _unprocessable(f"testing value {path} failed: test failed")
        else:
            raise _unprocessable(f"Unexpected kind: {kind if kind is not None else 'unknown'}")
    if not isinstance(doc, dict):
        raise _bad_request("the patched object is not a JSON object")
    return doc


# ---------------------------------------------------------------------------------------------------------------
# Strategic merge patch (server side)
# ---------------------------------------------------------------------------------------------------------------

_DIRECTIVE = "$patch"
_RETAIN_KEYS = "$retainKeys"
_DELETE_PREFIX = "$deleteFromPrimitiveList"
_ORDER_PREFIX = "$setElementOrder"

_ERR_BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
_ERR_BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
_ERR_BAD_SET_ORDER = "invalid patch format of setElementOrder list"
_ERR_NO_LIST_OF_LISTS = "lists of lists are not supported"


def strategic_merge_patch(obj: dict, patch: dict, *, api_version: str, kind: str) -> dict:
    """Apply a strategic merge patch to ``obj`` the way the API server does for a built-in kind.

    Lists listed in :mod:`listkeys` with patchStrategy merge are merged by their patchMergeKey (lists of
    primitives are unioned); every other list is replaced. Supports ``$patch: replace|delete`` (in maps and in
    list items; ``$patch: merge`` in a map is a plain merge), ``$retainKeys``, ``$setElementOrder/<field>``,
    ``$deleteFromPrimitiveList/<field>`` and ``null`` deletes. Kinds unknown to the table are patched with
    default rules (maps merged, lists replaced); the real API server refuses strategic merge patches for custom
    resources, see :func:`listkeys.is_builtin_kind`.
    """
    if not isinstance(patch, dict):
        raise _bad_request("invalid JSON document")
    original = copy.deepcopy(obj) if isinstance(obj, dict) else {}
    patch_copy = copy.deepcopy(patch)
    result = _smp_merge_map(original, patch_copy, listkeys.root_type(api_version, kind))
    return result


def _smp_merge_map(original: dict | None, patch: dict, t: str | None) -> dict:
    if _DIRECTIVE in patch:
        directive = patch[_DIRECTIVE]
        if directive == "replace":
            del patch[_DIRECTIVE]
            return _smp_clean(patch, t)
        if directive == "delete":
            return {}
        if directive == "merge":
            del patch[_DIRECTIVE]
        else:
            raise _internal(f"unknown patch type: {_go_fmt(directive)} in map: {_go_fmt(patch)}")

    if original is None:
        original = {}

    _smp_apply_retain_keys(original, patch)
    _smp_apply_set_element_order(original, patch, t)

    for key in list(patch.keys()):
        patch_v = patch[key]
        is_delete_list = False
        k = key
        if key.startswith(_DELETE_PREFIX):
            parts = key.split("/", 1)
            if len(parts) < 2 or parts[0] != _DELETE_PREFIX:
                raise _bad_request(_ERR_BAD_PRIMITIVE_LIST)
            k = parts[1]
            is_delete_list = True
            if not isinstance(patch_v, list):
                raise _bad_request(_ERR_BAD_PRIMITIVE_LIST)
            if k not in original:
                continue  # nothing to delete from
        elif key.startswith("$"):
            # Unknown directives are dropped (the typed decode on the real server drops them too).
            continue

        if patch_v is None:
            original.pop(k, None)
            continue

        spec = listkeys.field_spec(t, k, patch_v)
        if k not in original:
            original[k] = _smp_clean(patch_v, spec.type, spec)
            continue

        orig_v = original[k]
        if _go_type(orig_v) != _go_type(patch_v) and not (
            _is_number(orig_v) and _is_number(patch_v)
        ):
            original[k] = _smp_clean(patch_v, spec.type, spec)
            continue

        if isinstance(orig_v, dict):
            child_t = spec.type if spec.kind in ("struct", "map") else None
            if spec.kind == "map" and spec.type is None:
                child_t = None
            original[k] = _smp_merge_map(orig_v, patch_v, child_t)
        elif isinstance(orig_v, list):
            if spec.smp_merge:
                original[k] = _smp_merge_slice(orig_v, patch_v, spec, is_delete_list)
            else:
                original[k] = _smp_clean(patch_v, spec.type, spec)
        else:
            original[k] = patch_v
    return original


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _smp_clean(value: Any, t: str | None, spec: listkeys.FieldSpec | None = None) -> Any:
    """A patch value landing where nothing was: apply it to nothing, so its directives are consumed."""
    if isinstance(value, dict):
        return _smp_merge_map({}, value, t)
    if isinstance(value, list):
        if spec is not None and spec.smp_merge:
            return _smp_merge_slice([], value, spec, False)
        return [_smp_clean(v, t) if isinstance(v, dict) else v for v in value]
    return value


def _smp_apply_retain_keys(original: dict, patch: dict) -> None:
    if _RETAIN_KEYS not in patch:
        return
    retain = patch.pop(_RETAIN_KEYS)
    if not isinstance(retain, list):
        raise _bad_request(_ERR_BAD_RETAIN_KEYS)
    keep = set(r for r in retain if isinstance(r, str))
    for k, v in patch.items():
        if v is None or k.startswith(_DELETE_PREFIX) or k.startswith(_ORDER_PREFIX) or k == _DIRECTIVE:
            continue
        if k not in keep:
            raise _bad_request(_ERR_BAD_RETAIN_KEYS)
    for k in list(original.keys()):
        if k not in keep:
            del original[k]


def _element_kind(*lists: list) -> str | None:
    """``map`` or ``scalar`` for the elements of the lists, None when they are all empty."""
    prev: str | None = None
    for lst in lists:
        for v in lst:
            if isinstance(v, list):
                raise _unprocessable(_ERR_NO_LIST_OF_LISTS)
            cur = "number" if _is_number(v) else _go_type(v)
            if prev is None:
                prev = cur
            elif prev != cur:
                raise _internal(
                    "list element types are not identical: " + _go_fmt([list(x) for x in lists])
                )
    if prev is None:
        return None
    return "map" if prev.startswith("map") else "scalar"


def _no_merge_key(item: Any, key: str) -> PatchError:
    return _internal(f"map: {_go_fmt(item)} does not contain declared merge key: {key}")


def _key_of(item: Any, merge_key: str | None) -> Any:
    if merge_key is None:
        return ("scalar", json.dumps(item, sort_keys=True))
    if not isinstance(item, dict):
        return ("nomap", id(item))
    v = item.get(merge_key, _MISSING)
    if v is _MISSING:
        return ("missing", id(item))
    return ("key", json.dumps(v, sort_keys=True))


def _smp_merge_slice(
    original: list, patch: list, spec: listkeys.FieldSpec, is_delete_list: bool
) -> list:
    if not isinstance(patch, list):
        raise _internal(f"expected a []interface {{}}, but received a {_go_type(patch)}")
    if not original and not patch:
        return original
    kind = _element_kind(original, patch)
    merge_key = spec.merge_key if kind == "map" else None
    elem_t = spec.type

    if kind != "map":
        if is_delete_list:
            drop = {_key_of(v, None) for v in patch}
            return [v for v in original if _key_of(v, None) not in drop]
        merged: list = []
        seen: set = set()
        for v in original + patch:
            kv = _key_of(v, None)
            if kv not in seen:
                seen.add(kv)
                merged.append(v)
    else:
        if merge_key is None:
            raise _internal("cannot merge lists without merge key for type struct")
        # The Go code works on the live slice in place: deletions compact it and new items are appended
        # into the room they leave. The caller sees those writes (it orders by the mutated live list when a
        # $setElementOrder directive is present), so we mimic them on ``original`` itself.
        original, patch, n = _smp_special_elements(original, patch, merge_key)
        server_order = original[:n]
        arr = original
        for item in patch:
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            found = _find_by_key(arr[:n], merge_key, item[merge_key])
            if found >= 0:
                arr[found] = _smp_merge_map(arr[found], item, elem_t)
            else:
                new_item = _smp_merge_map({}, item, elem_t)
                if n < len(arr):
                    arr[n] = new_item
                else:
                    arr = arr[:n] + [new_item]
                n += 1
        merged = arr[:n]
        patch_items, server_only = _partition(merged, patch, merge_key)
        return _normalize_element_order(patch_items, server_only, patch, server_order, merge_key)

    patch_items, server_only = _partition(merged, patch, merge_key)
    return _normalize_element_order(patch_items, server_only, patch, original, merge_key)


def _find_by_key(lst: list, merge_key: str, value: Any) -> int:
    for i, v in enumerate(lst):
        if not isinstance(v, dict):
            raise _internal(f"value for key {i} is not a map.")
        if merge_key in v and _json_equal(v[merge_key], value) and type(v[merge_key]) is type(value):
            return i
    return -1


def _smp_special_elements(original: list, patch: list, merge_key: str) -> tuple[list, list, int]:
    """Apply ``$patch: delete``/``replace`` list items; returns (backing list, remaining patch, length)."""
    without: list = []
    replace = False
    n = len(original)
    for v in patch:
        if not isinstance(v, dict) or _DIRECTIVE not in v:
            without.append(v)
            continue
        directive = v[_DIRECTIVE]
        if directive == "delete":
            if merge_key not in v:
                raise _no_merge_key(v, merge_key)
            value = v[merge_key]
            while True:
                idx = next(
                    (
                        i
                        for i in range(n)
                        if isinstance(original[i], dict) and original[i].get(merge_key, _MISSING) == value
                    ),
                    -1,
                )
                if idx < 0:
                    break
                original[idx : n - 1] = original[idx + 1 : n]
                n -= 1
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise _internal("merging lists cannot yet be specified in the patch")
        else:
            raise _internal(f"unknown patch type: {_go_fmt(directive)} in map: {_go_fmt(v)}")
    if replace:
        cleaned = [_smp_clean(x, None) if isinstance(x, dict) else x for x in without]
        return cleaned, [], len(cleaned)
    return original, without, n


def _partition(merged: list, by: list, merge_key: str | None) -> tuple[list, list]:
    wanted = set()
    for v in by:
        if merge_key is not None and isinstance(v, dict) and merge_key in v:
            wanted.add(("key", json.dumps(v[merge_key], sort_keys=True)))
        elif merge_key is None:
            wanted.add(_key_of(v, None))
    patch_items: list = []
    server_only: list = []
    for v in merged:
        if merge_key is not None:
            if not isinstance(v, dict):
                raise _internal(f"expected a map[string]interface {{}}, but received a {_go_type(v)}")
            if merge_key not in v:
                raise _no_merge_key(v, merge_key)
        (patch_items if _key_of(v, merge_key) in wanted else server_only).append(v)
    return patch_items, server_only


def _normalize_slice_order(to_sort: list, order: list, merge_key: str | None) -> list:
    to_delete: list = []
    if merge_key is not None:
        for lst in (to_sort, order):
            for item in lst:
                if not isinstance(item, dict):
                    raise _internal(f"expected a map[string]interface {{}}, but received a {_go_type(item)}")
                if merge_key not in item:
                    raise _no_merge_key(item, merge_key)
        keep: list = []
        for item in to_sort:
            (to_delete if item.get(_DIRECTIVE) == "delete" else keep).append(item)
        to_sort = keep
    positions: dict[Any, int] = {}
    for i, item in enumerate(order):
        positions.setdefault(_key_of(item, merge_key), i)
    decorated = sorted(
        enumerate(to_sort), key=lambda p: (positions.get(_key_of(p[1], merge_key), len(order)), p[0])
    )
    return [item for _, item in decorated] + to_delete


def _normalize_element_order(
    patch_items: list, server_only: list, patch_order: list, server_order: list, merge_key: str | None
) -> list:
    patch_sorted = _normalize_slice_order(patch_items, patch_order, merge_key)
    server_sorted = _normalize_slice_order(server_only, server_order, merge_key)
    return _merge_sorted(server_sorted, patch_sorted, server_order, merge_key)


def _merge_sorted(left: list, right: list, server_order: list, merge_key: str | None) -> list:
    """Interleave server-only items (left) with patch items (right), keeping each list's relative order.

    A server-only item goes before a patch item only when both appear in the live list and it came first
    there (strategicpatch.mergeSortedSlice).
    """
    positions: dict[Any, int] = {}
    for i, item in enumerate(server_order):
        positions.setdefault(_key_of(item, merge_key), i)
    out: list = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li = positions.get(_key_of(left[i], merge_key), -1)
            ri = positions.get(_key_of(right[j], merge_key), -1)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _smp_apply_set_element_order(original: dict, patch: dict, t: str | None) -> None:
    for key in [k for k in patch if k.startswith(_ORDER_PREFIX)]:
        order = patch.pop(key)
        parts = key.split("/", 1)
        if len(parts) < 2 or parts[0] != _ORDER_PREFIX:
            raise _bad_request(_ERR_BAD_SET_ORDER)
        field = parts[1]
        if not isinstance(order, list):
            raise _internal(f"expected a []interface {{}}, but received a {_go_type(order)}")
        found_original = field in original
        found_patch = field in patch
        if not found_original and not found_patch:
            continue
        original_list = original.get(field) if found_original else None
        patch_list = patch.get(field) if found_patch else None
        if found_original and not isinstance(original_list, list):
            raise _internal(f"expected a []interface {{}}, but received a {_go_type(original_list)}")
        if found_patch and patch_list is not None and not isinstance(patch_list, list):
            raise _internal(f"expected a []interface {{}}, but received a {_go_type(patch_list)}")
        spec = listkeys.field_spec(t, field, original_list if found_original else patch_list)
        kind = _element_kind(original_list or [], patch_list or [])
        merge_key = spec.merge_key if kind == "map" else None
        _validate_set_order(patch_list or [], order, merge_key)

        if found_original and not found_patch:
            merged = list(original_list or [])
        elif not found_original:
            merged = _smp_clean(patch_list, spec.type, spec) if patch_list is not None else []
        else:
            if patch_list is None:
                original.pop(field, None)
                patch.pop(field, None)
                continue
            if spec.smp_merge:
                # original_list is ours (deep-copied) and is mutated the way Go mutates it; see above.
                merged = _smp_merge_slice(original_list or [], patch_list, spec, False)
            else:
                merged = _smp_clean(patch_list, spec.type, spec)
        patch.pop(field, None)
        if not merged:
            original[field] = merged
            continue
        kind = _element_kind(merged)
        merge_key = spec.merge_key if kind == "map" else None
        patch_items, server_only = _partition(merged, order, merge_key)
        original[field] = _normalize_element_order(
            patch_items, server_only, order, list(original_list or []), merge_key
        )


def _validate_set_order(patch_list: list, order: list, merge_key: str | None) -> None:
    if not order or not patch_list:
        return
    if merge_key is not None:
        non_delete = [p for p in patch_list if not (isinstance(p, dict) and p.get(_DIRECTIVE) == "delete")]
    else:
        non_delete = list(patch_list)
    pi = oi = 0
    while pi < len(non_delete) and oi < len(order):
        item = non_delete[pi]
        if isinstance(item, dict) and _DIRECTIVE in item:
            pi += 1
            continue
        if merge_key is None:
            equal = _json_equal(item, order[oi])
        else:
            o = order[oi]
            if not isinstance(item, dict) or not isinstance(o, dict):
                raise _internal(f"expected a map[string]interface {{}}, but received a {_go_type(o)}")
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            if merge_key not in o:
                raise _no_merge_key(o, merge_key)
            equal = item[merge_key] == o[merge_key]
        if equal:
            pi += 1
        oi += 1
    if pi < len(non_delete) and oi >= len(order):
        raise _internal(
            f"The order in patch list:\n{_go_fmt(patch_list)}\n doesn't match {_ORDER_PREFIX} list:\n"
            f"{_go_fmt(order)}\n"
        )
