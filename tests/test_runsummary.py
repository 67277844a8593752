"""What `run` says at its end (cli/runsummary.py), from the engine's outcome alone."""

from __future__ import annotations

from skill_eval.cli.runsummary import problem_lines, say_summary, stop_lines
from skill_eval.engine.outcome import RunOutcome


def test_each_distinct_adapter_error_is_said_once_with_its_count():
    outcome = RunOutcome(errored=3, adapter_errors=(("agent:s/a", "no API key"), ("agent:s/b", "no API key"),
                                                    ("agent:s/c", "timed out after 5s")))
    assert problem_lines(outcome) == [
        "skill-eval: 2 runs could not run: no API key (first: agent:s/a)",
        "skill-eval: error in agent:s/c: timed out after 5s",
    ]


def test_problems_come_in_a_fixed_order_and_the_judges_stop_is_said_once():
    outcome = RunOutcome(
        internal_failures=(("bench:s", "KeyError"),), not_kept=(("s/c/with_skill/1", {"big": "too big"}),),
        doit_db_replaced=True, damaged=("s/d/with_skill/1",),
        judge_errors=(("s/c/with_skill/1", "bad key"), ("s/e/with_skill/1", "judge timed out")),
        judge_fatal="bad key", judge_stopped=2)
    lines = problem_lines(outcome)
    assert [line.split(":")[1].strip() for line in lines] == [
        "internal error in bench", "error in agent", "note", "note", "judge error in grade"]
    assert "judge timed out" in lines[-1] and not any("bad key" in line for line in lines)
    assert stop_lines(outcome) == ["skill-eval: judge stopped early: bad key (2 more grades not judged; "
                                   "fix this and run again: the runs are kept)"]


def test_the_budget_stop_comes_before_the_early_stop():
    outcome = RunOutcome(budget=1.0, cost_usd=1.25, budget_stopped=4, errored=1, fatal="no API key",
                         fatal_stopped=7)
    assert stop_lines(outcome) == [
        "skill-eval: budget of $1 spent ($1.25): 4 runs not started; the suite is incomplete. Raise "
        "--max-cost (or max_cost_usd) and run again to finish it.",
        "skill-eval: stopped early: no API key (7 more runs not started; fix this and run again)",
    ]


def test_a_run_that_went_well_says_only_the_summary(tmp_path, capsys):
    outcome = RunOutcome(executed=6, shared=2)
    assert problem_lines(outcome) == [] and stop_lines(outcome) == []
    say_summary(outcome, 1.25, tmp_path / "results")
    out, err = capsys.readouterr()
    assert out.startswith("Done in 1.2s: 6 runs executed (2 of them the same request as another case's, "
                          "made once), 0 errors. Results: ") and err == ""
