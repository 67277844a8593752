"""SKILL.md discovery and validation (skill_eval.model.skills), including real skills from
../shared/realworld.

Rules (agentskills.io): ``name`` 1-64 lowercase letters, digits and single hyphens, equal to the
folder name; ``description`` 1-1024 characters; optional ``license``, ``compatibility`` (<= 500),
``metadata`` (string -> string), ``allowed-tools``. Missing or unreadable frontmatter and a name
that differs from its folder are errors; other rule breaks are warnings unless the suite sets
``strict_skills``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from skill_eval.cli.main import main
from skill_eval.errors import InvalidInput
from skill_eval.model.config import SkillSelector
from skill_eval.model.skills import discover_skills, load_skill, parse_frontmatter

DATA = Path(__file__).parent / "data" / "test_skills"
SKILLS = DATA / "skills"
REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
FRONT_KEYS = "allowed-tools, compatibility, description, license, metadata, name"
EXTRA = f"remove or rename it (allowed: {FRONT_KEYS}); agentskills.io keeps other fields under 'metadata'"
LINE = re.compile(r"^[^\n:]+(:\d+(:\d+)?)?: (warning: )?\S[^\n]*$")


@pytest.fixture
def in_data(monkeypatch):
    monkeypatch.chdir(DATA)


def lines(name: str, strict: bool = False) -> list[str]:
    skill = load_skill(SKILLS / name, strict=strict)
    assert skill.name == name  # the folder name, whatever the frontmatter says
    return [p.format() for p in skill.problems]


# ---- one skill folder -------------------------------------------------------------------------

def test_good_skill(in_data):
    skill = load_skill(SKILLS / "good")
    assert skill.problems == ()
    assert skill.name == "good" and skill.path == SKILLS / "good"
    assert skill.skill_md == SKILLS / "good" / "SKILL.md"
    assert skill.description == "Does a good job. Use when the user asks for a good job."
    assert skill.frontmatter["metadata"] == {"author": "someone", "version": "1.0"}
    assert skill.frontmatter["allowed-tools"] == "Read Grep"


BAD = {
    # errors whatever strict_skills says
    "no-frontmatter": ["skills/no-frontmatter/SKILL.md:1: no frontmatter: SKILL.md must start with a '---' "
                       "line, then 'name:' and 'description:', then '---'"],
    "unclosed": ["skills/unclosed/SKILL.md:1: frontmatter is not closed: add a '---' line after it"],
    "wrong-name": ["skills/wrong-name/SKILL.md:2:1: name 'other-name' does not match its folder "
                   "'wrong-name'; rename one so they are equal, or set skill_name_check: warn in the suite"],
    "bad-yaml": ["skills/bad-yaml/SKILL.md:3:27: frontmatter: YAML syntax error: mapping values are not "
                 "allowed here; a value contains ': '; put the whole value in quotes"],
    "python-tag": ["skills/python-tag/SKILL.md:3:14: frontmatter: YAML error: tag "
                   "!!python/object/apply:os.system is not allowed (only plain YAML is loaded; remove the "
                   "tag)"],
    "not-a-mapping": ["skills/not-a-mapping/SKILL.md:2: frontmatter must be a mapping with 'name' and "
                      "'description'; write them as 'name: ...' and 'description: ...' lines"],
    "empty-frontmatter": ["skills/empty-frontmatter/SKILL.md:2: frontmatter must be a mapping with 'name' "
                          "and 'description'; write them as 'name: ...' and 'description: ...' lines"],
    "lowercase-md": ["skills/lowercase-md/SKILL.md: missing SKILL.md; found skill.md: rename it to SKILL.md"],
    "no-skill-md": ["skills/no-skill-md/SKILL.md: missing SKILL.md; add one (frontmatter with name and "
                    "description), or leave this folder out of 'skills'"],
    # warnings unless strict
    "too-long": ["skills/too-long/SKILL.md:3:1: warning: description: is 1030 characters long; the maximum "
                 "is 1024: shorten it"],
    "extra-keys": [f"skills/extra-keys/SKILL.md:4:1: warning: unknown key 'argument-hint'; {EXTRA}",
                   f"skills/extra-keys/SKILL.md:5:1: warning: unknown key 'model'; {EXTRA}"],
    "bad-metadata": ["skills/bad-metadata/SKILL.md:6:3: warning: metadata.tags: must be a string, got a "
                     "list; change the value",
                     "skills/bad-metadata/SKILL.md:9:3: warning: metadata.stars: must be a string, got 5 "
                     "(a number); change the value"],
    "Bad_Name": ["skills/Bad_Name/SKILL.md:2:1: warning: name: 'Bad_Name' must be lowercase letters, digits "
                 "and single hyphens, not at the start or end (agentskills.io); rename the skill and its "
                 "folder"],
    "missing-fields": ["skills/missing-fields/SKILL.md:2:1: warning: 'name' is required but missing; add it",
                       "skills/missing-fields/SKILL.md:2:1: warning: 'description' is required but missing; "
                       "add it"],
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_skill_message(name, in_data):
    assert lines(name) == BAD[name]


@pytest.mark.parametrize("name", sorted(BAD))
def test_strict_turns_warnings_into_errors(name, in_data):
    strict = lines(name, strict=True)
    assert strict == [line.replace(": warning: ", ": ") for line in BAD[name]]
    assert all(p.is_error for p in load_skill(SKILLS / name, strict=True).problems)


def test_every_skill_folder_in_the_data_is_covered():
    assert {p.name for p in SKILLS.iterdir() if p.is_dir()} == set(BAD) | {"good"}


def test_python_tag_in_frontmatter_is_not_executed(tmp_path):
    marker = tmp_path / "EXECUTED"
    skill = tmp_path / "tagged"
    skill.mkdir()
    (skill / "SKILL.md").write_text(f'---\nname: tagged\ndescription: !!python/object/apply:os.system '
                                    f'["touch {marker}"]\n---\n')
    (problem,) = load_skill(skill).problems
    assert "is not allowed" in problem.message and not marker.exists()


def test_bom_and_crlf_are_accepted(tmp_path):
    skill = tmp_path / "windows"
    skill.mkdir()
    (skill / "SKILL.md").write_bytes(b"\xef\xbb\xbf---\r\nname: windows\r\ndescription: Saved on Windows.\r\n"
                                     b"---\r\nBody\r\n")
    loaded = load_skill(skill)
    assert loaded.problems == () and loaded.description == "Saved on Windows."


def test_frontmatter_must_open_on_the_first_line():
    data, problems = parse_frontmatter("\n---\nname: x\ndescription: y\n---\n", "SKILL.md")
    assert data is None and problems[0].message.startswith("no frontmatter")
    data, problems = parse_frontmatter("----\nname: x\n---\n", "SKILL.md")
    assert data is None and problems[0].message.startswith("no frontmatter")


def test_frontmatter_lines_count_from_the_file_start():
    _, problems = parse_frontmatter("---\nname: x\ndescription: y\nextra: z\n---\n", "SKILL.md")
    assert [(p.line, p.column) for p in problems] == [(4, 1)]


def test_non_utf8_skill_md(tmp_path):
    skill = tmp_path / "latin"
    skill.mkdir()
    (skill / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\n")
    (problem,) = load_skill(skill).problems
    assert problem.message.startswith("cannot read: ") and problem.message.endswith("; save it as UTF-8 text")


# ---- discovery --------------------------------------------------------------------------------

def test_discover_by_name_and_glob_in_name_order():
    found = discover_skills(SKILLS, (SkillSelector("wrong-*"), SkillSelector("good"), SkillSelector("b*")))
    assert [s.name for s in found] == ["bad-metadata", "bad-yaml", "good", "wrong-name"]


def test_discover_keeps_the_most_specific_selector():
    sel = SkillSelector("good", format="native", evals=("evals/evals.json",))
    (skill,) = discover_skills(SKILLS, (SkillSelector("goo*"), sel))
    assert skill.selector == sel


def test_discover_unknown_skill_names_the_config_line_and_suggests(in_data):
    with pytest.raises(InvalidInput) as exc:
        selectors = (SkillSelector("*"), SkillSelector("god", line=4), SkillSelector("zzz", line=5))
        discover_skills(SKILLS, selectors, config_file="suite.yaml")
    assert [p.format() for p in exc.value.problems] == [
        "suite.yaml:4: skills: no skill folder 'god' under skills (did you mean 'good'?); fix the name or "
        "skills_dir",
        "suite.yaml:5: skills: no skill folder 'zzz' under skills; skill folders there: Bad_Name, "
        "bad-metadata, bad-yaml, empty-frontmatter, extra-keys, good, lowercase-md, missing-fields, "
        "no-frontmatter, no-skill-md; fix the name or skills_dir"]


def test_discover_nothing_selected_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInput) as exc:
        discover_skills(tmp_path / "empty", (SkillSelector("*", line=3),), config_file="s.yaml")
    assert [p.format() for p in exc.value.problems] == [
        "s.yaml:3: skills: empty has no skill folders; point skills_dir at the folder holding one folder per "
        "skill, or fix 'skills'"]
    with pytest.raises(InvalidInput) as exc:
        discover_skills(SKILLS, (SkillSelector("zz*", line=3),), config_file="s.yaml")
    assert exc.value.problems[0].message.startswith(f"skills: {SKILLS} has no folder matching zz*; ")


def test_hidden_folders_are_not_skills(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "SKILL.md").write_text("---\nname: one\ndescription: d\n---\n")
    assert [s.name for s in discover_skills(tmp_path, (SkillSelector("*"),))] == ["one"]


# ---- real skills (../shared/realworld) --------------------------------------------------------

needs_realworld = pytest.mark.skipif(
    not REALWORLD.is_dir(), reason=f"real-world samples not found at {REALWORLD} (../shared/realworld)")

# Skill folder (relative to realworld/) -> its problems as "line[:col]: [warning: ]message".
REAL_PROBLEMS = {
    # The copy keeps the repository as the folder, so the name does not match it; plus a Claude key.
    "88lin__diataxis-docs-skill": [
        "2:1: name 'diataxis-docs' does not match its folder '88lin__diataxis-docs-skill'; rename one so "
        "they are equal, or set skill_name_check: warn in the suite",
        f"3:1: warning: unknown key 'version'; {EXTRA}"],
    "adewale__audit-skill/skills/audit": [
        "3:1: warning: description: is 1064 characters long; the maximum is 1024: shorten it"],
    "anthropics__skills/skills/claude-api": [
        "3:1: warning: description: is 1068 characters long; the maximum is 1024: shorten it"],
    "anthropics__skills/template": [
        "2:1: name 'template-skill' does not match its folder 'template'; rename one so they are equal, "
        "or set skill_name_check: warn in the suite"],
    "coroboros__agent-skills/skills/brainstorm": [
        f"4:1: warning: unknown key 'when_to_use'; {EXTRA}",
        f"5:1: warning: unknown key 'argument-hint'; {EXTRA}",
        f"6:1: warning: unknown key 'model'; {EXTRA}"],
    "coroboros__agent-skills/skills/fix-grammar": [
        f"4:1: warning: unknown key 'when_to_use'; {EXTRA}",
        f"5:1: warning: unknown key 'argument-hint'; {EXTRA}",
        f"6:1: warning: unknown key 'model'; {EXTRA}",
        "12:3: warning: metadata.sources: must be a string, got a list; change the value"],
    "coroboros__agent-skills/skills/oneshot": [
        f"4:1: warning: unknown key 'when_to_use'; {EXTRA}",
        f"5:1: warning: unknown key 'argument-hint'; {EXTRA}",
        f"6:1: warning: unknown key 'model'; {EXTRA}",
        "11:3: warning: metadata.sources: must be a string, got a list; change the value"],
    "daddia__skills/skills/ralph-loop": [f"14:1: warning: unknown key 'argument-hint'; {EXTRA}"],
    "daddia__skills/skills/tasks": [f"16:1: warning: unknown key 'argument-hint'; {EXTRA}"],
    "gokulkrishh__skills/skills/commit": [
        f"5:1: warning: unknown key 'argument-hint'; {EXTRA}",
        f"6:1: warning: unknown key 'model'; {EXTRA}",
        f"7:1: warning: unknown key 'effort'; {EXTRA}",
        f"8:1: warning: unknown key 'user-invocable'; {EXTRA}"],
    "japurcell__skills/skills/adversarial-review": [
        f"4:1: warning: unknown key 'disable-model-invocation'; {EXTRA}"],
    "japurcell__skills/skills/architecture-design-contest": [
        f"4:1: warning: unknown key 'disable-model-invocation'; {EXTRA}"],
    # Agent outputs kept in a workspace: not skills, and they say so.
    "japurcell__skills/skills/archive/skillify-workspace/iteration-1/eval-0/without_skill/run-3/outputs": [
        "1: no frontmatter: SKILL.md must start with a '---' line, then 'name:' and 'description:', then "
        "'---'"],
    "japurcell__skills/skills/archive/skillify-workspace/iteration-1/eval-2/without_skill/run-3/outputs": [
        "2:1: name 'benchmark-triage' does not match its folder 'outputs'; rename one so they are equal, "
        "or set skill_name_check: warn in the suite",
        "4:1: warning: compatibility: must be a string, got a mapping; change the value"],
    # Unquoted ': ' inside a description, and an unquoted [..] [..] value.
    "redhat-documentation__redhat-docs-agent-tools/plugins/docs-tools/skills/rh-ssg-release-notes": [
        "4:309: frontmatter: YAML syntax error: mapping values are not allowed here; a value contains ': '; "
        "put the whole value in quotes"],
    "redhat-documentation__redhat-docs-agent-tools/plugins/jtbd-tools/skills/jtbd-analyze": [
        "4:36: frontmatter: YAML syntax error: expected <block end>, but found '[' (while parsing a block "
        "mapping started at line 2); text follows a [list], {mapping} or quoted value on the same line; put "
        "the whole value in quotes"],
    "toongri__oh-my-toong-playground/skills/humanizer": [
        "3:117: frontmatter: YAML syntax error: mapping values are not allowed here; a value contains ': '; "
        "put the whole value in quotes"],
}


def _real_skill_dirs() -> list[Path]:
    return sorted(md.parent for md in REALWORLD.rglob("SKILL.md")) if REALWORLD.is_dir() else []


@needs_realworld
def test_every_real_skill_md_validates_or_gives_named_problems(monkeypatch):
    monkeypatch.chdir(REALWORLD)
    dirs = _real_skill_dirs()
    assert len(dirs) >= 40
    found: dict[str, list[str]] = {}
    for folder in dirs:
        rel = folder.relative_to(REALWORLD).as_posix()
        skill = load_skill(folder)  # must not raise
        prefix = f"{rel}/SKILL.md:"
        for problem in skill.problems:
            text = problem.format()
            assert LINE.match(text), text
            assert text.startswith(prefix), text
        if skill.problems:
            found[rel] = [p.format().removeprefix(prefix) for p in skill.problems]
    assert found == REAL_PROBLEMS


@needs_realworld
def test_real_skills_clean_apart_from_the_listed_problems():
    clean = [d for d in _real_skill_dirs() if d.relative_to(REALWORLD).as_posix() not in REAL_PROBLEMS]
    assert len(clean) >= 20
    for folder in clean:
        skill = load_skill(folder, strict=True)
        assert skill.problems == () and skill.frontmatter["name"] == folder.name and skill.description


@needs_realworld
def test_real_skills_strict_mode_blocks_the_metadata_problems():
    skill = load_skill(REALWORLD / "adewale__audit-skill" / "skills" / "audit", strict=True)
    assert [(p.is_error, p.line) for p in skill.problems] == [(True, 3)]


@needs_realworld
def test_every_real_eval_set_file_reads_or_gives_one_named_problem():
    from skill_eval.model.evalsets import read_evalset

    files = sorted(p for p in REALWORLD.rglob("*.json") if p.name != "INDEX.json")
    assert len(files) >= 30
    readable = 0
    for path in files:
        try:
            evalset = read_evalset(path, display=path.name)
        except InvalidInput as exc:
            (problem,) = exc.problems
            assert problem.file == path.name and LINE.match(problem.format())
            continue
        readable += 1
        for problem in evalset.problems:
            assert LINE.match(problem.format()), problem.format()
    assert readable >= 20


def _generated_suites(tmp_path: Path) -> dict[str, Path]:
    """One suite per folder holding real skills, naming exactly those skills."""
    groups: dict[Path, list[str]] = defaultdict(list)
    for folder in _real_skill_dirs():
        groups[folder.parent].append(folder.name)
    suites = {}
    for i, (parent, names) in enumerate(sorted(groups.items())):
        suite = tmp_path / f"real-{i}.yaml"
        quoted = ", ".join(f'"{n}"' for n in names)
        suite.write_text(f"suite: real-{i}\nskills_dir: {parent}\nskills: [{quoted}]\n"
                         f"store: {tmp_path / 'store'}\nresults: {tmp_path / 'results'}\n")
        suites[parent.relative_to(REALWORLD).as_posix()] = suite
    return suites


# skills_dir (relative to realworld/) -> exit code of `skill-eval validate` on a suite naming its skills
REAL_EXIT = {
    ".": 2,  # 88lin: name does not match the folder
    "AvdLee__Xcode-Disk-Cleanup-Agent-Skill": 2,  # rubric-only cases, no judge: run refuses
    "adewale__audit-skill/skills": 2,  # a harness fixture the copy left out
    "adewale__swiss-poster-skill": 0,
    "anthropics__skills": 2,  # template: name does not match
    "anthropics__skills/skills": 0,
    "coroboros__agent-skills/skills": 2,
    "daddia__skills/skills": 2,  # rubric-only cases, no judge: run refuses
    "erdemtuna__skills/skills": 2,  # rubric-only cases, no judge: run refuses
    "gokulkrishh__skills/skills": 2,  # rubric-only cases, no judge: run refuses
    "japurcell__skills/skills": 2,
    "japurcell__skills/skills/archive": 2,  # rubric-only cases, no judge: run refuses
    "japurcell__skills/skills/archive/skillify-workspace/iteration-1/eval-0/without_skill/run-3": 2,
    "japurcell__skills/skills/archive/skillify-workspace/iteration-1/eval-2/without_skill/run-3": 2,
    "redhat-documentation__redhat-docs-agent-tools/plugins/dita-tools/skills": 0,
    "redhat-documentation__redhat-docs-agent-tools/plugins/docs-tools/skills": 2,
    "redhat-documentation__redhat-docs-agent-tools/plugins/jtbd-tools/skills": 2,
    "srinitude__skills/skills": 2,  # rubric-only cases, no judge: run refuses
    "toongri__oh-my-toong-playground/skills": 2,
}


@needs_realworld
def test_validate_over_generated_suites_of_real_skills(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REALWORLD)
    suites = _generated_suites(tmp_path)
    assert set(suites) == set(REAL_EXIT)
    codes = {}
    for rel, suite in suites.items():
        codes[rel] = main(["validate", str(suite)])
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        summary = out.strip().splitlines()[-1]
        assert re.fullmatch(r"Validated \d+ skills?, \d+ eval sets?, \d+ cases?(; .*)?", summary), summary
        for line in err.splitlines() + out.strip().splitlines()[:-1]:
            assert LINE.match(line), line
        # every SKILL.md problem listed above shows up in the validate output
        for skill_rel, expected in REAL_PROBLEMS.items():
            if Path(skill_rel).parent.as_posix() == rel:
                for tail in expected:
                    assert f"{skill_rel}/SKILL.md:{tail}" in (out + err).splitlines()
    assert codes == REAL_EXIT


@needs_realworld
def test_validate_several_real_suites_at_once(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REALWORLD)
    suites = _generated_suites(tmp_path)
    clean = [str(suites[rel]) for rel, code in sorted(REAL_EXIT.items()) if code == 0]
    assert main(["validate", *clean]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert re.fullmatch(r"Validated (\d+) skills?, (\d+) eval sets?, (\d+) cases?(; \d+ warnings?)?",
                        out.strip().splitlines()[-1])
    assert main(["validate", *map(str, suites.values())]) == 2
