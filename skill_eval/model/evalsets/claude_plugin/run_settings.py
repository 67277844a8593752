"""A ``claude plugin eval`` case's run settings -> RunSettings, with plugin eval's bounds
(FORMAT.md §2): ``runs`` 1-50, ``max_turns`` at most 200 (default 10 there), ``timeout_seconds``
at most 3600; ``context.scaffold_script`` a file inside the case folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from skill_eval.model.mocks import Mocks
from skill_eval.model.runsettings import CaseFile, RunSettings

Report = Callable[[str], None]  # one problem (an error) about the case file
_BOUNDS = {"runs": (1, 50), "max_turns": (1, 200), "timeout_seconds": (1, 3600)}


def _number(spec: dict[str, Any], key: str, report: Report) -> int | float | None:
    value = spec.get(key)
    if value is None:
        return None
    lo, hi = _BOUNDS[key]
    whole = key != "timeout_seconds"
    ok = isinstance(value, int) if whole else isinstance(value, int | float)
    if isinstance(value, bool) or not ok or not lo <= value <= hi:
        report(f"{key}: {value!r} must be {'a whole number' if whole else 'a number'} from {lo} to {hi}")
        return None
    return value


def _text(spec: dict[str, Any], key: str, report: Report) -> str | None:
    value = spec.get(key)
    if value is None or isinstance(value, str):
        return value
    report(f"{key}: must be text, got {type(value).__name__}")
    return None


def _case_file(folder: Path, spec: dict[str, Any], key: str, report: Report) -> CaseFile | None:
    """``context.<key>``: a file of the case folder. A missing one is no load error in plugin eval
    either: only a run that would use it fails."""
    rel = spec.get(key)
    if not rel:
        return None
    path = (folder / str(rel)).resolve()
    if not isinstance(rel, str) or folder.resolve() not in path.parents:
        report(f"context.{key}: {rel!r} must name a file inside the case folder")
        return None
    return CaseFile(rel, path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None)


def read_settings(folder: Path, spec: dict[str, Any], report: Report,
                  mocks: Mocks | None = None) -> RunSettings:
    """The case's settings; each bad value is reported. Never None: a case that sets nothing
    still runs under plugin eval's tool grants (``gated``, FORMAT.md §7.3)."""
    env = spec.get("env") or {}
    if not isinstance(env, dict):
        report("env: must be a mapping of EVAL_* names to values")
        env = {}
    tools = spec.get("allowed_tools")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, str) for t in tools)):
        report("allowed_tools: must be a list of tool names")
        tools = None
    model = spec.get("model")
    settings = RunSettings(
        runs=_number(spec, "runs", report),  # type: ignore[arg-type]
        model=str(model) if model is not None else None,
        max_turns=_number(spec, "max_turns", report),  # type: ignore[arg-type]
        timeout_seconds=_number(spec, "timeout_seconds", report),
        append_system_prompt=_text(spec, "append_system_prompt", report),
        env=tuple(sorted((str(k), "" if v is None else str(v)) for k, v in env.items())),
        allowed_tools=tuple(tools) if tools is not None else None,
        scaffold=_case_file(folder, spec, "scaffold_script", report),
        history=_case_file(folder, spec, "history_file", report),
        mocks=mocks,
        gated=True,
    )
    return settings
