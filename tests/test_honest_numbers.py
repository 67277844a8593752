"""The figures in benchmark.md, summary.md, the console and the review page say no more than
the runs measured (issue 11), each rule on a scripted suite."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from suitekit import Kit, case


def _md(kit: Kit, skill: str = "alpha") -> str:
    return (kit.results / skill / "benchmark.md").read_text()


@pytest.mark.slow
def test_cost_table_has_one_cost_column_integer_tokens_and_no_ratios(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1)
    kit.control(cost=0.003)
    code, out, err = kit.run()
    md = _md(kit)
    cost = md.split("## Cost and time")[1].splitlines()
    header = next(line for line in cost if line.startswith("| arm"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols.count("cost") == 1 and "cost_usd" not in cols and "total_tokens" not in cols
    row = next(line for line in cost if line.startswith("| with skill "))
    assert [c.strip() for c in row.strip("|").split("|")][cols.index("tokens/run")] == "15"
    assert "pp of lift per" not in md and "Cost per unit of lift" not in md
    assert "Cost of the skill: +0 tokens per run with the skill; +$0.0000 per run." in md
    assert "unknown" not in md.split("## Cost and time")[1]
    bench = json.loads(kit.bench("alpha").read_text())
    assert "per_1k_tokens" not in bench["lift"] and "per_usd" not in bench["lift"]


@pytest.mark.slow
def test_cost_unknown_only_when_no_run_reported_it(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1)
    adapter = kit.root / "adapter.py"
    reported = '"usage": {"input_tokens": 10, "output_tokens": 5, "cost_usd": float(ctl.get("cost", 0))}'
    assert reported in adapter.read_text()
    adapter.write_text(adapter.read_text().replace(reported, '"usage": {}'))
    kit.run()
    assert "Cost of the skill: unknown (the adapter reported no token counts or cost)." in _md(kit)


@pytest.mark.slow
def test_tiny_n_interval_and_p_carry_the_indeterminate_note_everywhere(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1)
    code, out, err = kit.run()
    md = _md(kit)
    row = md.splitlines()[6]  # the figures row under the header
    assert row.count("(indeterminate)") == 2, row  # beside p and beside the 95% interval
    assert "indeterminate: fewer than 6 cases moved" in md
    summary = (kit.results / "summary.md").read_text()
    assert "(indeterminate)" in summary
    page = (kit.results / "index.html").read_text()
    assert "95% interval" in page and "fewer than 6 cases moved" in page
    # The same p in the console and in Markdown.
    p_md = re.search(r"\| (1\.000|0\.\d{3})", row).group(1)
    assert f"p={p_md}" in out


def test_plurals_and_run_status_agree_on_table_counts(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    code, st_out, _ = kit.status()
    planned = re.search(r"(\d+ tables?) to rebuild\b", st_out).group(1)
    assert planned == "2 tables"  # alpha's and the summary, the two `rebuild` lines above
    code, out, err = kit.run()
    assert f"{planned} to rebuild" in out
    assert "over 1 case," in out and "over 1 cases" not in out
    assert "Done in" in out and "2 runs executed, 0 errors" in out


@pytest.mark.slow
def test_ungraded_rubric_items_are_counted_wherever_a_pass_rate_is(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=2, skills={"alpha": ["a1"]})
    c = case("a1")
    c["expectations"] = ["The answer is polite", "The answer is short"]
    kit.write_evals("alpha", [c])
    code, out, err = kit.run()
    # 2 items × 2 iterations × 2 variants: verdicts, not the items `inspect` counts
    note = "8 rubric verdicts ungraded (one per rubric item and run): add a judge"
    bench = json.loads(kit.bench("alpha").read_text())
    assert bench["variants"]["with_skill"]["rubric_ungraded"] == 4
    assert note in _md(kit)
    assert note in (kit.results / "summary.md").read_text()
    assert note in out
    assert note in (kit.results / "index.html").read_text()


@pytest.mark.slow
def test_console_names_failing_checks_and_trigger_queries(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1", "a2", "a3", "a4", "a5"]})
    kit.write_evals("alpha", [case(f"a{i}", check_value="never-there") for i in range(1, 6)])
    queries = [{"query": "please load", "should_trigger": False},
               {"query": "also this", "should_trigger": False}]
    (kit.skill_dir("alpha") / "evals" / "trigger-queries.json").write_text(json.dumps(queries))
    code, out, err = kit.run()
    assert code == 1
    shown = re.findall(r"failed with the skill: (a\d)/says: ", out)
    assert shown == ["a1", "a2", "a3"] and "... and 2 more failing checks" in out
    assert "trigger fail: 'please load' should not load, loaded 1/1" in out
    assert "triggers: 2 queries" in out


def test_no_indeterminate_line_when_every_run_errored(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    kit.control(fail="Task")
    code, out, err = kit.run()
    assert code == 2
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  alpha"))
    verdict, figures = lines[at], lines[at + 1]  # the verdict with its rule, then the figures
    assert verdict.startswith("  alpha [default]: error (runs errored")
    assert "indeterminate" not in verdict + figures and "lift n/a" in figures
    assert "indeterminate" not in (kit.results / "summary.md").read_text()
    bench = json.loads(kit.bench("alpha").read_text())
    assert bench["lift"]["indeterminate"] is False


def test_markdown_escapes_angle_brackets_in_author_and_run_text(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    kit.write_evals("alpha", [case("<b>bold</b>")])
    queries = [{"query": "<script>x()</script> | pipe", "should_trigger": True}]
    (kit.skill_dir("alpha") / "evals" / "trigger-queries.json").write_text(json.dumps(queries))
    kit.run()
    md = _md(kit)
    assert "&lt;b&gt;bold&lt;/b&gt;" in md and "<b>" not in md
    assert "&lt;script&gt;x()&lt;/script&gt; \\| pipe" in md and "<script>" not in md
    summary = (kit.results / "summary.md").read_text()
    assert "<b>" not in summary
