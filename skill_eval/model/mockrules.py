"""How a ``type: fixed`` mock answers one call (``claude plugin eval``'s mocked MCP servers,
FORMAT.md §5): its ``expect`` rules against the call's input, and its body with the
``{{input.<field>}}`` and ``{{file:fixtures/<name>}}`` substitutions filled in.

Values are shown and compared the way plugin eval (JavaScript) does, as its abort reasons and
answers show with the real CLI (docs/dialects.md): a value in a reason is its compact JSON
(``(missing)`` when the path is absent), a literal rule compares the value's string form with
the literal's (``id = "7" is not "5"``), a substituted object or array is compact JSON, a number
has no trailing ``.0``, and an absent field substitutes as nothing.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from skill_eval.intake.javascript.regex import JsRegexError, js_regex
from skill_eval.intake.timedmatch import PatternTimedOut

TYPES = ("string", "number", "boolean", "array", "object")
MISSING = object()
_INPUT = re.compile(r"\{\{input\.([^{}]+?)\}\}")
_FILE = re.compile(r"\{\{file:((?:[^{}]|\{input\.[^{}]+\})+)\}\}")
_ANY = re.compile(_FILE.pattern + "|" + _INPUT.pattern)  # one pass: no answer is substituted twice
_NAME_INPUT = re.compile(r"\{input\.([^{}]+?)\}")
_JS_REGEX = re.compile(r"/(.+)/([a-z]*)\Z", re.DOTALL)


def lookup(data: Any, path: str) -> Any:
    """The value at a dotted path (``a.b``, ``items.0``), or MISSING."""
    here = data
    for part in path.split("."):
        if isinstance(here, dict) and part in here:
            here = here[part]
        elif isinstance(here, list) and part.isdigit() and int(part) < len(here):
            here = here[int(part)]
        else:
            return MISSING
    return here


def js_string(value: Any) -> str:
    """``String(value)`` as JavaScript gives it, objects and arrays as compact JSON (as the real
    CLI substitutes them)."""
    if value is MISSING or value is None:
        return "" if value is MISSING else "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def shown(value: Any) -> str:
    return "(missing)" if value is MISSING else json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "null"


def rule_problem(rule: Any) -> str | None:
    """Why an ``expect`` rule is not one plugin eval knows (checked at load), or None."""
    if isinstance(rule, list | tuple):
        bad = [x for x in rule if isinstance(x, dict | list | tuple)]
        return "a list of allowed values may hold only literals" if bad else None
    if isinstance(rule, dict):
        return "must be a type name, a /regex/, a literal or a list of literals"
    if isinstance(rule, str) and (m := _JS_REGEX.match(rule)):
        if set(m.group(2)) - set("imsu"):
            return f"regex flags {m.group(2)!r}: only i, m, s and u are supported"
        try:
            js_regex(m.group(1), m.group(2))
        except JsRegexError as exc:  # JsSyntaxError too: plugin eval refuses the mock
            return f"regex {rule}: {exc}"
    return None


def _breaks(value: Any, rule: Any) -> str | None:
    if isinstance(rule, list | tuple):
        if value is MISSING or js_string(value) not in {js_string(x) for x in rule}:
            return "is not one of [" + ", ".join(js_string(x) for x in rule) + "]"
        return None
    if isinstance(rule, str) and rule in TYPES:
        if value is MISSING or _type_of(value) != rule:
            return f"is not {'an' if rule[0] in 'aeiou' else 'a'} {rule}"
        return None
    if isinstance(rule, str) and (m := _JS_REGEX.match(rule)):
        # new RegExp(pattern, flags).test(String(value)), time-limited like every user pattern.
        if value is MISSING or not js_regex(m.group(1), m.group(2)).search(js_string(value)):
            return f"does not match {rule}"
        return None
    if value is MISSING or js_string(value) != js_string(rule):
        return f"is not {json.dumps(js_string(rule), ensure_ascii=False)}"
    return None


def check_expect(expect: tuple[tuple[str, Any], ...], arguments: Any) -> str | None:
    """The first broken rule as plugin eval words it (``the model's call violates expect: id =
    "7" is not a number``), or None when the call keeps them all."""
    for path, rule in expect:
        value = lookup(arguments, path)
        try:
            why = _breaks(value, rule)
        except (JsRegexError, PatternTimedOut) as exc:
            detail = exc.evidence() if isinstance(exc, PatternTimedOut) else str(exc)
            why = f"could not be checked against {rule}: {detail}"
        if why is not None:
            return f"the model's call violates expect: {path} = {shown(value)} {why}"
    return None


def call_line(record: dict[str, Any]) -> str:
    """One recorded mock call as the line plugin eval's ``mock_calls`` target shows it (compact
    JSON, keys in its order: tool, input, output, isError when true, verdict); the target is these
    lines, one per call."""
    order = ("tool", "input", "output", "isError", "verdict")
    shown = {k: record[k] for k in order if k in record and (k != "isError" or record[k])}
    return json.dumps(shown, separators=(",", ":"), ensure_ascii=False)


def render(body: str, arguments: Any, fixtures: dict[str, str]) -> tuple[str, bool]:
    """(answer text, is an error). A fixture the name does not find makes the whole answer an
    error naming it, as in plugin eval (``{{file:fixtures/7.json}}: no such fixture``)."""
    missing: list[str] = []

    def one(m: re.Match[str]) -> str:
        if m.group(2) is not None:
            return js_string(lookup(arguments, m.group(2)))
        name = _NAME_INPUT.sub(lambda n: js_string(lookup(arguments, n.group(1))), m.group(1))
        text = fixtures.get(name) if not any(p in ("..", "") for p in name.split("/")) else None
        if text is None:
            missing.append(name)
            return ""
        return text

    text = _ANY.sub(one, body.strip())
    if missing:
        return f"{{{{file:{missing[0]}}}}}: no such fixture", True
    return text, False
