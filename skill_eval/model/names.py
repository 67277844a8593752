"""Author-chosen names (models, case ids) as doit task names. (As folder names they go through
``safenames.path_component``, the one mapping to the file system.)

Model names carry '/', ':' and '=' (``meta-llama/Llama-3.1-8B-Instruct``, ``llama3.1:8b``).
Only the characters doit refuses are percent-encoded, so ordinary names read as typed and the
encoding cannot collide ('%' itself is encoded)."""

from __future__ import annotations


def _encode(text: str, chars: str) -> str:
    out = text.replace("%", "%25")
    for ch in chars:
        out = out.replace(ch, f"%{ord(ch):02X}")
    return out


def doit_name(slot: str) -> str:
    """A doit sub-task name: doit refuses '=' in names."""
    return _encode(slot, "=")
