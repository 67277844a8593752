"""Output formats for ``skill-eval report --format`` and the files every run writes: each format's
module declares its ``ReportFormat`` beside its renderer, and is registered here, once."""

from __future__ import annotations

from skill_eval.review.render.format import FORMATS, ReportFormat, ReportInput
from skill_eval.review.render.github import GITHUB, github_summary
from skill_eval.review.render.jsonout import JSON, summary_json
from skill_eval.review.render.junit import JUNIT, junit_xml
from skill_eval.review.render.markdown import MD, benchmark_md, summary_md
from skill_eval.review.render.plugin_eval_json import PLUGIN_EVAL_JSON
from skill_eval.review.render.review import HTML

# The order is `report --help`'s.
for _format in (MD, GITHUB, JUNIT, JSON, HTML, PLUGIN_EVAL_JSON):
    FORMATS.add(_format)

__all__ = ["FORMATS", "ReportFormat", "ReportInput", "benchmark_md", "github_summary", "junit_xml",
           "summary_json", "summary_md"]
