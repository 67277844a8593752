"""``results/mock-recordings/``: the answers agent mocks gave in runs that ended cleanly, as
``claude plugin eval`` saves them, for a user to adopt: a file copied into the ``.replay/<server>/``
folder named for it in ``ADOPT.txt`` answers an identical later call with no model call (under
skill-eval and under plugin eval: the file names are the same call identities).

Rewritten with the summary, from the stored runs of the plan; a server whose one call was
answered differently by two runs is left out (no answer could be the one to replay).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

from skill_eval.model.mockagent import RECORDING
from skill_eval.review.folder.files import write_text
from skill_eval.review.folder.staleness import skill_specs
from skill_eval.review.resultsource import ResultSource

FOLDER = "mock-recordings"
ADOPT = "ADOPT.txt"
_SERVER = re.compile(r"^[A-Za-z0-9_-]+$")
HEADER = ("Agent-mock answers from runs that ended cleanly. To have a later run answer an identical "
          "call from one of them (no model call), copy the file into the .replay/ folder named "
          "under it, beside the mock that gave the answer. Each file's sha256 is given: check your "
          "copy against it.")


def _answer(text: str) -> str | None:
    """The verdict and answer a recording holds; None when its text is not a JSON object (an
    entry damaged in the store, or redacted by a version that broke JSON)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return f"{data.get('verdict')}\n{data.get('output')}" if isinstance(data, dict) else None


def collect(source: ResultSource) -> dict[tuple[str, str], dict[str, Any]]:
    """(server, file) -> {text, adopt: {folders}} over every stored run of the plan."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    torn: set[str] = set()
    for skill in source.skill_names:
        for spec in skill_specs(source, skill):
            settings = spec.case.settings
            if settings is None or settings.mocks is None:
                continue  # no mocks, no recordings: its meta.json is not read (every summary, every suite)
            meta = source.store.get_meta(spec.key) or {}
            recordings = [rec for rec in meta.get("mock_recordings") or [] if isinstance(rec, dict)]
            if any(isinstance(rec.get("text"), str) and _answer(rec["text"]) is None for rec in recordings):
                # Damaged: the run is removed, so that `run` makes it again (`status`: missing).
                source.store.discard_run(spec.key)
                source.damaged.append(source.slot(spec))
                continue
            for rec in recordings:
                server, name, text = rec.get("server"), rec.get("file"), rec.get("text")
                if not (isinstance(server, str) and _SERVER.match(server) and isinstance(name, str)
                        and RECORDING.match(name) and isinstance(text, str)):
                    continue
                held = found.setdefault((server, name), {"text": text, "adopt": set()})
                if _answer(held["text"]) != _answer(text):
                    torn.add(server)
                held["adopt"].add(str(rec.get("adopt_dir") or ""))
    return {k: v for k, v in found.items() if k[0] not in torn}


def write_recordings(source: ResultSource) -> None:
    out = source.suite.results / FOLDER
    if out.is_dir():
        shutil.rmtree(out)
    found = collect(source)
    if not found:
        return
    lines = []
    for (server, name), held in sorted(found.items()):
        path = out / server / name
        write_text(path, held["text"])
        digest = hashlib.sha256(held["text"].encode("utf-8")).hexdigest()
        lines.append(f"{path}  sha256={digest}")
        lines += [f"    -> {Path(folder)}/" for folder in sorted(held["adopt"]) if folder]
    write_text(out / ADOPT, HEADER + "\n\n" + "\n".join(lines) + "\n")
