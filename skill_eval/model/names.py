"""Author-chosen names (models, case ids) as file-path segments and doit task names.

Model names carry '/', ':' and '=' (``meta-llama/Llama-3.1-8B-Instruct``, ``llama3.1:8b``) and
case ids are free text. Only the characters that would break the target are percent-encoded, so
ordinary names read as typed and the encoding cannot collide ('%' itself is encoded)."""

from __future__ import annotations


def _encode(text: str, chars: str) -> str:
    out = text.replace("%", "%25")
    for ch in chars:
        out = out.replace(ch, f"%{ord(ch):02X}")
    return out


def path_segment(name: object) -> str:
    """One folder or file name: no separator, no '.'/'..', no NUL."""
    text = _encode(str(name), "/\\\0")
    if not text:
        return "%"  # an empty name (never from a validated suite); '%' alone cannot be an encoding
    return text.replace(".", "%2E") if set(text) == {"."} else text


def doit_name(slot: str) -> str:
    """A doit sub-task name: doit refuses '=' in names."""
    return _encode(slot, "=")
