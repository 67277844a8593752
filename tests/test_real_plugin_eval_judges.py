"""llm and baseline graders judged by skill-eval as ``claude plugin eval`` judges them: the real
``claude`` CLI runs both tools against the scripted model server (tests/fakemodel.py), whose
judge side answers each grader's votes as scripted (the n-th vote on one prompt gets the n-th
reply), and every grader of every run gets the same ``passed`` and the same number of PASS votes.
The test prints the agreement as ``n/m``.

Graders whose focus needs the session trace (``trace``, and ``baseline``, which compares the
trace with the reference) are judged here only once the run keeps its trace (branch
``graders``); until then they are reported as skipped, never counted as agreeing.
"""

from __future__ import annotations

import json

import pytest
from fakemodel import FakeModel, Script
from plugineval_oracle import grader_verdicts, plugin_eval, skill_eval, write_plugin, write_suite
from realcli import PLUGIN_EVAL_SETS, cli

from skill_eval.cli.main import main

pytestmark = pytest.mark.slow

REPLIES = {
    "VOTE-PFP": ("PASS", "FAIL", "PASS"),
    "VOTE-FFP": ("FAIL", "FAIL", "PASS"),
    "VOTE-ODD": ("**PASS**", "PASS, not FAIL", "Verdict: pass"),  # read as PASS, FAIL, PASS
    "VOTE-NEVER": ("FAIL", "PASSED", "yes"),
    "VOTE-TRACE": ("PASS", "PASS", "FAIL"),
    "VOTE-BASE": ("FAIL", "PASS", "PASS"),
    "VOTE-FILE": ("PASS", "PASS", "PASS"),
}
REFERENCE = "".join(json.dumps({"type": "user" if i % 2 else "assistant", "n": i}) + "\n" for i in range(30))


def _llm(marker: str, focus: str = "") -> str:
    return f"---\ntype: llm\n{focus}---\nThe answer is right ({marker}).\n"


CASES = {
    "judged": {
        "prompt.md": "---\nruns: 1\nallowed_tools: [Write]\n---\nWhat is the total of sales?\n",
        "graders/split.md": _llm("VOTE-PFP"),
        "graders/outvoted.md": _llm("VOTE-FFP"),
        "graders/odd-replies.md": _llm("VOTE-ODD"),
        "graders/never.md": _llm("VOTE-NEVER"),
        "graders/in-file.md": _llm("VOTE-FILE", "focus:\n  source: file\n  path: sub/made.txt\n"),
        "graders/no-file.md": _llm("VOTE-FILE", "focus:\n  source: file\n  path: nothere.txt\n"),
        "graders/mocks.md": _llm("VOTE-FILE", "focus: mock_calls\n"),
        "graders/in-trace.md": _llm("VOTE-TRACE", "focus: trace\n"),
        "graders/like-ref.md":
            "---\ntype: baseline\nbaseline_file: ref.jsonl\n---\nAs complete (VOTE-BASE).\n",
        "ref.jsonl": REFERENCE,
    },
}
NEEDS_TRACE = {"in-trace", "like-ref"}


@pytest.fixture(scope="module", params=PLUGIN_EVAL_SETS)
def both(request, tmp_path_factory):  # noqa: ANN001, ANN201
    claude = cli("claude", request.param)
    root = tmp_path_factory.mktemp(f"pj-{request.param}")
    plugin = write_plugin(root / "plug", CASES)
    script = Script(votes=REPLIES, write_first=("sub/made.txt", "hello file 42\n"))
    theirs = plugin_eval(claude, plugin, script, "--allow-tools", "Write")
    ours = skill_eval(claude, plugin, script, root / "se", "--allow-tools", "Write",
                      arms=("with_skill", "without_skill"), judge=True)
    return theirs, grader_verdicts(root / "se" / "results"), ours


def _theirs(document: dict) -> dict[tuple[str, str, str], dict]:
    return {(case["name"], arm, g["name"]): g for case in document["cases"]
            for arm in ("with", "without") for run in case["arms"].get(arm) or [] for g in run["graders"]}


def test_every_llm_and_baseline_grader_gets_the_same_verdict_and_votes(both):  # noqa: ANN001
    theirs, ours, _ = both
    first = _theirs(theirs.document)
    assert set(first) == set(ours), "the same graders of the same runs"
    agree, compared, waiting, differ = 0, 0, [], []
    for key, their in sorted(first.items()):
        mine = ours[key]
        if key[2] in NEEDS_TRACE and not mine.get("votes"):
            waiting.append(key)  # no session trace on this branch: not judged here yet
            continue
        compared += 1
        same = (their["passed"], sum(their.get("judgeVotes") or [])) == (
            mine["status"] == "passed", sum(v["passed"] for v in mine.get("votes") or []))
        agree += same
        if not same:
            differ.append((key, their.get("judgeVotes"), their.get("explanation"), mine))
    print(f"llm/baseline grader agreement with claude plugin eval: {agree}/{compared}"
          + (f" ({len(waiting)} trace-focused verdicts not judged on this branch)" if waiting else ""))
    assert not differ, differ
    assert compared >= 14  # seven graders in each of two arms


def test_the_votes_split_as_scripted(both):  # noqa: ANN001
    # A grader's three votes are asked at once, so which vote got which scripted reply varies:
    # compared as the replies given, in any order.
    _, ours, _ = both
    votes = {k[2]: sorted(v["passed"] for v in item["votes"]) for k, item in ours.items() if k[1] == "with"}
    assert votes["split"] == [False, True, True] and votes["odd-replies"] == [False, True, True]
    assert votes["outvoted"] == [False, False, True] and votes["never"] == [False, False, False]
    assert votes["in-file"] == [True, True, True] and votes["no-file"] == [] and votes["mocks"] == []


def _votes_asked(capture) -> list[dict]:  # noqa: ANN001
    return [r for r in capture.requests if r["method"] == "POST" and FakeModel.vote_prompt(r["body"])]


def test_three_judge_calls_per_judged_grader_per_run_as_plugin_eval(both):  # noqa: ANN001
    # Each run's votes are its own draws: two runs whose focus text is the same (here the file
    # both arms wrote) are judged apart, three requests each, as plugin eval asks them.
    theirs, ours, capture = both
    judged = [k for k, item in ours.items() if item.get("votes")]
    assert len(_votes_asked(capture)) == 3 * len(judged) == len(_votes_asked(theirs))


def _system_text(body: dict) -> str:
    system = body.get("system")
    return system if isinstance(system, str) else "\n".join(
        b.get("text", "") for b in system or [] if isinstance(b, dict))


def test_a_vote_is_one_tool_less_request_like_plugin_evals(both):  # noqa: ANN001
    theirs, _, capture = both
    ours = _votes_asked(capture)
    for vote in ours:
        body = vote["body"]
        assert not body.get("tools"), "a vote offers no tools"
        assert [m["role"] for m in body["messages"]] == ["user"], "one user message: one turn"
        system = _system_text(body)
        assert "judge" in system and len(system) < 400, system  # the judge's own short system text
        assert "Claude Code" not in system and "Claude Agent SDK" not in system
    # plugin eval's judge request is of the same kind: system text, one user message, no tools,
    # the CLI's default model.
    for vote in _votes_asked(theirs):
        body = vote["body"]
        assert body.get("tools") == [] and [m["role"] for m in body["messages"]] == ["user"]
        assert "judge" in _system_text(body)
    assert {v["body"]["model"] for v in ours} == {v["body"]["model"] for v in _votes_asked(theirs)}


def test_each_run_draws_its_own_votes_and_an_unchanged_rerun_asks_none(tmp_path, monkeypatch):  # noqa: ANN001
    # Two runs of one case whose outputs are byte-identical, one llm grader: three votes each, as
    # plugin eval asks them (a sampling judge's verdicts on them are independent draws); again: none.
    claude = cli("claude", "newest")
    plugin = write_plugin(tmp_path / "plug", {"twice": {
        "prompt.md": "---\nruns: 2\n---\nWhat is the total of sales?\n",
        "graders/right.md": _llm("VOTE-PFP")}})
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-fake")
    with FakeModel(Script(votes=REPLIES)) as fm:
        judge = (f"judge:\n  builtin: claude-code\n  options: {{claude_bin: {json.dumps(str(claude))}, "
                 f"base_url: {json.dumps(fm.url)}}}\n  env: [ANTHROPIC_API_KEY]\n")
        suite = write_suite(tmp_path / "se", claude, plugin, fm.url, ("with_skill",), judge)
        # -j 1: the second run is graded after the first's votes are stored (shared, before).
        assert main(["run", str(suite), "-j", "1"]) in (0, 1)
        first = len(_votes_asked(fm))
        assert main(["run", str(suite), "-j", "1"]) in (0, 1)
        again = len(_votes_asked(fm)) - first
    grades = [json.loads(p.read_text()) for p in sorted((tmp_path / "se" / "results").glob(
        "*/iteration-*/eval-*/*/grading.json"))]
    seen = [item["evidence"] for g in grades for item in g["rubric"]]
    assert len(seen) == 2 and seen[0] == seen[1] != ""  # the same judged text in both runs
    assert (first, again) == (6, 0)
