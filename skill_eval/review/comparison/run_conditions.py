"""What two arms ran under, side by side: the limits each run recorded (timeout, output cap,
sandbox; run/runner.run_limits, which also records jobs) and the models that served it. A lift
between arms run under different limits or models measures those differences too, so the
tables warn."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

ARMS = ("with_skill", "without_skill")


class _Record(Protocol):
    arm: str
    limits: Mapping[str, Any] | None
    served: str | None

    @property
    def errored(self) -> bool: ...


def _ran_under(records: Sequence[_Record], arm: str) -> tuple[list[str], list[str]]:
    """The distinct limits (as JSON) and served models of one arm's runs that recorded them."""
    ran = [r for r in records if r.arm == arm and not r.errored]
    limits = sorted({json.dumps(_compared(r.limits), sort_keys=True) for r in ran if r.limits is not None})
    return limits, sorted({r.served for r in ran if r.served})


def comparability(records: Sequence[_Record]) -> dict[str, Any]:
    """``ran_under``: per arm, the limits and models its runs ran under; ``comparability``:
    one warning per way the two arms differ (a lift between arms run under different limits
    or models measures those too)."""
    arms = {v: _ran_under(records, v) for v in ARMS}
    warnings = []
    (wl, wm), (ol, om) = arms["with_skill"], arms["without_skill"]
    if wl and ol and wl != ol:
        warnings.append("the arms ran under different limits: with skill "
                        + " | ".join(_limits_text(x) for x in wl) + "; without skill "
                        + " | ".join(_limits_text(x) for x in ol))
    if wm and om and wm != om:
        warnings.append(f"the arms were served by different models: with skill {', '.join(wm)}; "
                        f"without skill {', '.join(om)}")
    return {"ran_under": {v: {"limits": [json.loads(x) for x in arms[v][0]], "models": arms[v][1]}
                          for v in ARMS},
            "comparability": warnings}


def _compared(limits: Mapping[str, Any]) -> dict[str, Any]:
    """The limits that bound what a run could do. ``jobs`` (recorded in each run's meta.json)
    is left out: how many ran at once must not change a benchmark (test_engine pins that)."""
    return {k: v for k, v in limits.items() if k != "jobs"}


def _limits_text(raw: str) -> str:
    d = json.loads(raw)
    box = d.get("sandbox")
    sandbox = f"{box.get('kind')}/{box.get('network')}" if isinstance(box, dict) else "none"
    return f"timeout {d.get('timeout_seconds')}s, output cap {d.get('max_output_bytes')} B, sandbox {sandbox}"


