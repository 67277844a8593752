"""intake/jsregex: JavaScript regexes matched as JavaScript matches them.

The tables hold facts of JavaScript: the first is what the real ``claude plugin eval`` (2.1.332,
Bun 1.4.6's JavaScriptCore) reported for graders on one answer text; the rest are ECMA-262 rules,
each also checked against node by the property test (tests/test_jsregex_node.py).
"""

from __future__ import annotations

import re

import pytest

from skill_eval.intake import jsregex_sets as cs
from skill_eval.intake import timedmatch as tm
from skill_eval.intake.jsregex import JsRegexError, JsSyntaxError, js_regex, js_text
from skill_eval.intake.timedmatch import PatternTimedOut, pattern_budget

# The answer text of the real-CLI experiment (docs/dialects.md, "JavaScript regexes").
CLI_TEXT = "aaaa b\U0001F600 Ab\nxyz \u017f K"
# (pattern, flags, contains, count) as claude plugin eval graded them on CLI_TEXT.
CLI_FACTS = [
    ("a", "", True, 4), ("a", "g", True, 4), ("a", "i", True, 5), ("x*", "", True, 20),
    ("x*", "g", True, 20), ("aa", "", True, 2), ("^", "m", True, 2), ("^", "", True, 1),
    (".", "y", True, 11), ("a", "y", True, 4), ("b", "y", False, 0), ("(?:)", "u", True, 19),
    ("(?:)", "", True, 20), ("s", "i", False, 0), ("s", "iu", True, 1), ("k", "iu", True, 1),
    ("\\w", "iu", True, 12), ("a", "d", True, 4), ("(?i:AAAA)", "", True, 1),
    ("\\u{1F600}", "u", True, 1), ("a{", "", False, 0), ("(?<=b)\U0001F600", "u", True, 1),
]


@pytest.mark.parametrize(("pattern", "flags", "contains", "count"), CLI_FACTS)
def test_agrees_with_claude_plugin_eval(pattern: str, flags: str, contains: bool, count: int) -> None:
    rx = js_regex(pattern, flags)
    assert (rx.search(CLI_TEXT), rx.count(CLI_TEXT)) == (contains, count)


# (pattern, flags, text, test(), match-count) by ECMA-262.
SPEC_FACTS = [
    (".", "", "\n\r\u2028\u2029", False, 0), (".", "s", "\u2028", True, 1),
    ("^b", "m", "a\u2028b", True, 1), ("a$", "m", "a\rb", True, 1), ("a$", "", "a\n", False, 0),
    ("\\s", "", "\ufeff\u00a0\u3000", True, 3), ("\\s", "", "\u200b\u0085", False, 0),
    ("\\d", "u", "\u0663", False, 0), ("\\w", "", "\u00e9", False, 0), ("\\bé", "", "xé", True, 1),
    ("\\cJ", "", "\n", True, 1), ("\\c1", "", "\\c1", True, 1), ("[\\c1]", "", "\x11", True, 1),
    ("\\x41\\u0042", "", "AB", True, 1), ("\\u{2}", "", "uu", True, 1), ("\\0", "", "\0", True, 1),
    ("\\101", "", "A", True, 1), ("\\8", "", "8", True, 1), ("\\q", "", "q", True, 1),
    ("[]", "", "abc", False, 0), ("[^]", "", "\n", True, 1), ("a{,2}", "", "a{,2}", True, 1),
    ("}]", "", "}]", True, 1), ("(a)|\\1b", "", "b", True, 1), ("\\k<n>(?<n>a)", "", "a", True, 1),
    ("(?<n>a)\\k<n>", "", "aa", True, 1), ("\\k", "", "k", True, 1), ("(a\\1)", "", "a", True, 1),
    ("(?<=\\d{2})x", "", "1x 12x", True, 1), ("(?<!a)b", "", "ab b", True, 1),
    ("^.$", "", "\U0001F600", False, 0), ("^.$", "u", "\U0001F600", True, 1),
    ("\\ud83d", "", "\U0001F600", True, 1), ("\\ud83d", "u", "\U0001F600", False, 0),
    ("[\\ud83d\\ude00]", "u", "\U0001F600", True, 1), ("ß", "i", "ẞ", False, 0),
    ("ß", "iu", "ẞ", True, 1), ("[^k]", "iu", "\u212a", False, 0), ("(a)\\1", "iu", "aA", True, 1),
    ("a|", "g", "ba", True, 3), ("\\b", "", "ab cd", True, 4), ("\\B", "", "ab", True, 1),
]


@pytest.mark.parametrize(("pattern", "flags", "text", "found", "count"), SPEC_FACTS)
def test_follows_ecmascript(pattern: str, flags: str, text: str, found: bool, count: int) -> None:
    rx = js_regex(pattern, flags)
    assert (rx.search(text), rx.count(text)) == (found, count)


# JavaScript rejects these (new RegExp throws; plugin eval fails the grader at every run).
INVALID = [
    ("(?i)great", "", "(?i)"), ("(?im)a", "", "(?im)"), ("a", "gg", "repeat"), ("a", "uv", "u and v"),
    ("(", "", "unterminated group"), (")", "", "unmatched"), ("*a", "", "nothing to repeat"),
    ("a**", "", "nothing to repeat"), ("^*", "", "nothing to repeat"), ("{1}", "", "nothing to repeat"),
    ("a{2,1}", "", "out of order"), ("[b-a]", "", "out of order"), ("[", "", "unterminated"),
    ("\\", "", "end of pattern"), ("a{", "u", "incomplete quantifier"), ("]", "u", "lone"),
    ("\\q", "u", "invalid escape"), ("\\1", "u", "does not exist"), ("[\\w-z]", "u", "class"),
    ("\\k<x>(?<n>a)", "", "named capture"), ("(?<1a>x)", "", "group name"), ("(?-:a)", "", "(?-:"),
    ("\\u{110000}", "u", "out of range"), ("(?<=a)*", "", "nothing to repeat"),
]


@pytest.mark.parametrize(("pattern", "flags", "named"), INVALID)
def test_what_javascript_rejects_is_a_syntax_error_naming_it(pattern: str, flags: str, named: str) -> None:
    with pytest.raises(JsSyntaxError, match=re.escape(named)):
        js_regex(pattern, flags)


# Valid JavaScript without a faithful translation: refused, never matched differently.
REFUSED = [
    ("a", "v", "flag v"), ("a", "x", "not a JS RegExp flag"), ("\\p{L}", "u", "property escape"),
    ("(a)\\1", "i", "without u"), ("(?:(a)|b)+\\1", "", "repeated group"),
    ("(?<=(a))\\1", "", "lookbehind"), ("(?<=\\1(a))b", "", "inside a lookbehind"),
    ("(?<n>a)|(?<n>b)", "", "duplicate group name"), ("(?=a)*", "", "quantified lookahead"),
]


@pytest.mark.parametrize(("pattern", "flags", "named"), REFUSED)
def test_what_cannot_be_translated_is_refused_naming_it(pattern: str, flags: str, named: str) -> None:
    with pytest.raises(JsRegexError, match=re.escape(named)) as caught:
        js_regex(pattern, flags)
    assert type(caught.value) is JsRegexError  # valid JavaScript: not a JsSyntaxError


def test_inline_flag_group_error_says_what_to_write_instead() -> None:
    with pytest.raises(JsSyntaxError) as caught:
        js_regex("(?i)great question", "")
    assert "flags: i" in str(caught.value) and "(?i:" in str(caught.value)


def test_subject_is_utf16_units_without_u_and_code_points_with_it() -> None:
    assert js_text("a\U0001F600", unicode=False) == "a\ud83d\ude00"
    assert js_text("a\ud83d\ude00", unicode=True) == "a\U0001F600"
    assert js_text("plain", unicode=False) == "plain"


def test_case_closure_follows_js_canonicalize() -> None:
    s = ((ord("s"), ord("s")),)
    assert cs.case_closure(s, unicode=False) == ((ord("S"), ord("S")), (ord("s"), ord("s")))
    assert cs.contains(cs.case_closure(s, unicode=True), 0x17F)
    assert cs.contains(cs.case_closure(((0x3C3, 0x3C3),), unicode=False), 0x3C2)  # σ ~ ς by upper case


def test_a_catastrophic_pattern_times_out_instead_of_hanging(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tm, "REGEX_TIMEOUT_MS", 50)
    rx = js_regex("^(a|a)+$")
    with pytest.raises(PatternTimedOut), pattern_budget():
        rx.count("a" * 40 + "!")


def test_translations_are_cached() -> None:
    assert js_regex("a+", "i") is js_regex("a+", "i")
