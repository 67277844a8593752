"""The real ``claude plugin eval`` grades regex graders as intake/javascript/regex predicts: one case whose
answer holds every subject of tests/test_jsregex.py, with a ``contains``, a ``not_contains`` and
a ``count:N`` grader (N from jsregex) per pattern of its tables. JavaScript rejects some patterns:
plugin eval loads those and fails every such grader ("grader threw"). The CLI's engine is
JavaScriptCore (Bun), not node's V8, so this is where the two engines' differences are settled.
"""

from __future__ import annotations

import json

import pytest
from fakemodel import Script
from plugineval_oracle import plugin_eval, write_plugin
from realcli import PLUGIN_EVAL_SETS, cli
from test_jsregex import CLI_FACTS, CLI_TEXT, INVALID, SPEC_FACTS

from skill_eval.intake.javascript.regex import JsSyntaxError, js_regex

pytestmark = pytest.mark.slow

ANSWER = "|".join([*(text for _, _, text, _, _ in SPEC_FACTS), CLI_TEXT])
PATTERNS = sorted({(p, f) for p, f, *_ in [*CLI_FACTS, *SPEC_FACTS, *INVALID]})


def _predicted() -> tuple[list[dict[str, str]], dict[str, bool]]:
    graders, expected = [], {}
    for i, (pattern, flags) in enumerate(PATTERNS):
        try:
            rx = js_regex(pattern, flags)
            found, count = rx.search(ANSWER), rx.count(ANSWER)
        except JsSyntaxError:
            found, count = None, 0
        for match, passes in (("contains", found), ("not_contains", None if found is None else not found),
                              (f"count:{count}", None if found is None else True)):
            name = f"p{i}-{match.replace(':', '')}"
            graders.append({"name": name, "type": "regex", "pattern": pattern, "flags": flags,
                            "match": match})
            expected[name] = bool(passes)
    return graders, expected


@pytest.mark.parametrize("which", PLUGIN_EVAL_SETS)
def test_plugin_eval_grades_regexes_as_jsregex_predicts(which: str, tmp_path) -> None:  # noqa: ANN001
    claude = cli("claude", which)
    graders, expected = _predicted()
    case = {"case.yaml": "schema_version: '1.1'\nname: rx\nruns: 1\nexecution:\n  max_turns: 2\n"
                         f"graders: {json.dumps(graders)}\n",
            "prompt.md": "Answer.\n"}
    plugin = write_plugin(tmp_path / "plug", {"rx": case})
    theirs = plugin_eval(claude, plugin, Script(answer_with_skill=ANSWER, answer_without_skill=ANSWER),
                         "--ablation", "none")
    [run] = theirs.document["cases"][0]["arms"]["with"]
    got = {g["name"]: g["passed"] for g in run["graders"]}
    differ = {name: (got.get(name), want) for name, want in expected.items() if got.get(name) != want}
    agreed = len(expected) - len(differ)
    print(f"claude plugin eval ({which}) agrees with jsregex on {agreed}/{len(expected)} graders")
    assert not differ, {name: (g, [x for x in graders if x["name"] == name]) for name, g in differ.items()}
