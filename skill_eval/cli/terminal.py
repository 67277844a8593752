"""Text from adapters, judges and agents made safe to print on a terminal.

An adapter's stderr or error message quoted in a line skill-eval prints could hold ESC, BEL or
CR: enough to set the terminal's title or clipboard (OSC 52), erase the line before it and forge
another. Every control character (C0 but tab, DEL, C1) and the Unicode bidirectional overrides
are printed as visible escapes (``\\x1b``, ``\\u202e``) instead.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """``text`` with every control character escaped: one printable line."""
    return _CONTROL.sub(_escape, text)
