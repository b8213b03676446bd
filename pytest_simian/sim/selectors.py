"""Label and field selectors, parsed and matched the way the API server does.

Why: ``kubectl get -l``, ``--field-selector``, the Python client's ``label_selector=``/``field_selector=``,
and the controllers (a Deployment's ``spec.selector``, a Service's ``spec.selector``) all select objects. The
parse errors are shown to the user verbatim (``Error from server (BadRequest): ...``), so the grammar and the
messages follow k8s.io/apimachinery/pkg/labels/selector.go, fields/selector.go and the per-kind field label
conversions of pkg/apis/*/v1/conversion.go.

Two semantics of an unset selector exist upstream and both are exposed here:

* a *list* call without ``labelSelector`` (or with ``""``) selects everything: ``parse_label_selector("")``;
* a ``metav1.LabelSelector`` that is nil selects nothing (``metav1.LabelSelectorAsSelector(nil)`` is
  ``labels.Nothing()``), while an empty one ``{}`` selects everything:
  ``label_selector_from_dict(None)`` vs ``label_selector_from_dict({})``. A Service's ``spec.selector`` map is
  different again: an empty or missing map selects nothing (no endpoints are managed), see
  :func:`selector_from_set`.

Must not: do I/O or know about HTTP; errors are :class:`SelectorError` carrying the upstream message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SelectorError",
    "Requirement",
    "LabelSelector",
    "FieldSelector",
    "parse_label_selector",
    "label_selector_from_dict",
    "selector_from_set",
    "parse_field_selector",
    "supported_field_labels",
]


class SelectorError(ValueError):
    """A selector the API server rejects (HTTP 400 BadRequest, the message is the upstream text)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = 400
        self.reason = "BadRequest"


# ---------------------------------------------------------------------------------------------------------------
# Validation messages (k8s.io/apimachinery/pkg/util/validation)
# ---------------------------------------------------------------------------------------------------------------

_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_RE = re.compile("^" + _QNAME_FMT + "$")
_QNAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character"
)
_LABEL_VALUE_FMT = "(" + _QNAME_FMT + ")?"
_LABEL_VALUE_RE = re.compile("^" + _LABEL_VALUE_FMT + "$")
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character"
)
_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
_DNS1123_SUBDOMAIN_RE = re.compile("^" + _DNS1123_SUBDOMAIN_FMT + "$")
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    msg += " (e.g. "
    for i, ex in enumerate(examples):
        if i > 0:
            msg += " or "
        msg += f"'{ex}', "
    return msg + f"regex used for validation is '{fmt}')"


def _qualified_name_errors(value: str) -> list[str]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                errs.append("prefix part must be no more than 253 characters")
            if not _DNS1123_SUBDOMAIN_RE.match(prefix):
                errs.append(
                    "prefix part "
                    + _regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com")
                )
    else:
        return [
            "a qualified name "
            + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if not _QNAME_RE.match(name):
        errs.append("name part " + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def _label_value_errors(value: str) -> list[str]:
    errs: list[str] = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _LABEL_VALUE_RE.match(value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _go_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _invalid(path: str, value: str, errs: list[str]) -> str:
    return f"{path}: Invalid value: {_go_quote(value)}: {'; '.join(errs)}"


# ---------------------------------------------------------------------------------------------------------------
# Label selectors
# ---------------------------------------------------------------------------------------------------------------

_OPERATORS = ("in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!")


@dataclass(frozen=True)
class Requirement:
    """One term of a label selector. ``operator`` is upstream's selection.Operator string:
    ``in``, ``notin``, ``=``, ``==``, ``!=``, ``gt``, ``lt``, ``exists`` or ``!`` (does not exist)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op in ("in", "=", "=="):
            return self.key in labels and labels[self.key] in self.values
        if op in ("notin", "!="):
            return self.key not in labels or labels[self.key] not in self.values
        if op == "exists":
            return self.key in labels
        if op == "!":
            return self.key not in labels
        if op in ("gt", "lt"):
            if self.key not in labels or len(self.values) != 1:
                return False
            try:
                have, want = int(labels[self.key]), int(self.values[0])
            except ValueError:
                return False
            return have > want if op == "gt" else have < want
        return False

    def __str__(self) -> str:
        if self.operator == "!":
            return "!" + self.key
        if self.operator == "exists":
            return self.key
        vals = ",".join(sorted(self.values)) if len(self.values) > 1 else "".join(self.values)
        if self.operator in ("in", "notin"):
            return f"{self.key} {self.operator} ({vals})"
        sym = {"gt": ">", "lt": "<"}.get(self.operator, self.operator)
        return f"{self.key}{sym}{vals}"


@dataclass(frozen=True)
class LabelSelector:
    """A parsed label selector: all requirements must match. ``nothing`` selects no object at all."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.nothing:
            return False
        labels = labels or {}
        return all(r.matches(labels) for r in self.requirements)

    def empty(self) -> bool:
        """True when the selector selects everything (upstream ``Selector.Empty()``)."""
        return not self.nothing and not self.requirements

    def requires_exact_match(self, key: str) -> str | None:
        for r in self.requirements:
            if r.key == key:
                if r.operator in ("=", "==", "in") and len(r.values) == 1:
                    return r.values[0]
                return None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


EVERYTHING = LabelSelector()
NOTHING = LabelSelector(nothing=True)


def _new_requirement(key: str, op: str, values: list[str], path: str = "") -> Requirement:
    """labels.NewRequirement: validates the key, the operator's arity and each value."""
    errs: list[str] = []
    kerrs = _qualified_name_errors(key)
    if kerrs:
        errs.append(_invalid(_child(path, "key"), key, kerrs))
    vpath = _child(path, "values")
    if op in ("in", "notin"):
        if not values:
            errs.append(f"{vpath}: Invalid value: []: for 'in', 'notin' operators, values set can't be empty")
    elif op in ("=", "==", "!="):
        if len(values) != 1:
            errs.append(
                f"{vpath}: Invalid value: {_go_list(values)}: exact-match compatibility requires one single value"
            )
    elif op in ("exists", "!"):
        if values:
            errs.append(
                f"{vpath}: Invalid value: {_go_list(values)}: values set must be empty for exists and does not exist"
            )
    elif op in ("gt", "lt"):
        if len(values) != 1:
            errs.append(
                f"{vpath}: Invalid value: {_go_list(values)}: for 'Gt', 'Lt' operators, exactly one value is required"
            )
        for i, v in enumerate(values):
            if not re.fullmatch(r"[+-]?\d+", v):
                errs.append(
                    f"{vpath}[{i}]: Invalid value: {_go_quote(v)}: for 'Gt', 'Lt' operators, the value must be an "
                    "integer"
                )
    else:
        errs.append(
            f"{_child(path, 'operator')}: Unsupported value: {_go_quote(op)}: supported values: "
            + ", ".join(_go_quote(o) for o in ("!", "=", "==", "in", "!=", "notin", "exists", "gt", "lt"))
        )
    for i, v in enumerate(values):
        verrs = _label_value_errors(v)
        if verrs:
            errs.append(_invalid(f"{vpath}[{i}][{key}]", v, verrs))
    if errs:
        raise SelectorError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
    return Requirement(key, op, tuple(values))


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _go_list(values: list[str]) -> str:
    return "[]string{" + ", ".join(_go_quote(v) for v in values) + "}"


# Lexer tokens
_T_END, _T_CLOSE, _T_COMMA, _T_NOT, _T_DEQ, _T_EQ, _T_GT, _T_ID, _T_IN, _T_LT, _T_NEQ, _T_NOTIN, _T_OPEN, _T_ERR = (
    range(14)
)
_STRING2TOKEN = {
    ")": _T_CLOSE,
    ",": _T_COMMA,
    "!": _T_NOT,
    "==": _T_DEQ,
    "=": _T_EQ,
    ">": _T_GT,
    "in": _T_IN,
    "<": _T_LT,
    "!=": _T_NEQ,
    "notin": _T_NOTIN,
    "(": _T_OPEN,
}
_SPECIAL = set("=!(),><")
_WHITESPACE = set(" \t\r\n")


def _lex(s: str) -> list[tuple[int, str]]:
    items: list[tuple[int, str]] = []
    pos = 0
    n = len(s)
    while True:
        while pos < n and s[pos] in _WHITESPACE:
            pos += 1
        if pos >= n:
            items.append((_T_END, ""))
            return items
        ch = s[pos]
        if ch in _SPECIAL:
            buf = ""
            last: tuple[int, str] | None = None
            while pos < n and s[pos] in _SPECIAL:
                buf += s[pos]
                if buf in _STRING2TOKEN:
                    last = (_STRING2TOKEN[buf], buf)
                    pos += 1
                elif last is not None:
                    break
                else:
                    pos += 1
            if last is None:
                items.append((_T_ERR, f"error expected: keyword found '{buf}'"))
            else:
                items.append(last)
        else:
            start = pos
            while pos < n and s[pos] not in _SPECIAL and s[pos] not in _WHITESPACE:
                pos += 1
            word = s[start:pos]
            items.append((_STRING2TOKEN.get(word, _T_ID), word))


class _Parser:
    def __init__(self, s: str) -> None:
        self.items = _lex(s)
        self.pos = 0

    def lookahead(self, values_ctx: bool) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        if values_ctx and tok in (_T_IN, _T_NOTIN):
            tok = _T_ID
        return tok, lit

    def consume(self, values_ctx: bool) -> tuple[int, str]:
        tok, lit = self.lookahead(values_ctx)
        self.pos += 1
        return tok, lit

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            tok, lit = self.lookahead(True)
            if tok in (_T_ID, _T_NOT):
                try:
                    reqs.append(self.parse_requirement())
                except SelectorError as e:
                    raise SelectorError(f"unable to parse requirement: {e.message}") from None
                t, lit2 = self.consume(True)
                if t == _T_END:
                    return reqs
                if t == _T_COMMA:
                    t2, l2 = self.lookahead(True)
                    if t2 not in (_T_ID, _T_NOT):
                        raise SelectorError(f"found '{l2}', expected: identifier after ','")
                else:
                    raise SelectorError(f"found '{lit2}', expected: ',' or 'end of string'")
            elif tok == _T_END:
                return reqs
            else:
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def parse_requirement(self) -> Requirement:
        op = ""
        tok, lit = self.consume(True)
        if tok == _T_NOT:
            op = "!"
            tok, lit = self.consume(True)
        if tok != _T_ID:
            raise SelectorError(f"found '{lit}', expected: identifier")
        key = lit
        kerrs = _qualified_name_errors(key)
        if kerrs:
            raise SelectorError(_invalid("", key, kerrs))
        t, _ = self.lookahead(True)
        if t in (_T_END, _T_COMMA):
            if op != "!":
                op = "exists"
        if op in ("exists", "!"):
            return _new_requirement(key, op, [])
        tok, lit = self.consume(False)
        op = {
            _T_IN: "in",
            _T_EQ: "=",
            _T_DEQ: "==",
            _T_GT: "gt",
            _T_LT: "lt",
            _T_NOTIN: "notin",
            _T_NEQ: "!=",
        }.get(tok, "")
        if not op:
            raise SelectorError(f"found '{lit}', expected: in, notin, =, ==, !=, gt, lt")
        values = self.parse_values() if op in ("in", "notin") else self.parse_exact_value()
        return _new_requirement(key, op, sorted(set(values)))

    def parse_values(self) -> list[str]:
        tok, lit = self.consume(True)
        if tok != _T_OPEN:
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead(True)
        if tok in (_T_ID, _T_COMMA):
            s = self.parse_identifiers_list()
            tok2, _ = self.consume(True)
            if tok2 != _T_CLOSE:
                raise SelectorError(f"found '{lit}', expected: ')'")
            return s
        if tok == _T_CLOSE:
            self.consume(True)
            return [""]
        raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> list[str]:
        s: list[str] = []
        while True:
            tok, lit = self.consume(True)
            if tok == _T_ID:
                s.append(lit)
                tok2, lit2 = self.lookahead(True)
                if tok2 == _T_COMMA:
                    continue
                if tok2 == _T_CLOSE:
                    return s
                raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _T_COMMA:
                if not s:
                    s.append("")
                tok2, _ = self.lookahead(True)
                if tok2 == _T_CLOSE:
                    s.append("")
                    return s
                if tok2 == _T_COMMA:
                    s.append("")
                continue
            raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def parse_exact_value(self) -> list[str]:
        tok, _ = self.lookahead(True)
        if tok in (_T_END, _T_COMMA):
            return [""]
        tok, lit = self.consume(True)
        if tok == _T_ID:
            return [lit]
        raise SelectorError(f"found '{lit}', expected: identifier")


def parse_label_selector(s: str | None) -> LabelSelector:
    """Parse the ``labelSelector`` query parameter (``labels.Parse``). ``""``/None selects everything."""
    if not s:
        return EVERYTHING
    reqs = _Parser(s).parse()
    reqs.sort(key=lambda r: r.key)
    return LabelSelector(tuple(reqs))


def label_selector_from_dict(d: Mapping[str, Any] | None) -> LabelSelector:
    """``metav1.LabelSelectorAsSelector``: None selects nothing, ``{}`` everything.

    ``matchLabels`` become ``=`` terms, ``matchExpressions`` ``In``/``NotIn``/``Exists``/``DoesNotExist``
    terms; an unknown operator raises ``"<op>" is not a valid label selector operator``.
    """
    if d is None:
        return NOTHING
    match_labels = d.get("matchLabels") or {}
    exprs = d.get("matchExpressions") or []
    if not match_labels and not exprs:
        return EVERYTHING
    reqs: list[Requirement] = []
    for k, v in match_labels.items():
        reqs.append(_new_requirement(str(k), "=", [str(v)]))
    for expr in exprs:
        op_name = expr.get("operator", "")
        op = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}.get(op_name)
        if op is None:
            raise SelectorError(f'"{op_name}" is not a valid label selector operator')
        values = [str(x) for x in (expr.get("values") or [])]
        reqs.append(_new_requirement(str(expr.get("key", "")), op, values))
    reqs.sort(key=lambda r: r.key)
    return LabelSelector(tuple(reqs))


def selector_from_set(labels: Mapping[str, str] | None, *, empty_matches_nothing: bool = False) -> LabelSelector:
    """A selector requiring every label of ``labels`` (``labels.SelectorFromSet``).

    Upstream, an empty set selects everything; pass ``empty_matches_nothing=True`` for callers such as the
    endpoints controller, which treats a Service with no ``spec.selector`` as selecting no pods.
    """
    if not labels:
        return NOTHING if empty_matches_nothing else EVERYTHING
    return LabelSelector(tuple(sorted((Requirement(k, "=", (v,)) for k, v in labels.items()), key=lambda r: r.key)))


# ---------------------------------------------------------------------------------------------------------------
# Field selectors
# ---------------------------------------------------------------------------------------------------------------


def _get(obj: Mapping[str, Any], path: str) -> Any:
    cur: Any = obj
    for part in path.split("."):
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(part)
    return cur


def _str_field(path: str) -> Callable[[Mapping[str, Any]], str]:
    def get(obj: Mapping[str, Any]) -> str:
        v = _get(obj, path)
        return "" if v is None else str(v)

    return get


def _bool_field(path: str) -> Callable[[Mapping[str, Any]], str]:
    def get(obj: Mapping[str, Any]) -> str:
        return "true" if _get(obj, path) else "false"

    return get


def _int_field(path: str) -> Callable[[Mapping[str, Any]], str]:
    def get(obj: Mapping[str, Any]) -> str:
        v = _get(obj, path)
        return str(int(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else "0"

    return get


def _pod_ip(obj: Mapping[str, Any]) -> str:
    ips = _get(obj, "status.podIPs") or []
    if ips and isinstance(ips[0], Mapping):
        return str(ips[0].get("ip", ""))
    return str(_get(obj, "status.podIP") or "")


def _event_source(obj: Mapping[str, Any]) -> str:
    src = _get(obj, "source.component")
    return str(src) if src else str(obj.get("reportingComponent") or "")


_META: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "metadata.name": _str_field("metadata.name"),
    "metadata.namespace": _str_field("metadata.namespace"),
}

# resource (plural) -> selectable field -> value getter. Aliases map old names to new ones (spec.host).
_FIELDS: dict[str, dict[str, Callable[[Mapping[str, Any]], str]]] = {
    "pods": {
        "spec.nodeName": _str_field("spec.nodeName"),
        "spec.restartPolicy": _str_field("spec.restartPolicy"),
        "spec.schedulerName": _str_field("spec.schedulerName"),
        "spec.serviceAccountName": _str_field("spec.serviceAccountName"),
        "spec.hostNetwork": _bool_field("spec.hostNetwork"),
        "status.phase": _str_field("status.phase"),
        "status.podIP": _pod_ip,
        "status.podIPs": _pod_ip,
        "status.nominatedNodeName": _str_field("status.nominatedNodeName"),
    },
    "events": {
        "involvedObject.kind": _str_field("involvedObject.kind"),
        "involvedObject.namespace": _str_field("involvedObject.namespace"),
        "involvedObject.name": _str_field("involvedObject.name"),
        "involvedObject.uid": _str_field("involvedObject.uid"),
        "involvedObject.apiVersion": _str_field("involvedObject.apiVersion"),
        "involvedObject.resourceVersion": _str_field("involvedObject.resourceVersion"),
        "involvedObject.fieldPath": _str_field("involvedObject.fieldPath"),
        "reason": _str_field("reason"),
        "reportingComponent": _str_field("reportingComponent"),
        "source": _event_source,
        "type": _str_field("type"),
    },
    "secrets": {"type": _str_field("type")},
    "services": {"spec.clusterIP": _str_field("spec.clusterIP"), "spec.type": _str_field("spec.type")},
    "namespaces": {"status.phase": _str_field("status.phase")},
    "nodes": {"spec.unschedulable": _bool_field("spec.unschedulable")},
    "replicationcontrollers": {"status.replicas": _int_field("status.replicas")},
    "replicasets": {"status.replicas": _int_field("status.replicas")},
    "jobs": {"status.successful": _int_field("status.succeeded")},
    "persistentvolumeclaims": {},
    "certificatesigningrequests": {"spec.signerName": _str_field("spec.signerName")},
}
_ALIASES: dict[str, dict[str, str]] = {"pods": {"spec.host": "spec.nodeName"}}


def supported_field_labels(resource: str) -> list[str]:
    """The field selector labels the API server accepts for ``resource`` (its plural name)."""
    return sorted(set(_META) | set(_FIELDS.get(resource, {})))


@dataclass(frozen=True)
class FieldTerm:
    field: str
    operator: str  # "=" (also for "==") or "!="
    value: str


@dataclass(frozen=True)
class FieldSelector:
    """A parsed field selector: every term must hold."""

    resource: str
    terms: tuple[FieldTerm, ...] = ()
    _getters: dict[str, Callable[[Mapping[str, Any]], str]] = field(default_factory=dict, compare=False,
                                                                      repr=False)

    def matches(self, obj: Mapping[str, Any]) -> bool:
        for t in self.terms:
            have = self._getters[t.field](obj)
            if (have == t.value) != (t.operator == "="):
                return False
        return True

    def empty(self) -> bool:
        return not self.terms

    def requires_exact_match(self, name: str) -> str | None:
        for t in self.terms:
            if t.field == name and t.operator == "=":
                return t.value
        return None

    def __str__(self) -> str:
        return ",".join(f"{t.field}{t.operator}{_escape(t.value)}" for t in self.terms)


def _escape(v: str) -> str:
    return v.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _split_terms(s: str) -> list[str]:
    out: list[str] = []
    cur = ""
    escaped = False
    for ch in s:
        if escaped:
            cur += "\\" + ch
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if escaped:
        cur += "\\"
    out.append(cur)
    return out


def _unescape(v: str) -> str:
    out = ""
    i = 0
    while i < len(v):
        ch = v[i]
        if ch == "\\":
            if i + 1 >= len(v):
                raise SelectorError("invalid field selector: invalid escape sequence: \\")
            nxt = v[i + 1]
            if nxt not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{nxt}")
            out += nxt
            i += 2
            continue
        if ch in ",=":
            raise SelectorError(f"invalid field selector: unescaped character in value: {ch}")
        out += ch
        i += 1
    return out


def _split_unescaped(term: str, op: str) -> tuple[str, str] | None:
    i = 0
    while i < len(term):
        if term[i] == "\\":
            i += 2
            continue
        if term.startswith(op, i):
            return term[:i], term[i + len(op):]
        i += 1
    return None


def parse_field_selector(s: str | None, *, resource: str) -> FieldSelector:
    """Parse the ``fieldSelector`` query parameter for ``resource`` (plural, e.g. ``pods``).

    Supports ``=``, ``==`` and ``!=`` with ``\\``-escaped values. A field the API server does not index for
    the resource raises ``field label not supported: <field>``.
    """
    if not s:
        return FieldSelector(resource)
    getters = dict(_META)
    getters.update(_FIELDS.get(resource, {}))
    aliases = _ALIASES.get(resource, {})
    parsed_terms: list[FieldTerm] = []
    # Upstream sorts the raw terms, parses them all, and only then converts the field labels.
    for part in sorted(_split_terms(s)):
        if part == "":
            continue
        parsed: tuple[str, str, str] | None = None
        for op in ("!=", "==", "="):
            split = _split_unescaped(part, op)
            if split is not None:
                parsed = (split[0], "!=" if op == "!=" else "=", split[1])
                break
        if parsed is None:
            raise SelectorError(f"invalid selector: '{s}'; can't understand '{part}'")
        name, op, raw = parsed
        parsed_terms.append(FieldTerm(name, op, _unescape(raw)))
    terms: list[FieldTerm] = []
    for t in parsed_terms:
        name = aliases.get(t.field, t.field)
        if name not in getters:
            raise SelectorError(f"field label not supported: {name}")
        terms.append(FieldTerm(name, t.operator, t.value))
    return FieldSelector(resource, tuple(terms), getters)
