"""Every eval-set-like file in ../shared/realworld (real skills' files, see its PROVENANCE.md).

Counts were verified by reading each file: ``cases`` are task cases, ``triggers`` trigger
queries. Harness manifests leave out holdout/holdback cases whose private ``prompt_ref`` is not
in the repository (audit-skill: 26 - 2, swiss-poster: 59 - 8); their ``kind: trigger`` cases are
trigger queries (6 each). "Not readable" files load but
have errors, mostly fixtures the copy left out (code files) or absolute paths.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_eval.cli.subcommands.inspect import format_inspect, inspect_path

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
SUFFIXES = (".json", ".yaml", ".yml")

pytestmark = pytest.mark.skipif(not REALWORLD.is_dir(),
                                reason=f"real-world samples not found at {REALWORLD} (../shared/realworld)")

# path, format, task cases, trigger queries, readable (no errors)
EVAL_SETS = [
    ("88lin__diataxis-docs-skill/evals/evals.json", "native", 32, 0, True),
    ("AvdLee__Xcode-Disk-Cleanup-Agent-Skill/evals/evals.json", "skill_creator", 4, 0, True),
    ("AvdLee__Xcode-Disk-Cleanup-Agent-Skill/evals/trigger-evals.json", "triggers", 0, 20, True),
    ("adewale__audit-skill/audit-workspace/iteration-3/concurrency-audit/eval_metadata.json", "skill_forge",
     1, 0, True),
    ("adewale__audit-skill/audit-workspace/trigger-eval-final.json", "triggers", 0, 20, True),
    ("adewale__audit-skill/evals/evals.json", "native", 3, 0, True),
    ("adewale__audit-skill/evals/shared-benchmark.json", "harness", 18, 6, False),
    ("adewale__swiss-poster-skill/evals/shared-benchmark.json", "harness", 45, 6, True),
    ("coroboros__agent-skills/skills/brainstorm/evals/evals.json", "native", 9, 0, True),
    ("coroboros__agent-skills/skills/fix-grammar/evals/evals.json", "native", 6, 0, False),
    ("coroboros__agent-skills/skills/oneshot/evals/evals.json", "native", 6, 0, False),
    ("daddia__skills/skills/ralph-loop/evals/evals.json", "native", 6, 0, True),
    ("daddia__skills/skills/ralph-loop/evals/trigger-queries.json", "triggers", 0, 10, True),
    ("daddia__skills/skills/tasks/evals/evals.json", "native", 4, 0, True),
    ("daddia__skills/skills/tasks/evals/trigger-queries.json", "triggers", 0, 14, True),
    ("erdemtuna__skills/skills/structural-code-review/evals/evals.json", "native", 4, 0, True),
    ("gokulkrishh__skills/skills/commit/evals/evals.json", "native", 5, 0, True),
    ("japurcell__skills/skills/adversarial-review/evals/evals.json", "skill_creator", 3, 0, True),
    ("japurcell__skills/skills/architecture-design-contest/evals/evals.json", "native", 6, 0, False),
    ("japurcell__skills/skills/archive/agents-md-upfactor/evals/evals.json", "native", 3, 0, True),
    ("japurcell__skills/skills/commit/evals/evals.json", "native", 4, 0, True),
    ("japurcell__skills/skills/handoff/evals/evals.json", "skill_creator", 3, 0, False),
    ("redhat-documentation__redhat-docs-agent-tools/plugins/hello-world/evals/evals.json", "native",
     3, 0, True),
    ("srinitude__skills/skills/logic-audit/evals/cases.json", "required_veto", 10, 0, True),
    ("srinitude__skills/skills/logic-audit/evals/evals.json", "native", 10, 0, True),
    ("srinitude__skills/skills/logic-audit/evals/trigger-cases.json", "triggers", 0, 12, True),
    ("srinitude__skills/skills/logic-audit/evals/trigger-queries.json", "triggers", 0, 12, True),
    ("toongri__oh-my-toong-playground/skills/code-review/evals/evals.json", "native", 4, 0, True),
    ("toongri__oh-my-toong-playground/skills/collect-jd/evals/trigger-eval.json", "triggers", 0, 26, True),
    ("toongri__oh-my-toong-playground/skills/review-resume/evals/evals.json", "native", 10, 0, False),
]

# JSON that is not an eval set, and the reason given.
REFUSED = [
    ("adewale__audit-skill/evals/fixtures/round3-auth-order/package.json", "not an eval set"),
    ("japurcell__skills/skills/commit/evals/files/ambiguous-multi-surface/input.json", "not an eval set"),
    ("japurcell__skills/skills/commit/evals/files/generated-artifact-stop/input.json", "not an eval set"),
    ("japurcell__skills/skills/commit/evals/files/single-file-on-main/input.json", "not an eval set"),
    ("japurcell__skills/skills/commit/evals/files/staged-bugfix-pr/input.json", "not an eval set"),
    ("srinitude__skills/skills/logic-audit/evals/manifest.json", "manifest that points to other files"),
    ("INDEX.json", "not an eval set"),
]


def test_every_json_or_yaml_file_is_listed():
    on_disk = {p.relative_to(REALWORLD).as_posix() for p in REALWORLD.rglob("*") if p.suffix in SUFFIXES}
    listed = {row[0] for row in EVAL_SETS} | {row[0] for row in REFUSED}
    assert on_disk == listed


@pytest.mark.parametrize("rel, fmt, cases, triggers, readable", EVAL_SETS, ids=[r[0] for r in EVAL_SETS])
def test_eval_set(rel, fmt, cases, triggers, readable):
    result = inspect_path(REALWORLD / rel)
    assert isinstance(result, dict)
    assert (result["format"], result["cases"], result["triggers"]) == (fmt, cases, triggers)
    assert result["readable"] is readable, result["problems"]
    for problem in result["problems"]:
        assert "\n" not in problem and "Traceback" not in problem
        assert problem.startswith(str(REALWORLD / rel))
    if not readable:
        assert any("warning:" not in p for p in result["problems"])
    assert format_inspect(result).startswith(str(REALWORLD / rel))


@pytest.mark.parametrize("rel, reason", REFUSED, ids=[r[0] for r in REFUSED])
def test_not_an_eval_set_is_refused_clearly(rel, reason):
    result = inspect_path(REALWORLD / rel)
    assert result["readable"] is False and result["format"] is None and result["cases"] == 0
    (problem,) = result["problems"]
    assert reason in problem and rel.split("/")[-1] in problem


def test_every_skill_folder_and_the_whole_tree_inspect_without_error():
    skills = sorted({p.parent for p in REALWORLD.rglob("SKILL.md")})
    assert skills
    for folder in skills:
        assert isinstance(inspect_path(folder), list)
    tree = inspect_path(REALWORLD)
    assert isinstance(tree, list)
    # Every eval set inside an evals/ folder is found; workspace files outside one are not.
    found = {Path(r["path"]).relative_to(REALWORLD).as_posix() for r in tree}
    expected = {r[0] for r in EVAL_SETS if "/evals/" in f"/{r[0]}"}
    assert found == expected


def test_evals_kept_beside_the_skill_are_found():
    cleanup = inspect_path(REALWORLD / "AvdLee__Xcode-Disk-Cleanup-Agent-Skill" / "xcode-disk-cleanup")
    assert [(r["format"], r["cases"], r["triggers"]) for r in cleanup] == [("skill_creator", 4, 0),
                                                                           ("triggers", 0, 20)]
    audit = inspect_path(REALWORLD / "adewale__audit-skill" / "skills" / "audit")
    assert [r["format"] for r in audit] == ["native", "harness"]
    poster = inspect_path(REALWORLD / "adewale__swiss-poster-skill" / "swiss-poster")
    assert [r["format"] for r in poster] == ["harness"]
