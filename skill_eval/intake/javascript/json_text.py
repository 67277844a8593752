"""JSON text exactly as JavaScript's ``JSON.stringify`` writes a value that ``JSON.parse`` read.

``claude plugin eval`` matches a ``tool_used`` grader's ``input_match`` against
``JSON.stringify(input)`` and a ``target: trace`` regex against ``JSON.stringify`` of each
stream-json message, so the adapters that report tool inputs and the session encode them the
same way. Python's ``json.dumps`` differs in four places, all handled here: separators (no
spaces), numbers (``1.0`` is ``1``, ``1e-07`` is ``1e-7``, ``1e16`` is written out, integers past
2**53 lose precision), key order (keys that are array indices come first, ascending) and lone
surrogates (escaped as ``\\udxxx``).

Imports nothing (adapters load it in a fresh interpreter).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_LONE = re.compile("[\ud800-\udfff]")
_INDEX = re.compile(r"0|[1-9][0-9]*")
_MAX_INDEX = 2**32 - 2


def js_number(value: float) -> str:
    """``String(value)`` for a finite number, per ECMAScript's Number::toString; ``null`` for
    NaN and the infinities, as JSON.stringify writes them."""
    if isinstance(value, int) and abs(value) < 2**53:
        return str(value)
    x = float(value)
    if not math.isfinite(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mant, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0").rstrip("0")
    lead = whole.lstrip("0")
    e = int(exp) if exp else 0
    # value = 0.<digits> x 10^n
    n = len(lead) + e if lead else e - (len(frac) - len(frac.lstrip("0")))
    k = len(digits)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        power = n - 1
        shown = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{shown}e{'+' if power > 0 else '-'}{abs(power)}"
    return sign + text


def _string(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    return _LONE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)


def _keys(obj: dict[str, Any]) -> list[str]:
    """Property order of a parsed object: integer-index keys ascending, then the rest in order."""
    index = sorted((k for k in obj if _INDEX.fullmatch(k) and int(k) <= _MAX_INDEX), key=int)
    chosen = set(index)
    return index + [k for k in obj if k not in chosen]


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` for a value as ``json.loads`` returns it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_stringify(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(_string(str(k)) + ":" + js_stringify(value[k]) for k in _keys(value)) + "}"
    return "null"
