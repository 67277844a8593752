"""The suite as one invocation's options change it (``--scaffold``, ``--allow-tools``,
``--threshold``), for run, status and report alike."""

from __future__ import annotations

import dataclasses

from skill_eval.engine.options import RunOptions
from skill_eval.model.config import Suite


def with_run_options(suite: Suite, options: RunOptions) -> Suite:
    """The suite with ``run --scaffold`` / ``--allow-tools`` / ``--threshold`` applied (what the
    plan and table keys see)."""
    if options.threshold is not None:
        suite = dataclasses.replace(suite, threshold=options.threshold)
    if not options.scaffold and not options.allow_tools:
        return suite
    own = suite.case_runs
    grants = tuple(dict.fromkeys((*own.allow_tools, *options.allow_tools)))
    return dataclasses.replace(suite, case_runs=dataclasses.replace(
        own, scaffold=own.scaffold or options.scaffold, allow_tools=grants))
