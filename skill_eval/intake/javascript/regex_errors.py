"""The two ways a JavaScript regex can fail to load here."""

from __future__ import annotations


class JsRegexError(ValueError):
    """A JavaScript regex (pattern or flags) that cannot be matched faithfully here."""


class JsSyntaxError(JsRegexError):
    """JavaScript itself rejects the pattern or flags: ``new RegExp`` throws. ``claude plugin
    eval`` loads such a grader and then fails it at every run ("grader threw: ...")."""
