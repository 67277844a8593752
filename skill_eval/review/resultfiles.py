"""Writing one file under results/: atomic and redacted (every results file passes here)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from skill_eval.fs import sharedfiles
from skill_eval.fs.specialfiles import read_plain
from skill_eval.fs.storage import writes
from skill_eval.store.redact import redact


@writes(lambda path, *_args, **_kwargs: path)
def write_text(path: Path, text: str, redacted: bool = False) -> None:
    """Atomic: a reader (or a crash) never sees half a table. Redacted: every results/ file
    passes here, and no secret reaches one, whatever the format. ``redacted``: the text is
    already (a stored run's, which the store redacted when it wrote it: redacting it again is
    the same text at a megabyte-per-second price)."""
    if not redacted:
        text = redact(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = sharedfiles.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_if_changed(path: Path, text: str) -> None:
    """``write_text``, skipped when the file already holds exactly that text, redacted: a file
    that several writers share (a case's case.json, beside each of its variants' folders) is
    written once, not once per writer."""
    text = redact(text)
    data = text.encode("utf-8")
    if read_plain(path, len(data) + 1) == data:
        return
    write_text(path, text, redacted=True)


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
