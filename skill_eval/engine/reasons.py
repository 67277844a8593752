"""Why a run or a grade is out of date, in a user's words: the answer `status` gives and `run` acts on.

Reasons compare the plan's key material with what the suite state recorded at the slot's last
run, so every re-run names its changed input ("fixture inputs/a.txt changed").
"""

from __future__ import annotations

from typing import Any

from skill_eval.engine.state import SuiteState, short, slot_material
from skill_eval.fs.hashing import key_of
from skill_eval.plan.keys import GRADER_VERSION, GradeKeys, slot
from skill_eval.plan.planner import Plan
from skill_eval.plan.types import RunSpec
from skill_eval.store.store import Store


def run_reason(spec: RunSpec, plan: Plan, state: SuiteState, store: Store, force: bool) -> str:
    if force:
        return "forced (--force)"
    err = store.get_error(spec.key)
    if err is not None:
        return f"previous attempt failed: {err.message}"
    name = slot(spec)
    old = state.slots.get(name)
    if old is None:
        prefix = name.rsplit("/", 1)[0]
        if any(s.startswith(prefix + "/") for s in state.slots):
            return "new iteration"
        case_prefix = f"{spec.skill_name}/{spec.case.id}/"
        if state.slots and not any(s.startswith(case_prefix) for s in state.slots):
            return "new case"
        return "never run"
    if old.get("key") == spec.key:
        return "result missing from the store (deleted, corrupt, or never stored)"
    new = slot_material(plan.materials[spec.key])
    reasons = []
    if old.get("prompt") != new["prompt"]:
        reasons.append("prompt changed")
    old_files, new_files = old.get("files", {}), new["files"]
    for rel in sorted(set(old_files) | set(new_files)):
        if rel not in old_files:
            reasons.append(f"fixture {rel} added")
        elif rel not in new_files:
            reasons.append(f"fixture {rel} removed")
        elif old_files[rel] != new_files[rel]:
            reasons.append(f"fixture {rel} changed")
    if old.get("skill") != new["skill"]:
        reasons.append(skill_change(spec.skill_name, plan, state))
    if old.get("plugin") != new.get("plugin"):
        reasons.append(plugin_change(spec, plan, state))
    if old.get("adapter") != new["adapter"]:
        reasons.append("adapter changed (script, arguments, options or version)")
    old_deps, new_deps = old.get("depends") or {}, new.get("depends") or {}
    for rel in sorted(set(old_deps) | set(new_deps)):
        if rel not in old_deps:
            reasons.append(f"adapter input {rel} added")
        elif rel not in new_deps:
            reasons.append(f"adapter input {rel} removed")
        elif old_deps[rel] != new_deps[rel]:
            reasons.append(f"adapter input {rel} changed")
    if old.get("model") != new["model"]:
        reasons.append("model changed")
    reasons += _settings_changed(old.get("settings") or {}, new.get("settings") or {})
    return "; ".join(reasons) or "key scheme or protocol changed"


_SETTING_NAMES = {"scaffold": "scaffold script", "tools": "tool grants",
                  "mock_servers": "mocked servers' names (plugin manifest or MCP configuration)",
                  "mock_judge": "the judge playing its agent mocks"}


def _settings_changed(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """The case's own run settings (plugin eval suites) that differ: "case setting max_turns changed"."""
    out = []
    for name in sorted(set(old) | set(new)):
        shown = _SETTING_NAMES.get(name, f"mock file {name[6:]}" if name.startswith("mocks ")
                                   else f"case setting {name}")
        if name not in old:
            out.append(f"{shown} added")
        elif name not in new:
            out.append(f"{shown} removed")
        elif old[name] != new[name]:
            out.append(f"{shown} changed")
    return out


def skill_change(skill: str, plan: Plan, state: SuiteState) -> str:
    old = state.skills.get(skill, {})
    new = {rel: h[:16] for rel, h in plan.skills[skill].files.items()}
    parts = [f"skills/{skill}/{r} changed" for r in sorted(set(old) & set(new)) if old[r] != new[r]]
    parts += [f"skills/{skill}/{r} added" for r in sorted(set(new) - set(old))]
    parts += [f"skills/{skill}/{r} removed" for r in sorted(set(old) - set(new))]
    shown = parts[:3]
    if len(parts) > 3:
        shown.append(f"and {len(parts) - 3} more skill files")
    return ", ".join(shown) or f"skill {skill} changed"


PLUGIN_FILES = "plugin_files"  # state.extra[PLUGIN_FILES]: {root-relative path: short hash}


def remember_files(state: SuiteState, plan: Plan) -> None:
    """The file lists later reasons name changes against: each skill's, and the plugin's."""
    for name, digest in plan.skills.items():
        state.skills[name] = {rel: short(h) for rel, h in digest.files.items()}
    if plan.plugin is not None:
        state.extra[PLUGIN_FILES] = {rel: short(h) for rel, h in plan.plugin.files.items()}


def plugin_change(spec: RunSpec, plan: Plan, state: SuiteState) -> str:
    """The plugin files that changed since the slot last ran: "plugin p: commands/go.md changed"."""
    name = spec.plugin.name if spec.plugin is not None else "plugin"
    if plan.plugin is None:
        return f"plugin {name} no longer loaded"
    old = state.extra.get(PLUGIN_FILES) or {}
    new = {rel: short(h) for rel, h in plan.plugin.files.items()}
    parts = [f"{r} changed" for r in sorted(set(old) & set(new)) if old[r] != new[r]]
    parts += [f"{r} added" for r in sorted(set(new) - set(old))]
    parts += [f"{r} removed" for r in sorted(set(old) - set(new))]
    shown = parts[:3] + ([f"and {len(parts) - 3} more plugin files"] if len(parts) > 3 else [])
    return f"plugin {name}: " + ", ".join(shown) if shown else f"plugin {name} changed"


def grade_reason(spec: RunSpec, keys: GradeKeys, state: SuiteState) -> str:
    old = state.grading.get(slot(spec))
    if old is None:
        return "not graded yet"
    if old == keys.material_key(spec):
        return "grade missing from the store"
    if state.extra.get("grader") not in (None, GRADER_VERSION):
        return "grader version changed"
    before = state.extra.get(PARTS, {}).get(_case_slot(spec))
    return _parts_changed(before, grading_parts(spec, keys)) if before else "checks, rubric or judge changed"


PARTS = "grading_parts"  # state.extra[PARTS][skill/case]: {part: short hash} when last graded


def _case_slot(spec: RunSpec) -> str:
    return f"{spec.skill_name}/{spec.case.id}"


def grading_parts(spec: RunSpec, keys: GradeKeys) -> dict[str, str]:
    """A case's grading material part by part (each check by id, each rubric item, the rest), so
    a re-grade can say which ones changed."""
    material = keys.material(spec)
    parts: dict[str, Any] = {f"check {c['id']}": c for c in spec.case.checks_json()}
    parts.update({f"rubric item {r['id']}": r for r in spec.case.rubric_json()})
    parts.update({"expected output": spec.case.expected_output, "judge": material["judge"],
                  "should_trigger": material["should_trigger"], "allow_scripts": material["allow_scripts"]})
    return {name: short(key_of(value)) for name, value in parts.items()}


def remember_grading(state: SuiteState, spec: RunSpec, keys: GradeKeys) -> None:
    parts = grading_parts(spec, keys)
    with state.lock:
        state.extra.setdefault(PARTS, {})[_case_slot(spec)] = parts


def _parts_changed(before: dict[str, str], after: dict[str, str]) -> str:
    changed = [f"{n} changed" for n in after if n in before and before[n] != after[n]]
    changed += [f"{n} added" for n in after if n not in before]
    changed += [f"{n} removed" for n in before if n not in after]
    shown = changed[:5] + ([f"and {len(changed) - 5} more"] if len(changed) > 5 else [])
    return "; ".join(shown) or "checks, rubric or judge changed"
