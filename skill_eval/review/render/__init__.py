"""Output formats for ``skill-eval report --format``: each renders all benchmarks to one text."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skill_eval.review.render.github import github_summary
from skill_eval.review.render.jsonout import summary_json
from skill_eval.review.render.junit import junit_xml
from skill_eval.review.render.markdown import benchmark_md, summary_md
from skill_eval.review.render.plugin_eval_json import plugin_eval_json

Benches = Sequence[Mapping[str, Any]]
Moved = Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class Format:
    name: str
    filename: str  # default file under <results>/
    render: Callable[[Benches, Moved], str]


def _github(benches: Benches, moved: Moved) -> str:
    # The file form is the step summary; annotations go to stdout via github_summary().
    return github_summary(benches, moved)[0]


def _html(benches: Benches, moved: Moved) -> str:
    # Figures only: the CLI renders the page with every run's details (tables.review_html).
    from skill_eval.review.render.page.run_data import review_data
    from skill_eval.review.render.review import review_page

    return review_page(benches, moved, review_data(None, [(b, None) for b in benches], moved))


def _json(benches: Benches, moved: Moved) -> str:
    return json.dumps(summary_json(benches, moved), indent=2, sort_keys=True) + "\n"


FORMATS: dict[str, Format] = {
    "md": Format("md", "summary.md", summary_md),
    "github": Format("github", "github-summary.md", _github),
    "junit": Format("junit", "junit.xml", junit_xml),
    "json": Format("json", "summary.json", _json),
    "html": Format("html", "index.html", _html),
    # claude plugin eval's own result document (plugin eval suites only; docs/commands.md)
    "plugin-eval-json": Format("plugin-eval-json", "aggregate-result.json", plugin_eval_json),
}

__all__ = ["FORMATS", "Format", "benchmark_md", "github_summary", "junit_xml", "summary_json", "summary_md"]
