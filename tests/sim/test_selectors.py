"""Label and field selectors: parsing, matching and error wording.

Label selector cases follow k8s.io/apimachinery/pkg/labels/selector_test.go (TestSelectorParse,
TestSelectorMatches, TestSetSelectorParser, TestRequirementSelectorMatching); field selector cases the
per-kind field label conversions of pkg/apis/core/v1/conversion.go and fields/selector_test.go.
"""

from __future__ import annotations

import pytest

from pytest_simian.sim.selectors import (
    SelectorError,
    label_selector_from_dict,
    parse_field_selector,
    parse_label_selector,
    selector_from_set,
    supported_field_labels,
)

# --------------------------------------------------------------------------------------------------------------
# label selectors: parse + String() round trip (TestSelectorParse)
# --------------------------------------------------------------------------------------------------------------

GOOD = ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"]


@pytest.mark.parametrize("s", GOOD)
def test_parse_good_selectors_round_trip(s: str) -> None:
    assert str(parse_label_selector(s)) == s.replace(" ", "")


@pytest.mark.parametrize("s", ["x=a||y=b", "x==a==b", "!x=a", "x<a"])
def test_parse_bad_selectors(s: str) -> None:
    with pytest.raises(SelectorError):
        parse_label_selector(s)


def test_parse_is_deterministic() -> None:
    assert str(parse_label_selector("x=a,a=x")) == str(parse_label_selector("a=x,x=a")) == "a=x,x=a"


@pytest.mark.parametrize(
    ("s", "canonical"),
    [
        ("\rx", "x"),
        ("this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"),
        ("this-is-another-dns.domain.com/key-with-dash in (so,what)",
         "this-is-another-dns.domain.com/key-with-dash in (so,what)"),
        ("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"),
        ("foo  in\t (abc)", "foo in (abc)"),
        ("x notin\n (abc)", "x notin (abc)"),
        ("x  notin\t\t\t(abc,def)", "x notin (abc,def)"),
        ("x in (abc,)", "x in (,abc)"),
        ("x in ()", "x in ()"),
        ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
        ("x,y in (a)", "x,y in (a)"),
        ("x=a", "x=a"),
        ("x>1", "x>1"),
        ("x<7", "x<7"),
        ("x=a,y!=b", "x=a,y!=b"),
        ("x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"),
        ("notin=in", "notin=in"),
        ("x in (in, notin)", "x in (in,notin)"),
    ],
)
def test_set_selector_parser(s: str, canonical: str) -> None:
    assert str(parse_label_selector(s)) == canonical


# --------------------------------------------------------------------------------------------------------------
# matching (TestSelectorMatches, TestRequirementSelectorMatching)
# --------------------------------------------------------------------------------------------------------------

MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),
    ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True),
    ("x>1", {"x": "2"}, True),
    ("x<1", {"x": "0"}, True),
    ("x=z", {}, False),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("x", {"y": "z"}, False),
    ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False),
    ("x<1", {"x": "2"}, False),
    ("z>1", {"z": "v2"}, False),
    ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    ("x in (foo),y notin (alpha)", {"x": "foo", "y": "baz"}, True),
    ("x in (foo),y in (alpha)", {"x": "foo", "y": "baz"}, False),
    ("x notin (),y", {"y": ""}, True),
    ("!x,y", {"y": ""}, True),
    ("x notin (),!y", {"y": ""}, False),
    ("x in ()", {"y": "baz"}, False),
    ("x!=a", {}, True),  # NotEquals matches a missing key
    ("env in (prod,staging),tier", {"env": "prod", "tier": "fe"}, True),
]


@pytest.mark.parametrize(("s", "labels", "want"), MATCHES)
def test_label_selector_matches(s: str, labels: dict, want: bool) -> None:
    assert parse_label_selector(s).matches(labels) is want


# --------------------------------------------------------------------------------------------------------------
# error wording (shown verbatim by kubectl: "Error from server (BadRequest): ...")
# --------------------------------------------------------------------------------------------------------------

ERRORS = [
    ("a in b", "unable to parse requirement: found 'b' expected: '('"),
    ("a=b c", "found 'c', expected: ',' or 'end of string'"),
    ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a,", "found '', expected: identifier after ','"),
    ("=a", "found '=', expected: !, identifier, or 'end of string'"),
    ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("!", "unable to parse requirement: found '', expected: identifier"),
    ("x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must "
            "be an integer"),
    ("a/b/c=d", "unable to parse requirement: : Invalid value: \"a/b/c\": a qualified name must consist of "
                "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
                "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. "
                "'example.com/MyName')"),
    ("-x=a", "unable to parse requirement: : Invalid value: \"-x\": name part must consist of alphanumeric "
             "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
             "or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ("x=a b", "found 'b', expected: ',' or 'end of string'"),
    ("x=-a", "unable to parse requirement: values[0][x]: Invalid value: \"-a\": a valid label must be an empty string "
             "or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
             "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
             "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
]


@pytest.mark.parametrize(("s", "message"), ERRORS)
def test_label_selector_error_messages(s: str, message: str) -> None:
    with pytest.raises(SelectorError) as ei:
        parse_label_selector(s)
    assert ei.value.message == message
    assert ei.value.code == 400


def test_key_too_long() -> None:
    with pytest.raises(SelectorError, match="name part must be no more than 63 characters"):
        parse_label_selector("a" * 64)


# --------------------------------------------------------------------------------------------------------------
# metav1.LabelSelector and label sets: the two "empty" semantics
# --------------------------------------------------------------------------------------------------------------


def test_nil_label_selector_matches_nothing_and_empty_matches_everything() -> None:
    assert label_selector_from_dict(None).matches({}) is False
    assert label_selector_from_dict(None).matches({"app": "web"}) is False
    assert label_selector_from_dict({}).matches({}) is True
    assert label_selector_from_dict({"matchLabels": {}, "matchExpressions": []}).matches({"a": "b"}) is True
    assert label_selector_from_dict({}).empty()
    assert not label_selector_from_dict(None).empty()


@pytest.mark.parametrize(
    ("sel", "labels", "want"),
    [
        ({"matchLabels": {"app": "web"}}, {"app": "web", "pod-template-hash": "x"}, True),
        ({"matchLabels": {"app": "web"}}, {"app": "db"}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe", "be"]}]}, {"tier": "fe"}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["fe"]}]}, {}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, {"tier": ""}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, {"tier": "x"}, False),
        ({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "canary", "operator": "DoesNotExist"}]},
         {"app": "web"}, True),
    ],
)
def test_label_selector_from_dict(sel: dict, labels: dict, want: bool) -> None:
    assert label_selector_from_dict(sel).matches(labels) is want


def test_label_selector_from_dict_errors() -> None:
    with pytest.raises(SelectorError, match='"Foo" is not a valid label selector operator'):
        label_selector_from_dict({"matchExpressions": [{"key": "a", "operator": "Foo"}]})
    with pytest.raises(SelectorError, match="values set can't be empty"):
        label_selector_from_dict({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]})


def test_label_selector_string_form() -> None:
    sel = label_selector_from_dict({"matchLabels": {"b": "2", "a": "1"},
                                    "matchExpressions": [{"key": "c", "operator": "In", "values": ["y", "x"]}]})
    assert str(sel) == "a=1,b=2,c in (x,y)"
    assert sel.requires_exact_match("a") == "1"


def test_selector_from_set() -> None:
    assert selector_from_set({}).matches({"a": "b"})
    assert not selector_from_set({}, empty_matches_nothing=True).matches({"a": "b"})
    assert selector_from_set({"app": "web"}).matches({"app": "web", "x": "y"})
    assert not selector_from_set({"app": "web"}).matches({})


# --------------------------------------------------------------------------------------------------------------
# field selectors
# --------------------------------------------------------------------------------------------------------------

POD = {
    "metadata": {"name": "web-1", "namespace": "default"},
    "spec": {"nodeName": "node-a", "restartPolicy": "Always", "schedulerName": "default-scheduler",
             "serviceAccountName": "default", "hostNetwork": False},
    "status": {"phase": "Running", "podIP": "10.0.0.5", "podIPs": [{"ip": "10.0.0.5"}]},
}

FIELD_MATCHES = [
    ("pods", "", POD, True),
    ("pods", "metadata.name=web-1", POD, True),
    ("pods", "metadata.name==web-1", POD, True),
    ("pods", "metadata.name!=web-1", POD, False),
    ("pods", "metadata.namespace=default,status.phase=Running", POD, True),
    ("pods", "status.phase!=Running", POD, False),
    ("pods", "status.phase!=Pending", POD, True),
    ("pods", "spec.nodeName=node-a", POD, True),
    ("pods", "spec.nodeName=", POD, False),
    ("pods", "spec.nodeName=", {"metadata": {"name": "p"}, "spec": {}}, True),  # unscheduled pods
    ("pods", "spec.host=node-a", POD, True),  # old clients' name for spec.nodeName
    ("pods", "spec.hostNetwork=false", POD, True),
    ("pods", "spec.restartPolicy=Always", POD, True),
    ("pods", "spec.schedulerName=default-scheduler", POD, True),
    ("pods", "spec.serviceAccountName=default", POD, True),
    ("pods", "status.podIP=10.0.0.5", POD, True),
    ("pods", "status.nominatedNodeName=", POD, True),
    ("events", "involvedObject.kind=Pod,involvedObject.name=web-1,type=Warning,reason=BackOff",
     {"involvedObject": {"kind": "Pod", "name": "web-1"}, "type": "Warning", "reason": "BackOff"}, True),
    ("events", "source=kubelet", {"source": {"component": "kubelet"}}, True),
    ("events", "reportingComponent=kubelet", {"reportingComponent": "kubelet"}, True),
    ("events", "involvedObject.uid=u1", {"involvedObject": {"uid": "u2"}}, False),
    ("secrets", "type=kubernetes.io/tls", {"type": "kubernetes.io/tls"}, True),
    ("secrets", "type!=kubernetes.io/service-account-token", {"type": "Opaque"}, True),
    ("services", "spec.clusterIP!=None", {"spec": {"clusterIP": "None", "type": "ClusterIP"}}, False),
    ("services", "spec.type=NodePort", {"spec": {"type": "NodePort"}}, True),
    ("namespaces", "status.phase=Active", {"status": {"phase": "Active"}}, True),
    ("nodes", "spec.unschedulable=true", {"spec": {"unschedulable": True}}, True),
    ("nodes", "spec.unschedulable=false", {"spec": {}}, True),
    ("replicasets", "status.replicas=0", {"status": {}}, True),
    ("replicasets", "status.replicas=3", {"status": {"replicas": 3}}, True),
    ("jobs", "status.successful=1", {"status": {"succeeded": 1}}, True),
    ("configmaps", "metadata.name=a\\,b", {"metadata": {"name": "a,b"}}, True),
    ("configmaps", "metadata.name=a\\=b", {"metadata": {"name": "a=b"}}, True),
]


@pytest.mark.parametrize(("resource", "s", "obj", "want"), FIELD_MATCHES)
def test_field_selector_matches(resource: str, s: str, obj: dict, want: bool) -> None:
    assert parse_field_selector(s, resource=resource).matches(obj) is want


FIELD_ERRORS = [
    ("pods", "foo=bar", "field label not supported: foo"),
    ("pods", "spec.containers=x", "field label not supported: spec.containers"),
    ("configmaps", "data.x=1", "field label not supported: data.x"),
    ("services", "spec.selector=x", "field label not supported: spec.selector"),
    ("secrets", "status.phase=x", "field label not supported: status.phase"),
    ("pods", "metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
    ("pods", "a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"),
    ("pods", "metadata.name=a\\x", "invalid field selector: invalid escape sequence: \\x"),
]


@pytest.mark.parametrize(("resource", "s", "message"), FIELD_ERRORS)
def test_field_selector_errors(resource: str, s: str, message: str) -> None:
    with pytest.raises(SelectorError) as ei:
        parse_field_selector(s, resource=resource)
    assert ei.value.message == message


def test_supported_field_labels() -> None:
    assert supported_field_labels("configmaps") == ["metadata.name", "metadata.namespace"]
    assert "spec.nodeName" in supported_field_labels("pods")
    assert "involvedObject.name" in supported_field_labels("events")


def test_field_selector_exact_match_and_string() -> None:
    sel = parse_field_selector("metadata.name=web,status.phase!=Failed", resource="pods")
    assert sel.requires_exact_match("metadata.name") == "web"
    assert sel.requires_exact_match("status.phase") is None
    assert str(sel) == "metadata.name=web,status.phase!=Failed"
    assert parse_field_selector("", resource="pods").empty()
