"""Who wrote a remote entry: skill-eval's version, the host, the git commit and CI run where
known, the time. Read from the environment CI systems set; nothing here is a secret."""

from __future__ import annotations

import datetime
import os
import socket
from pathlib import Path
from typing import Any

from skill_eval.store.gitinfo import head

# (variable with the run's id, variable with its URL or project) of the CI systems we know.
_CI = (("GITHUB_RUN_ID", "GITHUB_REPOSITORY"), ("CI_PIPELINE_ID", "CI_PROJECT_PATH"),
       ("BUILDKITE_BUILD_ID", "BUILDKITE_PIPELINE_SLUG"), ("CIRCLE_WORKFLOW_ID", "CIRCLE_PROJECT_REPONAME"))


def provenance(project_root: Path) -> dict[str, Any]:
    from skill_eval import __version__

    out: dict[str, Any] = {"skill_eval": __version__, "host": socket.gethostname(),
                           "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
    here = head(project_root, []) if not os.environ.get("GITHUB_SHA") else None
    commit = os.environ.get("GITHUB_SHA") or (here[0] if here else None)
    if commit:
        out["git_commit"] = commit
    for run_id, where in _CI:
        if os.environ.get(run_id):
            out["ci_run"] = f"{os.environ.get(where, '')}#{os.environ[run_id]}".lstrip("#")
            break
    return out
