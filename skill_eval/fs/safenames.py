"""The one mapping from a user's name (case id, skill name, model name) to a path component.

Names come from eval sets and suites and end up as folder names under ``results/`` and in
exports. A name that is already a plain, short file name is used unchanged, so existing layouts
stay as they were; anything else (a separator, ``..``, a control character, a lone surrogate,
more than ``MAX_COMPONENT_BYTES``) is rewritten and given a hash suffix of the original, so two
different names stay different. ``validate`` refuses names that still collide after mapping.
"""

from __future__ import annotations

import hashlib
import re

# Far below the 255-byte limit of common file systems, leaving room for prefixes
# ("eval-", "-workspace") and suffixes.
MAX_COMPONENT_BYTES = 100
_HASH_CHARS = 10

# Path separators (both kinds), Windows' reserved characters, and C0/C1 controls and DEL.
_UNSAFE = re.compile(r'[/\\:*?"<>|\x00-\x1f\x7f-\x9f]|[\ud800-\udfff]')


def is_plain(name: str) -> bool:
    """True when ``name`` can be a path component exactly as it is."""
    if name in ("", ".", "..") or name != name.strip() or name.endswith("."):
        return False
    if _UNSAFE.search(name):
        return False
    return len(name.encode("utf-8")) <= MAX_COMPONENT_BYTES


def path_component(name: str) -> str:
    """``name`` as one safe path component: unchanged when plain, else cleaned, bounded and
    suffixed with a hash of the original."""
    if is_plain(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    cleaned = _UNSAFE.sub("_", name).strip().strip(".") or "x"
    budget = MAX_COMPONENT_BYTES - _HASH_CHARS - 1
    head = cleaned.encode("utf-8")[:budget].decode("utf-8", "ignore")
    return f"{head}-{digest}"


def describe(name: str) -> str:
    """A name as a message shows it: escaped, and cut when long."""
    shown = name.encode("unicode_escape", "backslashreplace").decode("ascii")
    return repr(shown if len(shown) <= 60 else shown[:57] + "...")


def arm_folder(arm: str) -> str:
    """A run's arm as its folder under a case: ``with_skill``, ``without_skill``, or
    ``ablation-<name>`` for the arm ``ablation:<name>`` (':' is not a portable file name
    character, and the prefix keeps an ablation from ever sharing a folder with the two arms)."""
    if arm.startswith("ablation:"):
        return "ablation-" + path_component(arm.removeprefix("ablation:"))
    return path_component(arm)
