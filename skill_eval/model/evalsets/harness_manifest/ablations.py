"""The ``ablations`` block of a skill-eval-harness manifest, as skill-eval ablations.

An entry has an ``id`` and either one ``mechanism`` with its ``target`` or a ``components`` list
of them. These mechanisms run here: ``section`` (``target.heading``), ``script`` and ``asset``
(``target.path``), ``reference`` with ``remove: content`` (the referenced file is deleted) and
``patch`` (``target.patch``: a deletion-only unified diff, a path relative to the repository
inside the manifest's folder). Entries that declare no removal (the harness simulates those with
an instruction) and the other mechanisms (``frontmatter_field``, ``list_item``, ``preprocess``,
reference pointers) are left out with a warning naming why, never run as something they are
not. ``applies_to_cases`` limits the cases the arm runs on (empty: all). ``removed_component``
and ``expected_regressions`` are labels. A target the skill does not have leaves the ablation
out with a warning (model.ablation.declared), like any part of a manifest skill-eval cannot run.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from skill_eval.model.ablation.parts import Ablation, valid_name
from skill_eval.model.evalsets.validate import At, Collector

ENTRY_FIELDS = ("id", "removed_component", "mechanism", "class", "target", "components",
                "expected_regressions", "applies_to_cases", "invalid_skill", "notes", "description")
_PATH_MECHANISMS = ("script", "asset", "reference")


def harness_ablations(col: Collector, items: Any, manifest_dir: Path, skill_root: Path, display: str
                      ) -> tuple[Ablation, ...]:
    repo = manifest_dir.parent  # skill_paths and patch paths are relative to the repository
    if items is None:
        return ()
    if not isinstance(items, list):
        col.error("ablations must be a list of objects", ("ablations",))
        return ()
    out: list[Ablation] = []
    seen: set[str] = set()
    for i, raw in enumerate(items):
        at: At = ("ablations", i)
        if not isinstance(raw, dict):
            col.error(f"each ablation must be an object, got {type(raw).__name__}", at)
            continue
        col.unknown_fields(raw, ENTRY_FIELDS, at)
        name = raw.get("id")
        if not isinstance(name, str) or not valid_name(name):
            col.error(f"ablation id {name!r} must be a short name of letters, digits, '-', '_' or '.'",
                      (*at, "id"))
            continue
        if name in seen:
            col.error(f"ablation id '{name}' is used twice; give each ablation its own id", (*at, "id"))
            continue
        seen.add(name)
        components = raw.get("components")
        if components is None and raw.get("mechanism") is None:
            col.warn(f"ablation '{name}' declares no removal (no mechanism/target or components): the "
                     "harness simulates it with an instruction; skill-eval runs only real removals, so "
                     "it is left out", at)
            continue
        if components is None:
            components = [{"mechanism": raw.get("mechanism"), "target": raw.get("target")}]
            comp_at: list[At] = [at]
        elif isinstance(components, list):
            comp_at = [(*at, "components", j) for j in range(len(components))]
        else:
            col.error("components must be a list of {mechanism, target} objects", (*at, "components"))
            continue
        remove: list[str] = []
        patches: list[tuple[str, str]] = []
        why: str | None = None
        for comp, where in zip(components, comp_at, strict=True):
            part, why = _component(comp, repo, manifest_dir, skill_root)
            if why is not None:
                col.warn(f"ablation '{name}' is left out: {why}", where)
                break
            if isinstance(part, tuple):
                patches.append(part)
            else:
                remove.append(part)  # type: ignore[arg-type]
        cases = col.string_list(raw.get("applies_to_cases"), (*at, "applies_to_cases"), "applies_to_cases")
        if why is None and (remove or patches):
            out.append(Ablation(name, tuple(remove), None, display, col.doc.where(at)[0], tuple(cases),
                                tuple(patches), strict=False))
    return tuple(out)


def _component(comp: Any, repo: Path, manifest_dir: Path, skill_root: Path
               ) -> tuple[str | tuple[str, str] | None, str | None]:
    """(what to remove: a path, a heading or a (patch file, its text), None), or (None, why it
    cannot run here)."""
    if not isinstance(comp, dict):
        return None, "a component must be an object with mechanism and target"
    mechanism = comp.get("mechanism")
    target = comp.get("target") if isinstance(comp.get("target"), dict) else {}
    root = target.get("skill_root")
    if isinstance(root, str) and root:
        folder = PurePosixPath(root)
        folder = folder.parent if folder.name == "SKILL.md" else folder
        if (repo / folder).resolve() != skill_root.resolve():
            return None, f"its skill_root '{root}' is another skill than {skill_root.name}"
    if mechanism == "section":
        heading = target.get("heading")
        if not isinstance(heading, str) or not heading.lstrip().startswith("#"):
            return None, "a section needs target.heading, written with its '#' marks ('## Title')"
        return heading.strip(), None
    if mechanism in _PATH_MECHANISMS:
        path = target.get("path")
        if not isinstance(path, str) or not path.strip():
            return None, f"a {mechanism} component needs target.path"
        if mechanism == "reference" and target.get("remove", "content") != "content":
            return None, (f"reference remove: {target.get('remove')} unlinks the pointer in the text; "
                          "skill-eval removes whole files only (remove: content)")
        return path.strip(), None
    if mechanism == "patch":
        return _patch(target.get("patch"), repo, manifest_dir)
    return None, (f"mechanism {mechanism!r} is not supported by skill-eval (it runs section, script, "
                  "asset, reference and deletion-only patch removals)")


def _patch(rel: Any, repo: Path, manifest_dir: Path) -> tuple[tuple[str, str] | None, str | None]:
    if not isinstance(rel, str) or not rel.strip():
        return None, "a patch component needs target.patch (a diff file, relative to the repository)"
    path = PurePosixPath(rel.strip())
    if path.is_absolute() or ".." in path.parts:
        return None, f"target.patch '{rel}' must be a path inside the repository (no absolute path, no '..')"
    full = repo / path
    # Beside the manifest (the harness keeps them in evals/ablations/): the parsed-manifest cache
    # watches that folder, so an edited patch is never served stale.
    if not full.resolve().is_relative_to(manifest_dir.resolve()):
        return None, f"patch file '{rel}' must be inside the manifest's folder ({manifest_dir.name}/...)"
    try:
        return (path.as_posix(), full.read_bytes().decode("utf-8")), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"patch file '{rel}' cannot be read ({getattr(exc, 'strerror', None) or exc})"
