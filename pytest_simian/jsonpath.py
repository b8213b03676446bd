"""kubectl's JSONPath template language: parse a template and render it against an object.

Why: a `k8s` probe must see what `kubectl get -o jsonpath=...` prints, byte for byte. No library fits:
kubectl's template language (literal text, `{range}`/`{end}`, quoted text, unions, filters, `..`) and its
printing rules (results space-joined, maps and lists as compact Go JSON, missing keys allowed, the
zero-length-slice early return) are its own, so this is a port of client-go's `util/jsonpath` parser and
evaluator, checked against the pinned kubectl in tests/engine/test_jsonpath.py.
Must not: do I/O.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any


class JSONPathError(ValueError):
    """A template that kubectl would refuse, or an evaluation error kubectl would print."""


@dataclass
class _Text:
    text: str


@dataclass
class _List:
    nodes: list[Any] = field(default_factory=list)


@dataclass
class _Field:
    name: str


@dataclass
class _Param:
    value: int = 0
    known: bool = False
    derived: bool = False


@dataclass
class _Array:
    params: tuple[_Param, _Param, _Param]


@dataclass
class _Filter:
    left: _List
    right: _List
    op: str


@dataclass
class _Int:
    value: int


@dataclass
class _Float:
    value: float


@dataclass
class _Bool:
    value: bool


@dataclass
class _Wildcard:
    pass


@dataclass
class _Recursive:
    pass


@dataclass
class _Union:
    nodes: list[_List]


@dataclass
class _Ident:
    name: str


_DICT_KEY = re.compile(r"^'([^']*)'$")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.S)
_EOF = ""


def _is_terminator(r: str) -> bool:
    return r == _EOF or r in " \t\r\n.,[]$@{}"


def _is_alnum(r: str) -> bool:
    return r == "_" or r.isalpha() or r.isdigit()


class _Parser:
    """client-go's jsonpath parser, rune for rune."""

    def __init__(self, text: str) -> None:
        self.input = text
        self.pos = 0
        self.start = 0
        self.root = _List()

    # -- scanning
    def next(self) -> str:
        if self.pos >= len(self.input):
            self.pos += 1  # mirrors Go's width bookkeeping: backup() after eof is harmless
            return _EOF
        r = self.input[self.pos]
        self.pos += 1
        return r

    def peek(self) -> str:
        return self.input[self.pos] if self.pos < len(self.input) else _EOF

    def backup(self) -> None:
        self.pos -= 1

    def consume(self) -> str:
        end = min(self.pos, len(self.input))
        value = self.input[self.start:end]
        self.start = self.pos = end
        return value

    def advance(self) -> bool:
        r = self.next()
        if r == "\\":
            self.next()
        elif _is_terminator(r):
            self.backup()
            return False
        return True

    # -- grammar
    def parse(self) -> _List:
        self.parse_text(self.root)
        return self.root

    def parse_text(self, cur: _List) -> None:
        while True:
            if self.input.startswith("{", self.pos):
                if self.pos > self.start:
                    cur.nodes.append(_Text(self.consume()))
                self.pos += 1
                self.consume()
                node = _List()
                cur.nodes.append(node)
                self.parse_inside(node)
                return
            if self.next() == _EOF:
                break
        self.pos = min(self.pos, len(self.input))
        if self.pos > self.start:
            cur.nodes.append(_Text(self.consume()))

    def parse_inside(self, cur: _List) -> None:
        while True:
            rest = self.input[self.pos:]
            if rest.startswith("}"):
                self.pos += 1
                self.consume()
                self.parse_text(self.root)
                return
            if rest.startswith("[?("):
                self.parse_filter(cur)
                continue
            if rest.startswith(".."):
                self.parse_recursive(cur)
                continue
            r = self.next()
            if r == _EOF or r in "\r\n":
                raise JSONPathError("unclosed action")
            if r == " ":
                self.consume()
            elif r in "@$":
                self.consume()
            elif r == "[":
                self.parse_array(cur)
            elif r in "\"'":
                self.parse_quote(cur, r)
            elif r == ".":
                self.parse_field(cur)
            elif r in "+-" or r.isdigit():
                self.backup()
                self.parse_number(cur)
            elif _is_alnum(r):
                self.backup()
                self.parse_identifier(cur)
            else:
                raise JSONPathError(f"unrecognized character in action: {r!r}")

    def parse_identifier(self, cur: _List) -> None:
        while True:
            r = self.next()
            if _is_terminator(r):
                self.backup()
                break
        value = self.consume()
        if value in ("true", "false"):
            cur.nodes.append(_Bool(value == "true"))
        else:
            cur.nodes.append(_Ident(value))

    def parse_recursive(self, cur: _List) -> None:
        if cur.nodes and isinstance(cur.nodes[-1], _Recursive):
            raise JSONPathError("invalid multiple recursive descent")
        self.pos += 2
        self.consume()
        cur.nodes.append(_Recursive())
        if _is_alnum(self.peek()):
            self.parse_field(cur)

    def parse_number(self, cur: _List) -> None:
        if self.peek() in "+-" and self.peek() != _EOF:
            self.next()
        while True:
            r = self.next()
            if r != "." and not r.isdigit():
                self.backup()
                break
        value = self.consume()
        try:
            cur.nodes.append(_Int(int(value)))
            return
        except ValueError:
            pass
        try:
            cur.nodes.append(_Float(float(value)))
        except ValueError:
            raise JSONPathError(f"cannot parse number {value}") from None

    def parse_array(self, cur: _List) -> None:
        while True:
            r = self.next()
            if r == _EOF or r == "\n":
                raise JSONPathError("unterminated array")
            if r == "]":
                break
        text = self.consume()[1:-1]
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            cur.nodes.append(_Union([_parse_action(f"[{p.strip(' ')}]") for p in parts]))
            return
        m = _DICT_KEY.match(text)
        if m:
            cur.nodes.extend(_parse_action(f".{m.group(1)}").nodes)
            return
        m = _SLICE.match(text)
        if m is None:
            raise JSONPathError(f"invalid array index {text}")
        raw = [m.group(1) or "", m.group(2) or "", m.group(3) or ""]
        params = [_Param(), _Param(), _Param()]
        for i in range(3):
            v = raw[i]
            if v != "":
                if i > 0:
                    v = v[1:]
                if i > 0 and v == "":
                    params[i].known = False
                else:
                    try:
                        params[i] = _Param(int(v), True)
                    except ValueError:
                        raise JSONPathError(f"array index {v} is not a number") from None
            elif i == 1:
                params[i] = _Param(params[0].value + 1, True, True)
        cur.nodes.append(_Array((params[0], params[1], params[2])))

    def parse_filter(self, cur: _List) -> None:
        self.pos += 3
        self.consume()
        begin = end = False
        pair = ""
        while True:
            r = self.next()
            if r == _EOF or r == "\n":
                raise JSONPathError("unterminated filter")
            if r in "\"'":
                if not begin:
                    begin, pair = True, r
                    continue
                if self.input[self.pos - 2] != "\\" and r == pair:
                    end = True
            elif r == ")" and begin == end:
                break
        if self.next() != "]":
            raise JSONPathError("unclosed array expect ]")
        text = self.consume()[:-2]
        m = _FILTER.match(text)
        if m is None:
            cur.nodes.append(_Filter(_parse_action(text), _List(), "exists"))
        else:
            cur.nodes.append(_Filter(_parse_action(m.group(1)), _parse_action(m.group(3)), m.group(2)))

    def parse_quote(self, cur: _List, end: str) -> None:
        while True:
            r = self.next()
            if r == _EOF or r == "\n":
                raise JSONPathError("unterminated quoted string")
            if r == end and self.input[self.pos - 2] != "\\":
                break
        value = self.consume()
        cur.nodes.append(_Text(_unquote(value)))

    def parse_field(self, cur: _List) -> None:
        self.consume()
        while self.advance():
            pass
        value = self.consume()
        if value == "*":
            cur.nodes.append(_Wildcard())
        else:
            cur.nodes.append(_Field(value.replace("\\", "")))


def _parse_action(text: str) -> _List:
    """A fragment parsed as the inside of one `{...}` (client-go's parseAction)."""
    root = _Parser("{" + text + "}").parse()
    return root.nodes[0] if root.nodes and isinstance(root.nodes[0], _List) else _List()


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\",
            "'": "'", '"': '"'}


def _unquote(s: str) -> str:
    """Go's strconv-style unquoting, for single- and double-quoted text (client-go's UnquoteExtend)."""
    if len(s) < 2 or s[0] != s[-1] or s[0] not in "\"'":
        raise JSONPathError(f"invalid syntax {s}")
    body = s[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 >= len(body):
            raise JSONPathError(f"invalid syntax {s}")
        e = body[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "xuU":
            n = {"x": 2, "u": 4, "U": 8}[e]
            hexd = body[i + 2:i + 2 + n]
            if len(hexd) != n:
                raise JSONPathError(f"invalid syntax {s}")
            out.append(chr(int(hexd, 16)))
            i += 2 + n
        elif e in "01234567":
            octd = body[i + 1:i + 4]
            out.append(chr(int(octd, 8)))
            i += 4
        else:
            raise JSONPathError(f"invalid syntax {s}")
    return "".join(out)


_MISSING = object()


class _Evaluator:
    def __init__(self, root: _List, allow_missing_keys: bool = True) -> None:
        self.nodes_root = root
        self.allow_missing = allow_missing_keys
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        self.last_end: Any = None

    def find(self, data: Any, nodes: list[Any]) -> list[list[Any]]:
        cur = [data]
        full: list[list[Any]] = []
        i = 0
        while i < len(nodes):
            node = nodes[i]
            results = self.walk(cur, node)
            if self.end_range > 0 and self.end_range <= self.in_range:
                self.end_range -= 1
                self.last_end = node
                break
            if self.begin_range > 0:
                self.begin_range -= 1
                self.in_range += 1
                if results:
                    for value in results:
                        full.extend(self.find(value, nodes[i + 1:]))
                else:
                    self.find(None, nodes[i + 1:])
                self.in_range -= 1
                for k in range(i + 1, len(nodes)):
                    if nodes[k] is self.last_end:
                        i = k
                        break
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def walk(self, values: list[Any], node: Any) -> list[Any]:
        if isinstance(node, _List):
            cur = values
            for n in node.nodes:
                cur = self.walk(cur, n)
            return cur
        if isinstance(node, _Text):
            return [node.text]
        if isinstance(node, _Field):
            return self.eval_field(values, node)
        if isinstance(node, _Array):
            return self.eval_array(values, node)
        if isinstance(node, _Filter):
            return self.eval_filter(values, node)
        if isinstance(node, _Int | _Float | _Bool):
            return [node.value for _ in values]
        if isinstance(node, _Wildcard):
            return self.eval_wildcard(values)
        if isinstance(node, _Recursive):
            return self.eval_recursive(values)
        if isinstance(node, _Union):
            out: list[Any] = []
            for ln in node.nodes:
                out.extend(self.walk(values, ln))
            return out
        if isinstance(node, _Ident):
            if node.name == "range":
                self.begin_range += 1
                return values
            if node.name == "end":
                if self.in_range > 0:
                    self.end_range += 1
                    return []
                raise JSONPathError("not in range, nothing to end")
            raise JSONPathError(f"unrecognized identifier {node.name}")
        raise JSONPathError(f"unexpected Node {node!r}")

    def eval_field(self, values: list[Any], node: _Field) -> list[Any]:
        results: list[Any] = []
        if not values:
            return results
        for v in values:
            if v is None:
                continue
            if isinstance(v, dict) and node.name in v:
                results.append(v[node.name])
        if not results and not self.allow_missing:
            raise JSONPathError(f"{node.name} is not found")
        return results

    def eval_array(self, values: list[Any], node: _Array) -> list[Any]:
        result: list[Any] = []
        for v in values:
            if v is None:
                continue
            if not isinstance(v, list):
                raise JSONPathError(f"{_go_type(v)} is not array or slice")
            p0, p1, p2 = (_Param(p.value, p.known, p.derived) for p in node.params)
            n = len(v)
            if not p0.known:
                p0.value = 0
            if p0.value < 0:
                p0.value += n
            if not p1.known:
                p1.value = n
            if p1.value < 0 or (p1.value == 0 and p1.derived):
                p1.value += n
            if p1.value != p0.value:
                if p0.value >= n or p0.value < 0:
                    raise JSONPathError(f"array index out of bounds: index {p0.value}, length {n}")
                if p1.value > n or p1.value < 0:
                    raise JSONPathError(f"array index out of bounds: index {p1.value - 1}, length {n}")
                if p0.value > p1.value:
                    raise JSONPathError(f"starting index {p0.value} is greater than ending index {p1.value}")
            else:
                return result  # client-go returns here: the remaining inputs are dropped
            piece = v[p0.value:p1.value]
            step = 1
            if p2.known:
                if p2.value <= 0:
                    raise JSONPathError("step must be > 0")
                step = p2.value
            result.extend(piece[::step])
        return result

    @staticmethod
    def _children(v: Any) -> list[Any]:
        if isinstance(v, dict):
            return [v[k] for k in sorted(v)]
        if isinstance(v, list):
            return list(v)
        if isinstance(v, str):
            return [ord(c) for c in v]
        return []

    def eval_wildcard(self, values: list[Any]) -> list[Any]:
        out: list[Any] = []
        for v in values:
            if v is not None:
                out.extend(self._children(v))
        return out

    def eval_recursive(self, values: list[Any]) -> list[Any]:
        result: list[Any] = []
        for v in values:
            if v is None:
                continue
            kids = self._children(v)
            if kids:
                result.append(v)
                result.extend(self.eval_recursive(kids))
        return result

    def eval_filter(self, values: list[Any], node: _Filter) -> list[Any]:
        results: list[Any] = []
        for v in values:
            if not isinstance(v, list):
                raise JSONPathError(f"{_go_repr(v)} is not array or slice and cannot be filtered")
            for item in v:
                try:
                    lefts = self.walk([item], node.left)
                    err: JSONPathError | None = None
                except JSONPathError as exc:
                    lefts, err = [], exc
                if node.op == "exists":
                    if lefts:
                        results.append(item)
                    continue
                if err is not None:
                    raise err
                if not lefts:
                    continue
                if len(lefts) > 1:
                    raise JSONPathError("can only compare one element at a time")
                rights = self.walk([item], node.right)
                if not rights:
                    continue
                if len(rights) > 1:
                    raise JSONPathError("can only compare one element at a time")
                if _compare(lefts[0], rights[0], node.op):
                    results.append(item)
        return results


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    return "other"


def _compare(a: Any, b: Any, op: str) -> bool:
    ka, kb = _kind(a), _kind(b)
    if op not in ("<", ">", "==", "!=", "<=", ">="):
        raise JSONPathError(f"unrecognized filter operator {op}")
    if ka != kb or ka == "other":
        if op in ("==", "!=") and (ka == "other" or kb == "other"):
            raise JSONPathError("invalid type for comparison")
        raise JSONPathError("incompatible types for comparison")
    if ka == "bool" and op not in ("==", "!="):
        raise JSONPathError("invalid type for comparison")
    return {"<": a < b, ">": a > b, "==": a == b, "!=": a != b, "<=": a <= b, ">=": a >= b}[op]


def _go_type(v: Any) -> str:
    return {"bool": "bool", "int": "int64", "float": "float64", "string": "string"}.get(
        _kind(v), "map[string]interface {}")


def _go_repr(v: Any) -> str:
    return _text(v)


def _go_float(f: float) -> str:
    """fmt's %v for a float64: shortest representation, exponent only below 1e-4 or from 1e21."""
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if math.isnan(f):
        return "NaN"
    if f == int(f) and abs(f) < 1e21:
        return str(int(f))
    r = repr(f)
    if "e" in r:
        mant, exp = r.split("e")
        sign = exp[0] if exp[0] in "+-" else "+"
        digits = exp.lstrip("+-").lstrip("0") or "0"
        return f"{mant}e{sign}{digits.zfill(2)}"
    return r


def _go_json_float(f: float) -> str:
    """encoding/json's float64 format."""
    if f == int(f) and abs(f) < 1e21:
        return str(int(f))
    a = abs(f)
    if a < 1e-6 or a >= 1e21:
        r = repr(f)
        if "e" in r:
            mant, exp = r.split("e")
            sign = "-" if exp.startswith("-") else "+"
            return f"{mant}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    return repr(f)


def go_json(v: Any) -> str:
    """Go's `json.Marshal` of a decoded JSON value: compact, map keys sorted, HTML-escaped."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _go_json_float(v)
    if isinstance(v, str):
        s = json.dumps(v, ensure_ascii=False)
        return (s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    if isinstance(v, dict):
        return "{" + ",".join(f"{go_json(str(k))}:{go_json(v[k])}" for k in sorted(v)) + "}"
    if isinstance(v, list | tuple):
        return "[" + ",".join(go_json(x) for x in v) + "]"
    return go_json(str(v))


def _text(v: Any) -> str:
    if isinstance(v, dict | list):
        return go_json(v)
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return _go_float(v)
    return str(v)


def parse_jsonpath(template: str) -> _List:
    """Parse a kubectl JSONPath template; JSONPathError when kubectl would refuse it."""
    return _Parser(template).parse()


def render_jsonpath(template: str, data: Any) -> str:
    """What `kubectl ... -o jsonpath=<template>` prints for `data` (no trailing newline added)."""
    root = parse_jsonpath(template)
    ev = _Evaluator(root, allow_missing_keys=True)
    out: list[str] = []
    for results in ev.find(data, list(root.nodes)):
        out.append(" ".join(_text(r) for r in results))
    return "".join(out)
