"""A fast "is this valid?" for our own schemas, so validation stays linear and cheap.

jsonschema spends tens of microseconds per node (a fresh validator per descent, a registry
lookup per ``$ref``); an eval set of 10,000 cases took seconds in its checks alone. This compiles
the subset of JSON Schema that ``schemas/`` uses into plain closures that only answer yes or no.
It is a filter, never the judge: a "no", or any keyword it does not know, sends the instance to
jsonschema, which stays the single source of every message. So it may only ever be stricter than
jsonschema, never laxer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Test = Callable[[Any], bool]

# Keywords that never change validity; nor does any "x-" one (our own annotations, such as
# "x-regex": jsonschema ignores them, as it ignores every keyword it does not know).
_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "default", "examples", "$defs",
                "deprecated", "readOnly", "writeOnly"}


_TYPES = {"string", "object", "array", "boolean", "null", "integer", "number"}


class _Unsupported(Exception):
    """A keyword this compiler does not model: the whole schema goes to jsonschema."""


def _is_type(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, int | float)
    raise _Unsupported(name)


def _same(a: Any, b: Any) -> bool:
    # Strict on purpose (1 is not True, 1 is not 1.0 here): a "no" only costs a jsonschema call.
    return type(a) is type(b) and a == b


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Test] = {}

    def ref(self, ref: str) -> Test:
        if not ref.startswith("#/"):
            raise _Unsupported(ref)
        if ref not in self.refs:
            slot: list[Test] = []
            # Registered before compiling, so a recursive $ref resolves to itself lazily.
            self.refs[ref] = lambda v: slot[0](v)
            node: Any = self.root
            for part in ref[2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            slot.append(self.compile(node))
        return self.refs[ref]

    def compile(self, schema: Any) -> Test:
        if schema is True or schema == {}:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise _Unsupported(repr(schema))
        tests: list[Test] = []
        for key, arg in schema.items():
            if key in _ANNOTATIONS or key.startswith("x-") or key in ("then", "else"):
                continue
            test = self.structure(key, arg, schema) if key in _STRUCTURE else _value_test(key, arg)
            if test is not None:
                tests.append(test)
        if len(tests) == 1:
            return tests[0]
        return _every(tuple(tests))

    def structure(self, key: str, arg: Any, schema: dict[str, Any]) -> Test | None:
        """A keyword holding schemas (compiled in turn); None when it adds no test of its own."""
        if key == "properties":
            if "patternProperties" in schema:
                raise _Unsupported(key)
            props = {k: self.compile(s) for k, s in arg.items()}
            rest = schema.get("additionalProperties", True)
            return _object(props, None if rest is True else self.compile(rest))
        if key == "additionalProperties":
            if "patternProperties" in schema:
                raise _Unsupported(key)
            return _object({}, self.compile(arg)) if "properties" not in schema else None
        if key == "items":
            item = self.compile(arg)
            if "prefixItems" in schema:
                raise _Unsupported(key)
            return lambda v, it=item: not isinstance(v, list) or all(it(x) for x in v)
        if key == "$ref":
            return self.ref(arg)
        if key == "allOf" and (table := self.dispatch(arg)) is not None:
            return _dispatcher(*table)
        if key in ("allOf", "anyOf", "oneOf"):
            subs = [self.compile(s) for s in arg]
            if key == "allOf":
                return lambda v, ss=subs: all(s(v) for s in ss)
            if key == "anyOf":
                return lambda v, ss=subs: any(s(v) for s in ss)
            return lambda v, ss=subs: sum(1 for s in ss if s(v)) == 1
        if key == "not":
            sub = self.compile(arg)
            return lambda v, s=sub: not s(v)
        cond = self.compile(arg)  # "if"
        then = self.compile(schema.get("then", True))
        other = self.compile(schema.get("else", True))
        return lambda v, c=cond, t=then, o=other: t(v) if c(v) else o(v)

    def dispatch(self, items: list[Any]) -> tuple[str, dict[str, Test]] | None:
        """``allOf: [{if: {properties: {type: {const: X}}, required: [type]}, then: S}, ...]``, the
        tagged-union idiom, as one dict lookup instead of one condition per branch."""
        field = None
        branches: dict[str, Test] = {}
        for item in items:
            cond = item.get("if") if isinstance(item, dict) else None
            if not isinstance(cond, dict) or set(item) != {"if", "then"} \
                    or set(cond) != {"properties", "required"}:
                return None
            props = cond["properties"]
            if len(props) != 1 or cond["required"] != list(props):
                return None
            (name, sub), = props.items()
            if set(sub) != {"const"} or not isinstance(sub["const"], str) or field not in (None, name):
                return None
            field = name
            if sub["const"] in branches:
                return None
            branches[sub["const"]] = self.compile(item["then"])
        return (field, branches) if field is not None else None


# Keywords whose argument holds schemas: _Compiler.structure compiles them.
_STRUCTURE = {"properties", "additionalProperties", "items", "$ref", "allOf", "anyOf", "oneOf", "not", "if"}


def _value_test(key: str, arg: Any) -> Test | None:
    """A keyword on the value itself (its type, length, bounds, ...); None when it adds no test."""
    if key == "type":
        names = arg if isinstance(arg, list) else [arg]
        if not set(names) <= _TYPES:
            raise _Unsupported(str(names))
        if len(names) == 1:
            return _SINGLE_TYPE[names[0]]
        return lambda v, ns=tuple(names): any(_is_type(v, n) for n in ns)
    if key == "enum" and all(isinstance(e, str) for e in arg):
        return lambda v, es=frozenset(arg): isinstance(v, str) and v in es
    if key == "enum":
        return lambda v, es=tuple(arg): any(_same(v, e) for e in es)
    if key == "const":
        return lambda v, c=arg: _same(v, c)
    if key == "required":
        return lambda v, ks=tuple(arg): not isinstance(v, dict) or all(k in v for k in ks)
    if key in ("minLength", "maxLength", "minItems", "maxItems"):
        kind = str if key.endswith("Length") else list
        low = key.startswith("min")
        return lambda v, n=arg, k=kind, lo=low: not isinstance(v, k) or (len(v) >= n if lo else len(v) <= n)
    if key in ("minProperties", "maxProperties"):
        low = key.startswith("min")
        return lambda v, n=arg, lo=low: not isinstance(v, dict) or (len(v) >= n if lo else len(v) <= n)
    if key == "uniqueItems":
        return _unique if arg is True else None
    if key == "pattern":
        rx = re.compile(arg)
        return lambda v, r=rx: not isinstance(v, str) or r.search(v) is not None
    if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return _bound(key, arg)
    raise _Unsupported(key)


_SINGLE_TYPE: dict[str, Test] = {
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: _is_type(v, "integer"),
    "number": lambda v: _is_type(v, "number"),
}


def _unique(v: Any) -> bool:
    # Python's == is looser than JSON equality (True == 1): a "duplicate" it sees that JSON
    # would not only sends the instance to jsonschema, so this stays the stricter side.
    if not isinstance(v, list):
        return True
    return all(a != b for i, a in enumerate(v) for b in v[i + 1:])


def _every(tests: tuple[Test, ...]) -> Test:
    def test(v: Any) -> bool:
        for t in tests:
            if not t(v):
                return False
        return True
    return test


def _object(props: dict[str, Test], rest: Test | None) -> Test:
    """``properties`` and ``additionalProperties`` in one pass over the instance's keys."""
    def test(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for k, x in v.items():
            t = props.get(k, rest)
            if t is not None and not t(x):
                return False
        return True
    return test


def _dispatcher(field: str, branches: dict[str, Test]) -> Test:
    def test(v: Any) -> bool:
        tag = v.get(field) if isinstance(v, dict) else None
        branch = branches.get(tag) if isinstance(tag, str) else None
        return branch is None or branch(v)
    return test


def _bound(key: str, limit: float) -> Test:
    def test(v: Any) -> bool:
        if isinstance(v, bool) or not isinstance(v, int | float):
            return True
        if key == "minimum":
            return v >= limit
        if key == "maximum":
            return v <= limit
        if key == "exclusiveMinimum":
            return v > limit
        return v < limit
    return test


def compile_schema(schema: dict[str, Any]) -> Test | None:
    """A yes/no test equivalent to or stricter than ``schema``; None when the schema uses a
    keyword this module does not model."""
    try:
        return _Compiler(schema).compile(schema)
    except (_Unsupported, KeyError, TypeError, re.error):
        return None
