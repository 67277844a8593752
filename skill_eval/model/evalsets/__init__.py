"""Eval-set readers, one per dialect, behind one loader that detects which dialect a file is.

Every reader maps its file onto the internal model in ``skill_eval.model.cases`` and reports every
problem it finds (errors and warnings) on the EvalSet instead of stopping at the first.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem, raise_if_errors
from skill_eval.model.cases import EvalSet
from skill_eval.model.evalsets.discover import find_evalsets
from skill_eval.model.evalsets.registry import READERS, Reader, detect_folder, detect_format, reader
from skill_eval.model.evalsets.source import load_document, skill_root_for

__all__ = ["READERS", "Reader", "detect_format", "find_evalsets", "load_evalset", "read_evalset", "reader",
           "skill_root_for"]



def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def read_evalset(path: Path, skill_root: Path | None = None, format: str | None = None,
                 display: str | None = None) -> EvalSet:
    """Read one eval-set file; validation findings are on ``.problems``, not raised.

    Raises InvalidInput (one Problem) only when there is nothing to read: a missing or
    unparsable file, an unknown ``format``, or data no reader recognises.
    """
    display = display or _display(path)
    chosen = reader(format) if format else None
    if path.is_dir():
        name = format or detect_folder(path)
        if name is None or not READERS.require(name, "--format").folder:
            raise InvalidInput([Problem(display, "a folder that is no eval set (e.g. a claude plugin eval "
                                        "folder of <case>/prompt.md); name an eval-set file")])
        return reader(name).read(None, path, skill_root if skill_root is not None else path.parent, display)
    doc = load_document(path, display)
    root = skill_root if skill_root is not None else skill_root_for(path)
    if chosen is None:
        name = detect_format(doc.data, path)
        if name is None:
            raise InvalidInput([Problem(display, not_an_evalset_reason(doc.data))])
        chosen = reader(name)
    return chosen.read(doc.data, path, root, display)


def load_evalset(path: Path, skill_root: Path, format: str | None = None,
                 display: str | None = None) -> EvalSet:
    """Read one eval-set file and raise InvalidInput (with every problem) if any is an error."""
    evalset = read_evalset(path, skill_root, format, display)
    raise_if_errors(evalset.problems)
    return evalset


def not_an_evalset_reason(data: Any) -> str:
    """One line on why ``data`` is not an eval set, and what to do."""
    if isinstance(data, dict):
        refs = [f"{k}: {v}" for k, v in data.items() if k.endswith("_source") and isinstance(v, str)]
        if refs:
            return ("not an eval set but a manifest that points to other files "
                    f"({'; '.join(refs)}); inspect those files instead")
        keys = ", ".join(list(data)[:8]) or "none"
        return (f"not an eval set: an object with keys {keys}; expected e.g. {{skill_name, evals: [...]}}, "
                "{cases: [...]} or a list of {query, should_trigger}")
    if isinstance(data, list):
        return ("not an eval set: a list whose items are not {query, should_trigger} or "
                "{eval_id, prompt} objects; check the file's format")
    kind = "empty" if data is None else f"a single {type(data).__name__} value"
    return f"not an eval set: the document is {kind}; expected an object or a list of cases"
