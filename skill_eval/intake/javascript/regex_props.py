"""Unicode property escapes ``\\p{...}`` / ``\\P{...}`` (flag ``u`` only), for the names JS and the
``regex`` engine spell and mean alike.

JavaScript takes names exactly as written (``\\p{letter}`` is a SyntaxError), while the engine
matches names loosely, so only names on the lists below are translated: every General_Category
value, a few binary properties, and Script / Script_Extensions of common scripts. Any other
name JavaScript knows is refused by name; one it does not know is its SyntaxError. The two sides'
Unicode versions may differ for characters assigned recently.
"""

from __future__ import annotations

from skill_eval.intake.javascript.regex_errors import JsRegexError, JsSyntaxError
from skill_eval.intake.javascript.regex_escape import Reader

_GENERAL_CATEGORY = frozenset("""
L Letter LC Cased_Letter Lu Uppercase_Letter Ll Lowercase_Letter Lt Titlecase_Letter
Lm Modifier_Letter Lo Other_Letter M Mark Combining_Mark Mn Nonspacing_Mark Mc Spacing_Mark
Me Enclosing_Mark N Number Nd Decimal_Number digit Nl Letter_Number No Other_Number
P Punctuation punct Pc Connector_Punctuation Pd Dash_Punctuation Ps Open_Punctuation
Pe Close_Punctuation Pi Initial_Punctuation Pf Final_Punctuation Po Other_Punctuation
S Symbol Sm Math_Symbol Sc Currency_Symbol Sk Modifier_Symbol So Other_Symbol
Z Separator Zs Space_Separator Zl Line_Separator Zp Paragraph_Separator
C Other Cc Control cntrl Cf Format Cs Surrogate Co Private_Use Cn Unassigned
""".split())
_BINARY = frozenset("""
ASCII Any Assigned Alphabetic Alpha White_Space space Uppercase Upper Lowercase Lower
ASCII_Hex_Digit AHex Hex_Digit Emoji Emoji_Presentation EPres Extended_Pictographic ExtPict
""".split())
_SCRIPTS = frozenset("""
Latin Latn Greek Grek Cyrillic Cyrl Han Hani Arabic Arab Hebrew Hebr Hiragana Hira Katakana Kana
Hangul Hang Devanagari Deva Thai Common Zyyy Inherited Zinh Qaai
""".split())
_SCRIPT_KEYS = frozenset({"Script", "sc", "Script_Extensions", "scx"})
# Names JS knows that are not translated: refused rather than called a syntax error.
_OTHER_KEYS = frozenset({"Script", "sc", "Script_Extensions", "scx", "General_Category", "gc"})


def property_escape(t: Reader, negated: bool) -> str:
    """After ``\\p`` or ``\\P``: ``{Name}`` or ``{Key=Value}``, as engine text."""
    if not t.eat("{"):
        raise t.bad("invalid property name (\\p needs {...})")
    start = t.at
    while (c := t.peek()) is not None and c != ord("}"):
        t.at += 1
    if c is None:
        raise t.bad("invalid property name (no closing })")
    body = "".join(map(chr, t.units[start:t.at]))
    t.at += 1
    key, _, value = body.partition("=")
    known = (value and ((key in ("General_Category", "gc") and value in _GENERAL_CATEGORY) or
                        (key in _SCRIPT_KEYS and value in _SCRIPTS))) or \
        (not value and (body in _GENERAL_CATEGORY or body in _BINARY))
    if not known:
        shown = f"\\{'P' if negated else 'p'}{{{body}}}"
        if (value and key in _OTHER_KEYS) or (not value and body.replace("_", "").isalpha()
                                                and body[:1].isupper()):
            raise JsRegexError(f"Unicode property escape {shown} is not supported (translated: "
                               "General_Category values, a few binary properties, common scripts)")
        raise JsSyntaxError(f"invalid JavaScript regex: invalid property name {shown}")
    return f"\\{'P' if negated else 'p'}{{{body}}}"
