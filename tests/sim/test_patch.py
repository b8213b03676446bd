"""Patch application: RFC 7386 merge patch, RFC 6902 JSON patch, and server-side strategic merge patch.

The strategic merge cases under ``UPSTREAM_RAW`` are the apply half of the raw test cases of
k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go (Current + ThreeWay patch -> Result, order
significant), run against the same test schema (``mergingList`` merged by ``name``, ``mergingIntList`` a
merged list of primitives, ``nonMergingList`` replaced, ``retainKeysMap`` with the retainKeys strategy).
"""

from __future__ import annotations

import copy

import pytest
import yaml

from pytest_simian.sim import listkeys
from pytest_simian.sim.listkeys import FieldSpec
from pytest_simian.sim.patch import PatchError, json_merge_patch, json_patch, strategic_merge_patch

# ---------------------------------------------------------------------------------------------------------------
# RFC 7386 appendix A
# ---------------------------------------------------------------------------------------------------------------

MERGE_CASES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    ({"metadata": {"labels": {"a": "1", "b": "2"}}}, {"metadata": {"labels": {"a": None, "c": "3"}}},
     {"metadata": {"labels": {"b": "2", "c": "3"}}}),
]


@pytest.mark.parametrize(("obj", "patch", "want"), MERGE_CASES)
def test_json_merge_patch_rfc7386(obj: dict, patch: dict, want: dict) -> None:
    before = copy.deepcopy(obj)
    assert json_merge_patch(obj, patch) == want
    assert obj == before  # arguments are not mutated


def test_json_merge_patch_rejects_non_object() -> None:
    with pytest.raises(PatchError) as ei:
        json_merge_patch({"a": 1}, ["x"])  # type: ignore[arg-type]
    assert ei.value.code == 400


# ---------------------------------------------------------------------------------------------------------------
# RFC 6902 appendix A (and evanphx/json-patch's error wording)
# ---------------------------------------------------------------------------------------------------------------

JSON_PATCH_CASES = [
    ("A.1 add object member", {"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}],
     {"baz": "qux", "foo": "bar"}),
    ("A.2 add array element", {"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}],
     {"foo": ["bar", "qux", "baz"]}),
    ("A.3 remove object member", {"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ("A.4 remove array element", {"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}],
     {"foo": ["bar", "baz"]}),
    ("A.5 replace", {"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}],
     {"baz": "boo", "foo": "bar"}),
    ("A.6 move value", {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
     [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
     {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
    ("A.7 move array element", {"foo": ["all", "grass", "cows", "eat"]},
     [{"op": "move", "from": "/foo/1", "path": "/foo/3"}], {"foo": ["all", "cows", "eat", "grass"]}),
    ("A.8 test success", {"baz": "qux", "foo": ["a", 2, "c"]},
     [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
     {"baz": "qux", "foo": ["a", 2, "c"]}),
    ("A.10 add nested member", {"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
     {"foo": "bar", "child": {"grandchild": {}}}),
    ("A.14 ~ escape ordering", {"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}],
     {"/": 9, "~1": 10}),
    ("A.16 add array value", {"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
     {"foo": ["bar", ["abc", "def"]]}),
    ("copy", {"a": {"b": 1}}, [{"op": "copy", "from": "/a", "path": "/c"}], {"a": {"b": 1}, "c": {"b": 1}}),
    ("label via JSON patch (~1 in key)", {"metadata": {"labels": {}}},
     [{"op": "add", "path": "/metadata/labels/app.kubernetes.io~1name", "value": "web"}],
     {"metadata": {"labels": {"app.kubernetes.io/name": "web"}}}),
]


@pytest.mark.parametrize(("name", "obj", "ops", "want"), JSON_PATCH_CASES, ids=[c[0] for c in JSON_PATCH_CASES])
def test_json_patch_rfc6902(name: str, obj: dict, ops: list, want: dict) -> None:
    before = copy.deepcopy(obj)
    assert json_patch(obj, ops) == want
    assert obj == before


JSON_PATCH_ERRORS = [
    ("A.9 test failure", {"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}],
     "testing value /baz failed: test failed"),
    ("A.12 add to nonexistent target", {"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}],
     'add operation does not apply: doc is missing path: "/baz/bat": missing value'),
    ("A.15 comparing strings and numbers", {"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}],
     "testing value /~01 failed: test failed"),
    ("remove missing member", {"a": {}}, [{"op": "remove", "path": "/a/b"}],
     "error in remove for path: '/a/b': Unable to remove nonexistent key: b: missing value"),
    ("replace missing member", {"a": {}}, [{"op": "replace", "path": "/a/b", "value": 1}],
     "replace operation does not apply: doc is missing key: /a/b: missing value"),
    ("move from missing", {"a": {}}, [{"op": "move", "from": "/x", "path": "/a/b"}],
     "move operation does not apply: doc is missing from path: /x: missing value"),
    ("array index out of range", {"a": [1]}, [{"op": "add", "path": "/a/5", "value": 1}],
     "error in add for path: '/a/5': Unable to access invalid index: 5: invalid index referenced"),
    ("unknown op", {}, [{"op": "frobnicate", "path": "/a"}], "Unexpected kind: frobnicate"),
]


@pytest.mark.parametrize(("name", "obj", "ops", "message"), JSON_PATCH_ERRORS, ids=[c[0] for c in JSON_PATCH_ERRORS])
def test_json_patch_errors(name: str, obj: dict, ops: list, message: str) -> None:
    with pytest.raises(PatchError) as ei:
        json_patch(obj, ops)
    assert ei.value.message == message
    assert ei.value.code == 422
    body = ei.value.status_fields()
    # The API server answers a failed JSON patch with a generic 422 and the detail as a cause.
    assert body["message"] == "the server rejected our request due to an error in our request"
    assert body["details"]["causes"][0]["message"] == message


def test_json_patch_applies_atomically_to_a_copy() -> None:
    obj = {"a": 1}
    with pytest.raises(PatchError):
        json_patch(obj, [{"op": "add", "path": "/b", "value": 2}, {"op": "test", "path": "/a", "value": 2}])
    assert obj == {"a": 1}


def test_json_patch_rejects_non_list_body() -> None:
    with pytest.raises(PatchError) as ei:
        json_patch({}, {"op": "add"})  # type: ignore[arg-type]
    assert ei.value.code == 400


# ---------------------------------------------------------------------------------------------------------------
# Strategic merge patch: upstream raw test cases on upstream's test schema
# ---------------------------------------------------------------------------------------------------------------

_MERGE_ITEM = {
    "mergingList": FieldSpec("list", "MergeItem", smp_merge=True, merge_key="name", list_type="map",
                             list_keys=("name",)),
    "mergeItemPtr": FieldSpec("list", "MergeItem", smp_merge=True, merge_key="name", list_type="map",
                              list_keys=("name",)),
    "retainKeysMergingList": FieldSpec("list", "MergeItem", smp_merge=True, merge_key="name", list_type="map",
                                       list_keys=("name",), retain_keys=True),
    "mergingIntList": FieldSpec("list", None, smp_merge=True, list_type="set"),
    "nonMergingList": FieldSpec("list", "MergeItem"),
    "nonMergingIntList": FieldSpec("list"),
    "simpleMap": FieldSpec("map"),
    "retainKeysMap": FieldSpec("struct", "MergeItem", retain_keys=True),
}


@pytest.fixture
def merge_item_schema(monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.setitem(listkeys.TYPES, "MergeItem", _MERGE_ITEM)
    monkeypatch.setitem(listkeys._ROOTS, ("test.simian.dev", "MergeItem"), "MergeItem")
    return ("test.simian.dev/v1", "MergeItem")


# (description, current, three-way patch, result) from patch_test.go's strategicMergePatchRawTestCases
UPSTREAM_RAW = [
    ("nested patch merge with empty list",
     "name: hi\nmergingList:\n- name: hello2\n",
     "$setElementOrder/mergingList:\n- name: hello\n- name: doesntexist\nmergingList:\n- name: hello\n",
     "name: hi\nmergingList:\n- name: hello\n- name: hello2\n"),
    ("delete items in lists of scalars",
     "mergingIntList: [1, 2, 3, 4]",
     "$setElementOrder/mergingIntList: [1, 2]\n$deleteFromPrimitiveList/mergingIntList: [3]",
     "mergingIntList: [1, 2, 4]"),
    ("delete all duplicate items in lists of scalars",
     "mergingIntList: [1, 2, 3, 3, 4]",
     "$setElementOrder/mergingIntList: [1, 2]\n$deleteFromPrimitiveList/mergingIntList: [3]",
     "mergingIntList: [1, 2, 4]"),
    ("add and delete items in lists of scalars",
     "mergingIntList: [1, 2, 3, 4]",
     "$setElementOrder/mergingIntList: [1, 2, 4]\n$deleteFromPrimitiveList/mergingIntList: [3]",
     "mergingIntList: [1, 2, 4]"),
    ("merge lists of maps",
     "mergingList:\n- {name: 1, other: a}\n- {name: 2, value: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]\n"
     "mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]",
     "mergingList:\n- {name: 4, value: 4}\n- {name: 1, other: a}\n- {name: 2, value: 2, other: b}\n"
     "- {name: 3, value: 3}"),
    ("merge lists of maps with conflict",
     "mergingList:\n- {name: 1, other: a}\n- {name: 2, value: 3, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]\n"
     "mergingList: [{name: 2, value: 2}, {name: 3, value: 3}]",
     "mergingList:\n- {name: 1, other: a}\n- {name: 2, value: 2, other: b}\n- {name: 3, value: 3}"),
    ("add field to map in merging list",
     "mergingList:\n- {name: 1, other: a}\n- {name: 2, value: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{name: 1, value: 1}]",
     "mergingList:\n- {name: 1, value: 1, other: a}\n- {name: 2, value: 2, other: b}"),
    ("add field to map in merging list with conflict",
     "mergingList:\n- {name: 1, other: a}\n- {name: 3, value: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}]\n"
     "mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]",
     "mergingList:\n- {name: 1, value: 1, other: a}\n- {name: 2, value: 2}\n- {name: 3, value: 2, other: b}"),
    ("add duplicate field to map in merging list",
     "mergingList:\n- {name: 1, value: 1, other: a}\n- {name: 2, value: 2, other: b}",
     "{}",
     "mergingList:\n- {name: 1, value: 1, other: a}\n- {name: 2, value: 2, other: b}"),
    ("replace map field value in merging list with conflict",
     "mergingList:\n- {name: 1, value: 3, other: a}\n- {name: 2, value: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{name: 1, value: a}]",
     "mergingList:\n- {name: 1, value: a, other: a}\n- {name: 2, value: 2, other: b}"),
    ("delete map from merging list",
     "mergingList:\n- {name: 1}\n- {name: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 2}]\nmergingList: [{name: 1, $patch: delete}]",
     "mergingList:\n- {name: 2, other: b}"),
    ("delete missing map from merging list",
     "mergingList:\n- {name: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 2}]\nmergingList: [{name: 1, $patch: delete}]",
     "mergingList:\n- {name: 2, other: b}"),
    ("delete missing map from merging list with conflict",
     "mergingList:\n- {name: 3, other: a}",
     "$setElementOrder/mergingList: [{name: 2}]\nmergingList: [{name: 2}, {name: 1, $patch: delete}]",
     "mergingList:\n- {name: 2}\n- {name: 3, other: a}"),
    ("add map and delete map from merging list",
     "mergingList:\n- {name: 1}\n- {name: 2, other: b}\n- {name: 4, other: c}",
     "$setElementOrder/mergingList: [{name: 2}, {name: 3}]\nmergingList: [{name: 3}, {name: 1, $patch: delete}]",
     "mergingList:\n- {name: 2, other: b}\n- {name: 4, other: c}\n- {name: 3}"),
    ("add map and delete map from merging list with conflict",
     "mergingList:\n- {name: 1, other: a}\n- {name: 4, other: c}",
     "$setElementOrder/mergingList: [{name: 2}, {name: 3}]\n"
     "mergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]",
     "mergingList:\n- {name: 4, other: c}\n- {name: 2}\n- {name: 3}"),
    ("delete field from map in merging list",
     "mergingList:\n- {name: 1, value: 1, other: a}\n- {name: 2, value: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{name: 1, value: null}]",
     "mergingList:\n- {name: 1, other: a}\n- {name: 2, value: 2, other: b}"),
    ("delete missing field from map in merging list with conflict",
     "mergingList:\n- {name: 1, other: a}\n- {name: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}]\n"
     "mergingList: [{name: 1, value: null}, {name: 2, value: 2}]",
     "mergingList:\n- {name: 1, other: a}\n- {name: 2, value: 2, other: b}"),
    ("replace non merging list nested in merging list",
     "mergingList:\n- name: 1\n  other: a\n  nonMergingList: [{name: 1}, {name: 2, value: 2}]\n- {name: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}]\n"
     "mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]",
     "mergingList:\n- name: 1\n  other: a\n  nonMergingList: [{name: 1, value: 1}]\n- {name: 2, other: b}"),
    ("add field to map in merging list nested in merging list with value conflict",
     "mergingList:\n- name: 1\n  other: a\n  mergingList:\n  - {name: 1, value: a, other: c}\n"
     "  - {name: 2, value: b, other: d}\n- {name: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}]\n"
     "mergingList:\n- $setElementOrder/mergingList: [{name: 1}, {name: 2}]\n  name: 1\n"
     "  mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]",
     "mergingList:\n- name: 1\n  other: a\n  mergingList:\n  - {name: 1, value: 1, other: c}\n"
     "  - {name: 2, value: 2, other: d}\n- {name: 2, other: b}"),
    ("add field to map in merging list nested in merging list with deletion conflict (reordered)",
     "mergingList:\n- name: 1\n  other: a\n  mergingList:\n  - {name: 2, value: 2, other: d}\n- {name: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 1}, {name: 2}]\n"
     "mergingList:\n- $setElementOrder/mergingList: [{name: 2}, {name: 1}]\n  name: 1\n"
     "  mergingList: [{name: 1, value: 1}]",
     "mergingList:\n- name: 1\n  other: a\n  mergingList:\n  - {name: 2, value: 2, other: d}\n"
     "  - {name: 1, value: 1}\n- {name: 2, other: b}"),
    ("add map to merging list by pointer",
     "mergeItemPtr:\n- {name: 1, other: a}\n- {name: 3}",
     "$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]\nmergeItemPtr: [{name: 2}]",
     "mergeItemPtr:\n- {name: 1, other: a}\n- {name: 2}\n- {name: 3}"),
    ("add map to merging list by pointer with conflict",
     "mergeItemPtr:\n- {name: 3}",
     "$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]\nmergeItemPtr: [{name: 1}, {name: 2}]",
     "mergeItemPtr:\n- {name: 1}\n- {name: 2}\n- {name: 3}"),
    ("retainKeys map nested merging list with no change",
     "retainKeysMap:\n  name: foo\n  mergingList: [{name: a}, {name: b}, {name: c}]",
     "retainKeysMap:\n  $retainKeys: [mergingList, name, value]\n"
     "  $setElementOrder/mergingList: [{name: a}, {name: b}]\n  value: bar",
     "retainKeysMap:\n  name: foo\n  value: bar\n  mergingList: [{name: a}, {name: b}, {name: c}]"),
    ("retainKeys map adds an item in nested merging list",
     "retainKeysMap:\n  name: foo\n  mergingList: [{name: a}, {name: b}, {name: x}]",
     "retainKeysMap:\n  $retainKeys: [mergingList, name]\n"
     "  $setElementOrder/mergingList: [{name: a}, {name: b}, {name: c}]\n  mergingList: [{name: c}]",
     "retainKeysMap:\n  name: foo\n  mergingList: [{name: a}, {name: b}, {name: c}, {name: x}]"),
    ("retainKeys list of maps clears a field",
     "retainKeysMergingList:\n- {name: bar}\n- {name: foo, value: a}",
     "$setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]\n"
     "retainKeysMergingList:\n- $retainKeys: [name]\n  name: foo\n  value: null",
     "retainKeysMergingList:\n- {name: bar}\n- {name: foo}"),
    ("delete an item in a list of primitives and preserve order",
     "mergingIntList: [1, 2, 3]",
     "$setElementOrder/mergingIntList: [2, 1]\n$deleteFromPrimitiveList/mergingIntList: [3]",
     "mergingIntList: [2, 1]"),
    ("add an item in a list of primitives and preserve order",
     "mergingIntList: [1, 4, 2]",
     "$setElementOrder/mergingIntList: [3, 1, 2]\nmergingIntList: [3]",
     "mergingIntList: [3, 1, 4, 2]"),
    ("add an item in a list and preserve order",
     "mergingList:\n- {name: 1, other: a}\n- {name: 2, value: 2, other: b}",
     "$setElementOrder/mergingList: [{name: 3}, {name: 1}, {name: 2}]\nmergingList: [{name: 3, value: 3}]",
     "mergingList:\n- {name: 3, value: 3}\n- {name: 1, other: a}\n- {name: 2, value: 2, other: b}"),
    ("delete and reorder in one list, reorder in another",
     "mergingList: [{name: a, value: a}, {name: b, value: b}]\n"
     "mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]",
     "$setElementOrder/mergingList: [{name: b}]\n$setElementOrder/mergeItemPtr: [{name: d}, {name: c}]\n"
     "mergingList: [{$patch: delete, name: a}]",
     "mergingList: [{name: b, value: b}]\nmergeItemPtr: [{name: d, value: d}, {name: c, value: c}]"),
    ("replace a non merging list",
     "nonMergingList: [{name: 1}, {name: 2}]",
     "nonMergingList: [{name: 3}]",
     "nonMergingList: [{name: 3}]"),
    ("$patch replace on a merging list",
     "mergingList: [{name: 1, value: 1}, {name: 2}]",
     "mergingList: [{name: 3}, {$patch: replace}]",
     "mergingList: [{name: 3}]"),
    ("$patch replace on a map",
     "simpleMap: {key1: a, key2: b}",
     "simpleMap: {$patch: replace, key3: c}",
     "simpleMap: {key3: c}"),
    ("$patch delete on a map",
     "simpleMap: {key1: a}\nname: x",
     "simpleMap: {$patch: delete}",
     "simpleMap: {}\nname: x"),
    ("null deletes a key",
     "simpleMap: {key1: a, key2: b}",
     "simpleMap: {key1: null}",
     "simpleMap: {key2: b}"),
    ("merging list added where there was none keeps no directives",
     "name: x",
     "mergingList: [{name: 1}, {name: 2, $patch: delete}]",
     "name: x\nmergingList: [{name: 1}]"),
]


@pytest.mark.parametrize(("desc", "current", "patch", "result"), UPSTREAM_RAW, ids=[c[0] for c in UPSTREAM_RAW])
def test_strategic_merge_upstream_raw_cases(
    merge_item_schema: tuple[str, str], desc: str, current: str, patch: str, result: str
) -> None:
    api_version, kind = merge_item_schema
    cur = yaml.safe_load(current)
    before = copy.deepcopy(cur)
    got = strategic_merge_patch(cur, yaml.safe_load(patch), api_version=api_version, kind=kind)
    assert got == yaml.safe_load(result)
    assert cur == before


SMP_ERRORS = [
    ("retainKeys must list every patched key",
     "retainKeysMap: {name: foo}", "retainKeysMap: {$retainKeys: [name], value: bar}",
     400, "invalid patch format of retainKeys"),
    ("retainKeys must be a list",
     "retainKeysMap: {name: foo}", "retainKeysMap: {$retainKeys: name}",
     400, "invalid patch format of retainKeys"),
    ("deleteFromPrimitiveList must be a list",
     "mergingIntList: [1]", "$deleteFromPrimitiveList/mergingIntList: 1",
     400, "invalid patch format of primitive list"),
    ("lists of lists",
     "mergingIntList: [[1]]", "mergingIntList: [[2]]",
     422, "lists of lists are not supported"),
    ("merge key missing from an item",
     "mergingList: [{name: 1}]", "mergingList: [{value: 2}]",
     500, "map: map[value:2] does not contain declared merge key: name"),
    ("unknown directive in a list",
     "mergingList: [{name: 1}]", "mergingList: [{name: 1, $patch: frob}]",
     500, "unknown patch type: frob in map: map[$patch:frob name:1]"),
    ("$patch merge in a list",
     "mergingList: [{name: 1}]", "mergingList: [{$patch: merge}]",
     500, "merging lists cannot yet be specified in the patch"),
]


@pytest.mark.parametrize(("desc", "current", "patch", "code", "message"), SMP_ERRORS, ids=[c[0] for c in SMP_ERRORS])
def test_strategic_merge_errors(
    merge_item_schema: tuple[str, str], desc: str, current: str, patch: str, code: int, message: str
) -> None:
    api_version, kind = merge_item_schema
    with pytest.raises(PatchError) as ei:
        strategic_merge_patch(yaml.safe_load(current), yaml.safe_load(patch), api_version=api_version, kind=kind)
    assert ei.value.code == code
    assert ei.value.message == message


# ---------------------------------------------------------------------------------------------------------------
# Strategic merge patch on built-in kinds, with the patch shapes kubectl sends
# ---------------------------------------------------------------------------------------------------------------

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}, "finalizers": ["a", "b"]},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {"name": "nginx", "image": "nginx:1.25", "env": [{"name": "A", "value": "1"}],
                     "ports": [{"containerPort": 80, "protocol": "TCP"}],
                     "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
                    {"name": "sidecar", "image": "busybox:1.36"},
                ],
                "volumes": [{"name": "data", "emptyDir": {}}],
                "tolerations": [{"key": "a", "operator": "Exists"}],
            },
        },
    },
}


def _deploy_patch(patch: dict) -> dict:
    return strategic_merge_patch(copy.deepcopy(DEPLOYMENT), patch, api_version="apps/v1", kind="Deployment")


def test_kubectl_set_image_merges_the_container_by_name() -> None:
    got = _deploy_patch({"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}}})
    containers = got["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["nginx", "sidecar"]
    assert containers[0]["image"] == "nginx:1.27"
    assert containers[0]["env"] == [{"name": "A", "value": "1"}]


def test_kubectl_rollout_restart_adds_a_template_annotation() -> None:
    patch = {"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": "2026-11-29T14:00:00Z"}}}}}
    got = _deploy_patch(patch)
    assert got["spec"]["template"]["metadata"] == {
        "labels": {"app": "web"},
        "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-11-29T14:00:00Z"},
    }


def test_kubectl_label_and_unlabel() -> None:
    got = _deploy_patch({"metadata": {"labels": {"tier": "fe", "app": None}}})
    assert got["metadata"]["labels"] == {"tier": "fe"}


def test_client_side_apply_three_way_patch_shape() -> None:
    # What kubectl apply (client side) sends after the user edited the manifest: a new env var placed first,
    # a container removed, a volume mount dropped, and the order carried by $setElementOrder.
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "nginx"}],
                    "containers": [
                        {
                            "name": "nginx",
                            "$setElementOrder/env": [{"name": "B"}, {"name": "A"}],
                            "env": [{"name": "B", "value": "2"}],
                            "$setElementOrder/volumeMounts": [],
                            "volumeMounts": [{"mountPath": "/data", "$patch": "delete"}],
                        },
                        {"name": "sidecar", "$patch": "delete"},
                    ],
                }
            }
        }
    }
    got = _deploy_patch(patch)
    (nginx,) = got["spec"]["template"]["spec"]["containers"]
    assert nginx["env"] == [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]
    assert nginx["volumeMounts"] == []
    assert not any(k.startswith("$") for k in nginx)


def test_tolerations_are_replaced_not_merged() -> None:
    got = _deploy_patch({"spec": {"template": {"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}}})
    assert got["spec"]["template"]["spec"]["tolerations"] == [{"key": "b", "operator": "Exists"}]


def test_volume_source_change_uses_retain_keys() -> None:
    patch = {"spec": {"template": {"spec": {"volumes": [
        {"name": "data", "$retainKeys": ["configMap", "name"], "configMap": {"name": "cfg"}}]}}}}
    got = _deploy_patch(patch)
    assert got["spec"]["template"]["spec"]["volumes"] == [{"name": "data", "configMap": {"name": "cfg"}}]


def test_strategy_type_change_clears_rolling_update_with_retain_keys() -> None:
    got = _deploy_patch({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": None}}})
    assert got["spec"]["strategy"] == {"type": "Recreate"}


def test_finalizers_merge_and_delete_from_primitive_list() -> None:
    got = _deploy_patch({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}})
    assert got["metadata"]["finalizers"] == ["b"]
    got = _deploy_patch({"metadata": {"$setElementOrder/finalizers": ["a", "b", "c"], "finalizers": ["c"]}})
    assert got["metadata"]["finalizers"] == ["a", "b", "c"]


def test_container_ports_merge_by_container_port() -> None:
    patch = {"spec": {"template": {"spec": {"containers": [
        {"name": "nginx", "ports": [{"containerPort": 443, "protocol": "TCP"}]}]}}}}
    got = _deploy_patch(patch)
    ports = got["spec"]["template"]["spec"]["containers"][0]["ports"]
    # Without $setElementOrder, upstream's mergeSortedSlice puts patch items the live list lacks first.
    assert [p["containerPort"] for p in ports] == [443, 80]


def test_service_ports_merge_by_port_and_selector_merges_keys() -> None:
    svc = {"spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}}
    got = strategic_merge_patch(svc, {"spec": {"ports": [{"port": 80, "targetPort": 9090}, {"port": 443}]}},
                                api_version="v1", kind="Service")
    assert got["spec"]["ports"] == [{"port": 80, "targetPort": 9090}, {"port": 443}]


def test_owner_references_merge_by_uid() -> None:
    pod = {"metadata": {"ownerReferences": [{"uid": "u1", "kind": "ReplicaSet", "name": "rs"}]}}
    got = strategic_merge_patch(pod, {"metadata": {"ownerReferences": [{"uid": "u2", "kind": "Node", "name": "n"}]}},
                                api_version="v1", kind="Pod")
    # New items go first without $setElementOrder (what kustomize calls "prepend", inherited from upstream).
    assert [o["uid"] for o in got["metadata"]["ownerReferences"]] == ["u2", "u1"]


def test_status_conditions_merge_by_type() -> None:
    pod = {"status": {"conditions": [{"type": "Ready", "status": "False"}, {"type": "Initialized", "status": "True"}]}}
    got = strategic_merge_patch(pod, {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
                                api_version="v1", kind="Pod")
    assert got["status"]["conditions"] == [{"type": "Ready", "status": "True"}, {"type": "Initialized",
                                                                                  "status": "True"}]


def test_unknown_kind_replaces_lists() -> None:
    obj = {"spec": {"items": [{"name": "a"}], "m": {"x": 1}}}
    got = strategic_merge_patch(obj, {"spec": {"items": [{"name": "b"}], "m": {"y": 2}}},
                                api_version="example.com/v1", kind="Widget")
    assert got == {"spec": {"items": [{"name": "b"}], "m": {"x": 1, "y": 2}}}
    assert not listkeys.is_builtin_kind("example.com/v1", "Widget")
    assert listkeys.is_builtin_kind("apps/v1", "Deployment")


def test_strategic_merge_does_not_mutate_arguments() -> None:
    obj = copy.deepcopy(DEPLOYMENT)
    patch = {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "nginx"}],
                                            "containers": [{"name": "x", "$patch": "delete"}]}}}}
    patch_before = copy.deepcopy(patch)
    got = strategic_merge_patch(obj, patch, api_version="apps/v1", kind="Deployment")
    assert obj == DEPLOYMENT
    assert patch == patch_before
    assert [c["name"] for c in got["spec"]["template"]["spec"]["containers"]] == ["sidecar", "nginx"]


@pytest.mark.parametrize(
    ("path", "keys"),
    [
        ("spec.template.spec.containers", ("name",)),
        ("spec.template.spec.volumes", ("name",)),
        ("spec.template.spec.imagePullSecrets", ("name",)),
        ("spec.template.spec.tolerations", None),
        ("metadata.ownerReferences", ("uid",)),
        ("metadata.finalizers", None),
        ("status.conditions", ("type",)),
    ],
)
def test_list_keys_table_for_deployments(path: str, keys: tuple[str, ...] | None) -> None:
    assert listkeys.list_keys_for("apps/v1", "Deployment", path) == keys


def test_list_keys_table_ports() -> None:
    assert listkeys.list_keys_for("v1", "Service", "spec.ports") == ("port", "protocol")
    assert listkeys.list_keys_for("v1", "Pod", "spec.containers") == ("name",)
    assert listkeys.list_keys_for("batch/v1", "CronJob", "spec.jobTemplate.spec.template.spec.containers") == (
        "name",
    )
