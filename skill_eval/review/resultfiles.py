"""Writing one file under results/: atomic and redacted (every results file passes here)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from skill_eval.fs import sharedfiles
from skill_eval.fs.storage import writes
from skill_eval.store.redact import redact


@writes(lambda path, *_args, **_kwargs: path)
def write_text(path: Path, text: str, from_store: bool = False) -> None:
    """Atomic: a reader (or a crash) never sees half a table. Redacted: every results/ file
    passes here, and no secret reaches one, whatever the format. ``from_store``: the text is a
    stored run's, which the store redacted when it wrote it (redacting it again is the same
    text at a megabyte-per-second price)."""
    if not from_store:
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


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
