"""The agents axis (`agents:` in a suite): every agent runs every case in both arms; the run
key, the task names, the tables and the page gain the agent; the summary gives the lift per
agent with its interval and p, Holm-adjusted across the cells; editing one agent re-runs only
its runs; a suite with one `adapter:` keeps its keys (tests/test_keys.py pins those)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jsonschema import Draft202012Validator
from scratch import kept
from suitekit import JSON_SHIM

from skill_eval.cli.main import main
from skill_eval.intake.schemas_io import load_schema
from skill_eval.model.config import load_suite
from skill_eval.review.comparison.agents import effect

DATA = Path(__file__).parent / "data" / "test_agents_axis"
SKILL = "tidy"
CASES = 8  # enough paired cases for the sign-flip test to decide after Holm over two cells

AGENTS = """agents:
  - name: helped
    command: [python3, -S, agent.py, helped, --helps]
  - name: flat
    command: [python3, -S, agent.py, flat]
"""


def _project(tmp: Path, agents: str = AGENTS) -> Path:
    # started for every run: under -S and on suitekit's json shim instead of the json module
    agent = (DATA / "agent.py").read_text().replace("import json\n", "", 1)
    (tmp / "agent.py").write_text(JSON_SHIM + agent)
    skill = tmp / "skills" / SKILL
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: {SKILL}\ndescription: Tidy things up.\n---\nSay DONE.\n")
    evals = [{"id": f"c{i}", "prompt": f"tidy item {i}", "checks": [{"type": "contains", "value": "DONE"}]}
             for i in range(CASES)]
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": SKILL, "evals": evals}))
    suite = tmp / "suite.yaml"
    suite.write_text(f"suite: axis\nskills_dir: skills\n{agents}iterations: 1\njobs: 2\n"
                     "store: .store\nresults: results\n")
    return suite


def _calls(tmp: Path) -> list[str]:
    log = tmp / "calls.log"
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return sorted(lines)


def _first_run(folder: Path) -> Path:
    suite = _project(folder)
    (folder / "first-run-code").write_text(str(main(["run", str(suite)])))
    return folder


def _ran(tmp_path: Path) -> Path:
    """The project after its first run (made once per test process and copied), calls.log kept."""
    shutil.copytree(kept("agents-axis-ran", _first_run), tmp_path, dirs_exist_ok=True)
    return tmp_path / "suite.yaml"


def test_each_agent_gets_a_column_and_the_summary_says_where_the_skill_helps(tmp_path, capsys):
    _ran(tmp_path)
    assert int((tmp_path / "first-run-code").read_text()) in (0, 1)
    capsys.readouterr()
    assert _calls(tmp_path) == sorted([f"{a} {m}" for a in ("helped", "flat")
                                       for m in ("with_skill", "without_skill")] * CASES)
    results = tmp_path / "results" / SKILL
    benches = {d.name: json.loads((d / "benchmark.json").read_text()) for d in results.iterdir()
               if (d / "benchmark.json").is_file()}
    assert sorted(benches) == ["flat@default", "helped@default"]
    by_agent = {b["agent"]["name"]: b for b in benches.values()}
    validator = Draft202012Validator(load_schema("benchmark"))
    for b in by_agent.values():
        assert list(validator.iter_errors(b)) == []
    assert by_agent["helped"]["lift"]["pass_rate"] == 1.0 and by_agent["flat"]["lift"]["pass_rate"] == 0.0
    assert by_agent["helped"]["lift"]["p_holm"] <= 0.05  # adjusted across the two cells
    assert effect(by_agent["helped"]["lift"]) == "helps" and effect(by_agent["flat"]["lift"]) == "none"
    summary = (tmp_path / "results" / "summary.md").read_text()
    assert "## Lift per agent" in summary
    rows = [ln for ln in summary.splitlines() if ln.startswith(f"| {SKILL} ") and "skill helps" in ln
            or "no clear effect" in ln]
    assert any("helped" in r and "the skill helps" in r for r in rows)
    assert any("flat" in r and "no clear effect" in r for r in rows)
    data = json.loads((tmp_path / "results" / "summary.json").read_text())
    assert {(r["agent"], r["effect"]) for r in data["agents"]} == {("helped", "helps"), ("flat", "none")}
    page = (tmp_path / "results" / "index.html").read_text()
    assert "Lift per agent" in page and 'class="effect-helps"' in page


def test_editing_one_agent_reruns_only_its_runs(tmp_path, capsys):
    suite = _ran(tmp_path)
    _calls(tmp_path)
    assert main(["run", str(suite)]) in (0, 1)
    assert _calls(tmp_path) == []  # nothing changed: nothing runs
    suite.write_text(suite.read_text().replace("[python3, -S, agent.py, flat]",
                                               "[python3, -S, agent.py, flat]\n    version: '2'"))
    capsys.readouterr()
    main(["status", str(suite)])
    stale = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("run ")]
    assert len(stale) == 2 * CASES and all("/flat/default/1: adapter changed" in ln for ln in stale)
    main(["run", str(suite)])
    capsys.readouterr()
    assert _calls(tmp_path) == sorted(["flat with_skill", "flat without_skill"] * CASES)


def test_the_agent_is_in_the_run_key_and_task_name(tmp_path):
    suite = _project(tmp_path)
    from skill_eval.engine.engine import Engine
    from skill_eval.model.project import load_project
    from skill_eval.store.store import Store

    project = load_project(suite)
    engine = Engine(project, Store(project.suite.store))
    names = {s.task_name for s in engine.plan.runs}
    assert f"agent:{SKILL}/c0/with_skill/helped/default/1" in names
    assert f"agent:{SKILL}/c0/with_skill/flat/default/1" in names
    keys = {s.key for s in engine.plan.runs}
    assert len(keys) == 2 * 2 * CASES  # the agent's name and adapter make every key its own
    assert all(engine.plan.materials[s.key]["agent"] == s.agent for s in engine.plan.runs)


def test_a_name_defaults_to_the_builtin_and_names_must_differ(tmp_path, capsys):
    suite = _project(tmp_path, "agents:\n  - builtin: demo\n  - builtin: demo\n")
    assert main(["validate", str(suite)]) == 2
    err = capsys.readouterr().err
    assert "agents[1]: the name 'demo' is taken by agents[0]; give each agent its own 'name'" in err
    (tmp_path / "ok").mkdir()
    suite = _project(tmp_path / "ok", "agents:\n  - builtin: demo\n  - {builtin: demo, name: demo-2}\n")
    assert [a.name for a in load_suite(suite).agents] == ["demo", "demo-2"]


def test_agents_and_adapter_together_are_refused(tmp_path, capsys):
    suite = _project(tmp_path, "adapter: {builtin: demo}\nagents:\n  - builtin: demo\n")
    assert main(["validate", str(suite)]) == 2
    assert "set either 'adapter' (one agent) or 'agents' (several), not both" in capsys.readouterr().err


def test_preflight_checks_every_agent(tmp_path, capsys, monkeypatch):
    """Each agent's CLI is found and its credentials checked before the first run, named by agent."""
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    suite = _project(tmp_path, "agents:\n  - builtin: demo\n  - name: gem\n    builtin: gemini\n"
                               "    options: {gemini_bin: /no/such/gemini}\n")
    assert main(["validate", str(suite)]) == 2
    err = capsys.readouterr().err
    assert "agents (gem): agents (gem).options.gemini_bin /no/such/gemini is not an executable file" in err
