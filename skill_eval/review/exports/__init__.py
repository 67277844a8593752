"""Exports to other tools' layouts: skill-creator and agentskills workspaces, claude plugin eval
suites, each declared as an ``ExportFormat`` beside its writer and registered here, once.
Imported only by cli."""

from __future__ import annotations

from skill_eval.review.exports.format import EXPORTS, Exported, ExportFormat
from skill_eval.review.exports.plugin_eval import PLUGIN_EVAL
from skill_eval.review.exports.viewer_workspaces import AGENTSKILLS, SKILL_CREATOR

# The order is `export --help`'s.
for _format in (SKILL_CREATOR, AGENTSKILLS, PLUGIN_EVAL):
    EXPORTS.add(_format)

__all__ = ["EXPORTS", "ExportFormat", "Exported"]
